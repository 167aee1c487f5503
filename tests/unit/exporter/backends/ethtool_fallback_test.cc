// NetlinkThenIoctl: the kernel ethtool backend's choice between ethtool netlink
// and the ioctl, with stub answers for both sides, so each case runs here
// whatever kernel and drivers this machine has.
#include "exporter/backends/ethtool_fallback.h"

#include <gtest/gtest.h>

#include <string>

#include "common/parse/ethtool_parse.h"

namespace fabric {
namespace {

EthtoolPause PauseOf(bool autoneg, bool rx, bool tx) {
  EthtoolPause p;
  p.autoneg = autoneg;
  p.rx = rx;
  p.tx = tx;
  return p;
}

// An ioctl stub that counts its calls and returns `answer`.
struct IoctlStub {
  Result<EthtoolPause> answer;
  int calls = 0;
  auto Fn() {
    return [this] {
      ++calls;
      return answer;
    };
  }
};

TEST(EthtoolFallbackTest, NetlinkAnswerWinsAndTheIoctlIsNotAsked) {
  EthtoolPause from_netlink = PauseOf(false, true, false);
  from_netlink.rx_frames = 7;
  IoctlStub ioctl{PauseOf(true, false, true)};
  auto got = NetlinkThenIoctl(Result<EthtoolPause>(from_netlink), ioctl.Fn());
  ASSERT_TRUE(got.ok()) << got.error().message;
  EXPECT_EQ(got->autoneg, false);
  EXPECT_EQ(got->rx, true);
  EXPECT_EQ(got->tx, false);
  EXPECT_EQ(got->rx_frames, 7u);
  EXPECT_EQ(ioctl.calls, 0);
}

// An empty reply is netlink's answer too: the ioctl would read zeros for what
// the driver does not report.
TEST(EthtoolFallbackTest, EmptyNetlinkAnswerIsKeptWithoutTheIoctl) {
  IoctlStub ioctl{PauseOf(true, true, true)};
  auto got = NetlinkThenIoctl(Result<EthtoolPause>(EthtoolPause{}), ioctl.Fn());
  ASSERT_TRUE(got.ok()) << got.error().message;
  EXPECT_FALSE(got->autoneg.has_value());
  EXPECT_EQ(ioctl.calls, 0);
}

// The kernel has the family but refuses the request or its stats flag
// (EOPNOTSUPP): the ioctl's settings are returned, without statistics.
TEST(EthtoolFallbackTest, NetlinkAbsentTakesTheIoctlAnswer) {
  IoctlStub ioctl{PauseOf(true, false, true)};
  auto got = NetlinkThenIoctl(
      Result<EthtoolPause>(MakeAbsent("eth0: ETHTOOL_MSG_PAUSE_GET: Operation not supported")),
      ioctl.Fn());
  ASSERT_TRUE(got.ok()) << got.error().message;
  EXPECT_EQ(got->autoneg, true);
  EXPECT_EQ(got->rx, false);
  EXPECT_EQ(got->tx, true);
  EXPECT_FALSE(got->rx_frames.has_value());
  EXPECT_EQ(ioctl.calls, 1);
}

TEST(EthtoolFallbackTest, BothAbsentIsAbsentNamingBoth) {
  IoctlStub ioctl{MakeAbsent("eth0: ETHTOOL_GPAUSEPARAM: Operation not supported")};
  auto got = NetlinkThenIoctl(
      Result<EthtoolPause>(MakeAbsent("eth0: ETHTOOL_MSG_PAUSE_GET: Operation not supported")),
      ioctl.Fn());
  ASSERT_FALSE(got.ok());
  EXPECT_TRUE(got.absent());
  EXPECT_NE(got.error().message.find("ETHTOOL_GPAUSEPARAM"), std::string::npos);
  EXPECT_NE(got.error().message.find("ETHTOOL_MSG_PAUSE_GET"), std::string::npos);
  EXPECT_EQ(ioctl.calls, 1);
}

// No usable netlink (no family, a socket failure): the ioctl answers.
TEST(EthtoolFallbackTest, NetlinkUnusableTakesTheIoctlAnswer) {
  IoctlStub ioctl{PauseOf(false, false, true)};
  auto got = NetlinkThenIoctl(Result<EthtoolPause>(MakeError("no ethtool generic netlink family")),
                              ioctl.Fn());
  ASSERT_TRUE(got.ok()) << got.error().message;
  EXPECT_EQ(got->autoneg, false);
  EXPECT_EQ(got->tx, true);
  EXPECT_EQ(ioctl.calls, 1);
}

TEST(EthtoolFallbackTest, NetlinkUnusableAndIoctlAbsentIsAbsent) {
  IoctlStub ioctl{MakeAbsent("lo: ETHTOOL_GPAUSEPARAM: Operation not supported")};
  auto got = NetlinkThenIoctl(Result<EthtoolPause>(MakeError("no ethtool generic netlink family")),
                              ioctl.Fn());
  EXPECT_TRUE(got.absent());
  EXPECT_NE(got.error().message.find("no ethtool generic netlink family"), std::string::npos);
}

// A real ioctl failure stays one, with the ioctl's code rather than netlink's
// absent.
TEST(EthtoolFallbackTest, IoctlErrorKeepsItsCode) {
  IoctlStub ioctl{MakeError("eth0: ETHTOOL_GPAUSEPARAM: Input/output error")};
  auto got = NetlinkThenIoctl(
      Result<EthtoolPause>(MakeAbsent("eth0: ETHTOOL_MSG_PAUSE_GET: Invalid argument")),
      ioctl.Fn());
  ASSERT_FALSE(got.ok());
  EXPECT_FALSE(got.absent());
  EXPECT_EQ(got.error().code, ErrorCode::kOther);
  EXPECT_NE(got.error().message.find("Input/output error"), std::string::npos);
  EXPECT_NE(got.error().message.find("Invalid argument"), std::string::npos);
}

}  // namespace
}  // namespace fabric
