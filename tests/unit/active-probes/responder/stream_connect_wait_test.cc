// The responder's wait for a session's data streams, over real sockets on loopback: a requester
// that never opens them costs one idle timeout and frees the responder, and the session's
// "ended early" log line does not hold the accept thread up when stderr blocks (a full pipe, a
// stalled journald).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>

#include "active-probes/control/client_session.h"
#include "active-probes/responder/responder.h"
#include "active-probes/tcp/session_request.h"
#include "tests/unit/active-probes/responder/loopback_responder_options.h"

namespace fabric::probe {
namespace {

constexpr char kSecret[] = "stream-connect-wait-secret-0123456789";

// Points fd 2 at a pipe that is full and read by no one, so the next write to stderr blocks;
// the destructor puts stderr back and drains the pipe, which lets a blocked writer finish.
class BlockedStderr {
 public:
  BlockedStderr() {
    int fds[2];
    EXPECT_EQ(::pipe2(fds, O_CLOEXEC), 0);
    read_end_.Reset(fds[0]);
    UniqueFd write_end(fds[1]);
    int flags = ::fcntl(write_end.get(), F_GETFL);
    ::fcntl(write_end.get(), F_SETFL, flags | O_NONBLOCK);
    const std::string filler(4096, 'x');
    while (::write(write_end.get(), filler.data(), filler.size()) > 0) {
    }
    ::fcntl(write_end.get(), F_SETFL, flags);
    saved_stderr_.Reset(::dup(STDERR_FILENO));
    EXPECT_GE(::dup2(write_end.get(), STDERR_FILENO), 0);
  }
  ~BlockedStderr() {
    ::dup2(saved_stderr_.get(), STDERR_FILENO);
    // EOF once the last writer (one blocked in write(), if any) has finished.
    char buf[65536];
    while (::read(read_end_.get(), buf, sizeof(buf)) > 0) {
    }
  }

 private:
  UniqueFd read_end_;
  UniqueFd saved_stderr_;
};

// True once a thread of this process named `name` is blocked in write() on fd 2
// (/proc/self/task/*/syscall: "<nr> 0x2 ..." while in the call, "running" otherwise).
bool ThreadIsWritingToStderr(const std::string& name) {
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream comm(task.path() / "comm");
    std::string thread_name;
    std::getline(comm, thread_name);
    if (thread_name != name) continue;
    std::ifstream syscall_file(task.path() / "syscall");
    std::string number, first_argument;
    syscall_file >> number >> first_argument;
    if (number == std::to_string(SYS_write) && first_argument == "0x2") return true;
  }
  return false;
}

class StreamConnectWaitTest : public ::testing::Test {
 protected:
  void Start(std::chrono::milliseconds idle_timeout) {
    responder_ = std::make_unique<Responder>(LoopbackResponderOptions(kSecret, 4, idle_timeout));
    ASSERT_TRUE(responder_->Start().ok());
  }

  Result<LineConn> Open() {
    ClientSessionOptions o;
    o.peer = responder_->bound()[0];
    o.secret = kSecret;
    o.timeout = std::chrono::milliseconds(10000);
    uint64_t retry_ms = 0;
    return OpenClientSession(o, &retry_ms);
  }

  // An authenticated session whose TEST request the responder accepted; its data streams are
  // never opened.
  void OpenAcceptedSession(LineConn& conn) {
    auto opened = Open();
    ASSERT_TRUE(opened.ok()) << opened.error().message;
    conn = std::move(*opened);
    SessionRequest request;
    request.up = 2;
    request.duration_ms = 500;
    request.block = 128 << 10;
    auto deadline = SteadyClock::now() + std::chrono::seconds(10);
    ASSERT_TRUE(conn.Write(RequestToMessage(request), deadline).ok());
    auto accept = conn.Read(deadline);
    ASSERT_TRUE(accept.ok()) << accept.error().message;
    ASSERT_EQ(accept->verb, "ACCEPT");
  }

  std::unique_ptr<Responder> responder_;
};

TEST_F(StreamConnectWaitTest, StreamsThatNeverConnectFailTheSessionAndFreeTheResponder) {
  Start(std::chrono::milliseconds(300));
  LineConn held;
  ASSERT_NO_FATAL_FAILURE(OpenAcceptedSession(held));
  // The responder closes the control connection after it has counted the session.
  WaitForClose(held);
  EXPECT_EQ(responder_->counters().sessions_failed, 1u);
  auto next = Open();
  EXPECT_TRUE(next.ok()) << next.error().message;
}

TEST_F(StreamConnectWaitTest, ASessionLoggingToABlockedStderrDoesNotHoldUpTheNextRequester) {
  Start(std::chrono::milliseconds(300));
  BlockedStderr blocked;
  LineConn held;
  ASSERT_NO_FATAL_FAILURE(OpenAcceptedSession(held));
  // The session's wait runs out and it logs why: that write blocks.
  auto give_up = SteadyClock::now() + std::chrono::seconds(60);
  while (!ThreadIsWritingToStderr("resp-session")) {
    ASSERT_LT(SteadyClock::now(), give_up) << "the session never logged its failure";
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  // The slot is still taken (the session has not returned), so the answer is BUSY. Logging
  // under the session's lock made the accept thread wait behind stderr and this a timeout.
  auto second = Open();
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error().code, ErrorCode::kBusy) << second.error().message;
}

}  // namespace
}  // namespace fabric::probe
