#include "common/parse/ethtool_coalesce_parse.h"

#include <gtest/gtest.h>
#include <linux/ethtool_netlink.h>

#include "tests/unit/common/parse/netlink_reply.h"

namespace fabric {
namespace {

using testing::GenlAttributes;
using testing::NlAttrs;
using testing::RecordedReply;

// The kernel's reply for a tap device (6.18) after `ethtool -C tcap0
// rx-frames 16`: tun supports rx-frames only, so the kernel sends that one
// setting and `ethtool -c` prints n/a for the rest.
TEST(EthtoolCoalesceParseTest, RecordedTapReply) {
  const std::string msg = RecordedReply("tap/coalesce.hex");
  EthtoolCoalesce c = ParseEthtoolCoalesceAttributes(GenlAttributes(msg));
  EXPECT_EQ(c.rx_frames, 16u);
  EXPECT_FALSE(c.rx_usecs.has_value());
  EXPECT_FALSE(c.tx_usecs.has_value());
  EXPECT_FALSE(c.tx_frames.has_value());
  EXPECT_FALSE(c.adaptive_rx.has_value());
  EXPECT_TRUE(c.any());
}

// mlx5 with DIM: usecs/frames per direction and the adaptive flags as u8.
TEST(EthtoolCoalesceParseTest, Mlx5ReplyAndShortValues) {
  NlAttrs a;
  a.PutU32(ETHTOOL_A_COALESCE_RX_USECS, 8)
      .PutU32(ETHTOOL_A_COALESCE_RX_MAX_FRAMES, 128)
      .PutU32(ETHTOOL_A_COALESCE_TX_USECS, 16)
      .PutU32(ETHTOOL_A_COALESCE_TX_MAX_FRAMES, 32)
      .PutU8(ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX, 1)
      .PutU8(ETHTOOL_A_COALESCE_USE_ADAPTIVE_TX, 0);
  EthtoolCoalesce c = ParseEthtoolCoalesceAttributes(a.bytes());
  EXPECT_EQ(c.rx_usecs, 8u);
  EXPECT_EQ(c.rx_frames, 128u);
  EXPECT_EQ(c.tx_usecs, 16u);
  EXPECT_EQ(c.tx_frames, 32u);
  EXPECT_EQ(c.adaptive_rx, true);
  EXPECT_EQ(c.adaptive_tx, false);
  NlAttrs bad;
  bad.Put(ETHTOOL_A_COALESCE_RX_USECS, std::string("\x08", 1));
  EXPECT_FALSE(ParseEthtoolCoalesceAttributes(bad.bytes()).any());
}

}  // namespace
}  // namespace fabric
