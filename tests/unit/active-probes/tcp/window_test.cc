// Where a side's measuring window ends when its end-edge message comes after
// the sender stopped, and when the responder's window is too short to be a
// measurement: the run that once reported 0 bit/s with exit status 0 (both
// edge messages read together, after every stream had ended) fails instead.
#include "active-probes/tcp/window.h"

#include <gtest/gtest.h>

#include <chrono>
#include <vector>

namespace fabric::probe {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

const Clock::time_point kT0 = Clock::time_point(std::chrono::hours(1));

WindowEdge Edge(Clock::time_point t, std::vector<uint64_t> bytes) {
  WindowEdge e;
  e.time = t;
  for (uint64_t b : bytes) {
    StreamSnapshot s;
    s.bytes = b;
    e.streams.push_back(s);
  }
  return e;
}

TEST(WindowEndTest, EndsAtTheEdgeWhileAReceivingStreamIsStillOpen) {
  WindowEdge a = Edge(kT0, {0, 0});
  WindowEdge b = Edge(kT0 + milliseconds(4000), {4000, 4000});
  b.streams[0].peer_closed = kT0 + milliseconds(3000);  // the other is still receiving
  SideReport r = DiffEdges(a, b, {false, false});
  EXPECT_DOUBLE_EQ(r.window_seconds, 4.0);
  EXPECT_EQ(r.streams[0].bytes + r.streams[1].bytes, 8000u);
}

TEST(WindowEndTest, ALateEndEdgeIsCutAtTheLastFin) {
  // The end edge was read 1.6 s after the sender stopped (a retransmitted
  // control message): the window is the 4 s in which data came.
  WindowEdge a = Edge(kT0, {0, 0});
  WindowEdge b = Edge(kT0 + milliseconds(5600), {4000, 4000});
  b.streams[0].peer_closed = kT0 + milliseconds(3990);
  b.streams[1].peer_closed = kT0 + milliseconds(4000);
  SideReport r = DiffEdges(a, b, {false, false});
  EXPECT_DOUBLE_EQ(r.window_seconds, 4.0);
}

TEST(WindowEndTest, SendingStreamsDoNotDecideIt) {
  // A side that sends on stream 0 and receives on stream 1: only stream 1's
  // FIN counts, and it has not come.
  WindowEdge a = Edge(kT0, {0, 0});
  WindowEdge b = Edge(kT0 + milliseconds(4000), {4000, 4000});
  b.streams[0].peer_closed = kT0 + milliseconds(1000);
  SideReport r = DiffEdges(a, b, {true, false});
  EXPECT_DOUBLE_EQ(r.window_seconds, 4.0);
  // A side that only sends ends at its edge.
  b.streams[1].peer_closed.reset();
  EXPECT_EQ(WindowEnd(b, {true, true}), b.time);
}

TEST(WindowEndTest, BothEdgesAfterTheDataEndedLeaveNoWindow) {
  // Start and end edges read together after the streams had ended: what the
  // responder counted is nothing, over no time.
  WindowEdge a = Edge(kT0 + milliseconds(5000), {4000, 4000});
  WindowEdge b = Edge(kT0 + milliseconds(5000) + std::chrono::microseconds(3), {4000, 4000});
  b.streams[0].peer_closed = kT0 + milliseconds(4000);
  b.streams[1].peer_closed = kT0 + milliseconds(4001);
  SideReport r = DiffEdges(a, b, {false, false});
  EXPECT_LT(r.window_seconds, 0);
  EXPECT_FALSE(CheckResponderWindow(4.0, r.window_seconds).ok());
}

TEST(CheckResponderWindowTest, FailsWithItsOwnCodeBelowHalfTheProbersWindow) {
  EXPECT_TRUE(CheckResponderWindow(4.0, 4.0).ok());
  EXPECT_TRUE(CheckResponderWindow(4.0, 4.5).ok());
  // A start edge 1.9 s late still leaves an exact count over 2.1 s.
  EXPECT_TRUE(CheckResponderWindow(4.0, 2.1).ok());
  Status missed = CheckResponderWindow(4.0, 1.9);
  ASSERT_FALSE(missed.ok());
  EXPECT_EQ(missed.error().code, ErrorCode::kWindowMissed);
  EXPECT_NE(missed.error().message.find("1.900 s of our 4.000 s"), std::string::npos)
      << missed.error().message;
  // A negative window (no data after the start edge) reads as none.
  Status none = CheckResponderWindow(4.0, -0.5);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("over 0.000 s"), std::string::npos) << none.error().message;
}

}  // namespace
}  // namespace fabric::probe
