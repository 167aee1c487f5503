// The fleet digest in the session's opening, over real sockets on loopback: two sides on one
// fleet list open a session and learn each other's digest; two on different lists are refused
// before authentication with ErrorCode::kFleetMismatch, each side told the other's digest; a
// requester or responder of an older version (no digest on the wire) is served as before and
// reported with an empty digest.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "active-probes/control/client_session.h"
#include "active-probes/control/message.h"
#include "active-probes/responder/responder.h"
#include "tests/unit/active-probes/responder/loopback_responder_options.h"

namespace fabric::probe {
namespace {

constexpr char kSecret[] = "fleet-hello-test-secret-0123456789";

// What one side's callback was told: (address, digest) pairs.
class Seen {
 public:
  std::function<void(const std::string&, const std::string&)> Observer() {
    return [this](const std::string& address, const std::string& digest) {
      std::lock_guard<std::mutex> lock(mu_);
      seen_.emplace_back(address, digest);
    };
  }
  std::vector<std::pair<std::string, std::string>> Get() const {
    std::lock_guard<std::mutex> lock(mu_);
    return seen_;
  }

 private:
  mutable std::mutex mu_;
  std::vector<std::pair<std::string, std::string>> seen_;
};

class FleetHelloTest : public ::testing::Test {
 protected:
  // A responder holding `digest` ("" : an older version, or fabric_probe serve).
  void StartResponder(const std::string& digest) {
    ResponderOptions o = LoopbackResponderOptions(kSecret, 4, std::chrono::milliseconds(2000));
    o.fleet_digest = digest;
    o.on_requester_fleet = responder_seen_.Observer();
    responder_ = std::make_unique<Responder>(std::move(o));
    ASSERT_TRUE(responder_->Start().ok());
  }

  // A session opened by a requester holding `digest` ("": an older version).
  Result<LineConn> Open(const std::string& digest) {
    ClientSessionOptions o;
    o.peer = responder_->bound()[0];
    o.secret = kSecret;
    o.timeout = std::chrono::milliseconds(10000);
    o.fleet_digest = digest;
    o.on_peer_fleet = requester_seen_.Observer();
    uint64_t retry_ms = 0;
    return OpenClientSession(o, &retry_ms);
  }

  Seen responder_seen_;
  Seen requester_seen_;
  std::unique_ptr<Responder> responder_;
};

using Pairs = std::vector<std::pair<std::string, std::string>>;

TEST_F(FleetHelloTest, OneFleetListOpensTheSession) {
  StartResponder("0123456789abcdef");
  auto session = Open("0123456789abcdef");
  ASSERT_TRUE(session.ok()) << session.error().message;
  EXPECT_EQ(requester_seen_.Get(), (Pairs{{"127.0.0.1", "0123456789abcdef"}}));
  EXPECT_EQ(responder_seen_.Get(), (Pairs{{"127.0.0.1", "0123456789abcdef"}}));
  EXPECT_EQ(responder_->counters().fleet_mismatches, 0u);
}

TEST_F(FleetHelloTest, AnotherFleetListIsRefusedAndEachSideLearnsTheOther) {
  StartResponder("0123456789abcdef");
  auto session = Open("fedcba9876543210");
  ASSERT_FALSE(session.ok());
  EXPECT_EQ(session.error().code, ErrorCode::kFleetMismatch) << session.error().message;
  EXPECT_NE(session.error().message.find("0123456789abcdef"), std::string::npos);
  EXPECT_NE(session.error().message.find("fedcba9876543210"), std::string::npos);
  EXPECT_EQ(requester_seen_.Get(), (Pairs{{"127.0.0.1", "0123456789abcdef"}}));
  EXPECT_EQ(responder_seen_.Get(), (Pairs{{"127.0.0.1", "fedcba9876543210"}}));
  const ResponderCounters counters = responder_->counters();
  EXPECT_EQ(counters.fleet_mismatches, 1u);
  EXPECT_EQ(counters.auth_failures, 0u);  // Refused before any session slot or challenge.
  // Refused again on the next try, not once only.
  auto again = Open("fedcba9876543210");
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().code, ErrorCode::kFleetMismatch);
  EXPECT_EQ(responder_->counters().fleet_mismatches, 2u);
}

TEST_F(FleetHelloTest, AnOlderRequesterIsServedAsBefore) {
  StartResponder("0123456789abcdef");
  auto session = Open("");
  ASSERT_TRUE(session.ok()) << session.error().message;
  EXPECT_EQ(responder_seen_.Get(), (Pairs{{"127.0.0.1", ""}}));
  // It still learns the responder's digest (it ignores the field; this one records it).
  EXPECT_EQ(requester_seen_.Get(), (Pairs{{"127.0.0.1", "0123456789abcdef"}}));
}

TEST_F(FleetHelloTest, AnOlderResponderIsProbedAsBefore) {
  StartResponder("");
  auto session = Open("0123456789abcdef");
  ASSERT_TRUE(session.ok()) << session.error().message;
  EXPECT_EQ(requester_seen_.Get(), (Pairs{{"127.0.0.1", ""}}));
  EXPECT_EQ(responder_->counters().fleet_mismatches, 0u);
}

// The wire form: the field is one more key of HELLO, which a parser of the older version reads
// past (every message is a map of keys), and absent when the requester holds no digest.
TEST(FleetHelloWireTest, HelloCarriesTheDigestAsAnOptionalKey) {
  Message hello;
  hello.verb = "HELLO";
  hello.Set("v", static_cast<uint64_t>(kProtocolVersion)).Set("probe", "tcp");
  EXPECT_EQ(FormatMessage(hello), "HELLO probe=tcp v=1\n");
  hello.Set("fleet", "0123456789abcdef");
  EXPECT_EQ(FormatMessage(hello), "HELLO fleet=0123456789abcdef probe=tcp v=1\n");
  auto parsed = ParseMessage("HELLO fleet=0123456789abcdef probe=tcp v=1");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->Get("fleet"), "0123456789abcdef");
  EXPECT_EQ(parsed->Uint("v").value_or(0), 1u);
}

}  // namespace
}  // namespace fabric::probe
