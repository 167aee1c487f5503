#include "common/parse/flow_recording_parse.h"

#include <gtest/gtest.h>

namespace fabric {
namespace {

TEST(FlowRecordingParseTest, ParsesSnapshotsAddressesAndSockets) {
  auto r = ParseFlowRecording(
      "# comment\n"
      "snapshot 10.5\n"
      "address eth0 192.0.2.10\n"
      "socket 192.0.2.10:40001 192.0.2.20:22 cookie=9 bytes_acked=100 busy_us=7\n"
      "\n"
      "snapshot 20\n"
      "socket [2001:db8::1]:5 [2001:db8::2]:6800 cookie=1 sndbuf=4096\n"
      "destroyed 192.0.2.10:40001 192.0.2.20:22 cookie=9 bytes_acked=300 rmem_alloc=0\n",
      "rec");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->size(), 2u);
  const auto& first = (*r)[0];
  EXPECT_DOUBLE_EQ(first.monotonic_seconds, 10.5);
  ASSERT_EQ(first.addresses.size(), 1u);
  EXPECT_EQ(first.addresses[0].interface, "eth0");
  ASSERT_EQ(first.sockets.size(), 1u);
  const auto& s = first.sockets[0];
  EXPECT_EQ(s.cookie, 9u);
  EXPECT_EQ(s.remote_port, 22);
  EXPECT_EQ(s.info->bytes_acked, 100u);
  EXPECT_EQ(s.info->busy_us, 7u);
  EXPECT_FALSE(s.info->bytes_received.has_value());
  EXPECT_FALSE(s.info->rwnd_limited_us.has_value());
  const auto& v6 = (*r)[1].sockets[0];
  EXPECT_TRUE(v6.local.v6);
  EXPECT_EQ(v6.remote_port, 6800);
  EXPECT_EQ(v6.sndbuf, 4096u);
  EXPECT_TRUE(first.closed.empty());
  ASSERT_EQ((*r)[1].closed.size(), 1u);  // Destroyed since the snapshot before.
  EXPECT_EQ((*r)[1].closed[0].cookie, 9u);
  EXPECT_EQ((*r)[1].closed[0].info->bytes_acked, 300u);
  EXPECT_EQ((*r)[1].closed[0].rmem_alloc, 0u);
}

TEST(FlowRecordingParseTest, ErrorsNameTheLine) {
  struct Case {
    const char* text;
    const char* want;
  };
  const Case cases[] = {
      {"socket 1.2.3.4:1 1.2.3.4:2\n", "rec:1: a `snapshot` line must come first"},
      {"snapshot 1\nsocket 1.2.3.4:1 1.2.3.4:2 bogus=1\n", "rec:2: unknown socket key"},
      {"snapshot 1\nsocket 1.2.3.4:1 1.2.3.4:70000\n", "rec:2: bad port"},
      {"snapshot 1\nsocket 1.2.3.4:1 1.2.3.4:2 cookie=x\n", "rec:2: not a number"},
      {"snapshot 2\nsnapshot 1\n", "rec:2: snapshot times must increase"},
      {"snapshot 1\naddress eth0\n", "rec:2: expected: address"},
      {"snapshot 1\nflow x\n", "rec:2: unknown record"},
      {"# nothing\n", "rec: no snapshot"},
  };
  for (const auto& c : cases) {
    auto r = ParseFlowRecording(c.text, "rec");
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_NE(r.error().message.find(c.want), std::string::npos)
        << c.text << " -> " << r.error().message;
  }
}

}  // namespace
}  // namespace fabric
