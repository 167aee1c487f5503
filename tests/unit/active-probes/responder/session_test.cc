// Session::RequesterGone over a real socket pair: what the responder asks before it answers a
// new requester BUSY.
#include "active-probes/responder/session.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>

#include "active-probes/responder/responder.h"

namespace fabric::probe {
namespace {

struct ConnectedSession {
  ConnectedSession() {
    int fds[2];
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
    requester.Reset(fds[1]);
    session = std::make_unique<Session>(options, UniqueFd(fds[0]), sockaddr_storage{});
  }
  ResponderOptions options;
  UniqueFd requester;
  std::unique_ptr<Session> session;
};

TEST(SessionRequesterGone, NotWhileTheRequesterHoldsTheConnection) {
  ConnectedSession c;
  EXPECT_FALSE(c.session->RequesterGone());
  // A request waiting to be read is a requester still there.
  ASSERT_EQ(::write(c.requester.get(), "HELLO\n", 6), 6);
  EXPECT_FALSE(c.session->RequesterGone());
}

TEST(SessionRequesterGone, OnceTheRequesterHasClosed) {
  ConnectedSession c;
  c.requester.Reset();
  EXPECT_TRUE(c.session->RequesterGone());
}

TEST(SessionRequesterGone, EvenWithItsLastWordsUnread) {
  ConnectedSession c;
  ASSERT_EQ(::write(c.requester.get(), "BYE\n", 4), 4);
  ::shutdown(c.requester.get(), SHUT_WR);
  EXPECT_TRUE(c.session->RequesterGone());
}

}  // namespace
}  // namespace fabric::probe
