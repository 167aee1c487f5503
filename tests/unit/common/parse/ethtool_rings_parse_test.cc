#include "common/parse/ethtool_rings_parse.h"

#include <gtest/gtest.h>
#include <linux/ethtool_netlink.h>

#include "tests/unit/common/parse/netlink_reply.h"

namespace fabric {
namespace {

using testing::GenlAttributes;
using testing::GenlMessage;
using testing::NlAttrs;

// What mlx5 answers (ethtool -g: RX 8192 max, 1024 current; no mini or
// jumbo rings, which the kernel sends as 0 and 0; newer kernels add
// rx-buf-len, CQE size and push attributes the parser skips).
TEST(EthtoolRingsParseTest, Mlx5Reply) {
  NlAttrs header;
  header.PutU32(ETHTOOL_A_HEADER_DEV_INDEX, 4).PutString(ETHTOOL_A_HEADER_DEV_NAME, "ens1f0np0");
  NlAttrs a;
  a.Nest(ETHTOOL_A_RINGS_HEADER, header)
      .PutU32(ETHTOOL_A_RINGS_RX_MAX, 8192)
      .PutU32(ETHTOOL_A_RINGS_RX_MINI_MAX, 0)
      .PutU32(ETHTOOL_A_RINGS_RX_JUMBO_MAX, 0)
      .PutU32(ETHTOOL_A_RINGS_TX_MAX, 8192)
      .PutU32(ETHTOOL_A_RINGS_RX, 1024)
      .PutU32(ETHTOOL_A_RINGS_RX_MINI, 0)
      .PutU32(ETHTOOL_A_RINGS_RX_JUMBO, 0)
      .PutU32(ETHTOOL_A_RINGS_TX, 1024)
      .PutU8(ETHTOOL_A_RINGS_TCP_DATA_SPLIT, 0)
      .PutU32(ETHTOOL_A_RINGS_CQE_SIZE, 0);
  const std::string msg = GenlMessage(0x15, ETHTOOL_MSG_RINGS_GET_REPLY, a);
  EthtoolLimits rings = ParseEthtoolRingsAttributes(GenlAttributes(msg));
  ASSERT_EQ(rings.size(), 2u);
  EXPECT_EQ(rings[0].kind, "rx");
  EXPECT_EQ(rings[0].max, 8192u);
  EXPECT_EQ(rings[0].current, 1024u);
  EXPECT_EQ(rings[1].kind, "tx");
  EXPECT_EQ(rings[1].max, 8192u);
  EXPECT_EQ(rings[1].current, 1024u);
}

TEST(EthtoolRingsParseTest, MaxUnknownAndTruncatedAttributes) {
  NlAttrs a;
  a.PutU32(ETHTOOL_A_RINGS_RX, 256).PutU32(ETHTOOL_A_RINGS_TX_MAX, 4096);
  EthtoolLimits rings = ParseEthtoolRingsAttributes(a.bytes());
  ASSERT_EQ(rings.size(), 2u);
  EXPECT_FALSE(rings[0].max.has_value());
  EXPECT_EQ(rings[0].current, 256u);
  EXPECT_EQ(rings[1].max, 4096u);
  EXPECT_FALSE(rings[1].current.has_value());
  // A u32 attribute with two bytes is ignored; a length past the end stops.
  NlAttrs shorter;
  shorter.Put(ETHTOOL_A_RINGS_RX, std::string("\x01\x02", 2));
  EXPECT_TRUE(ParseEthtoolRingsAttributes(shorter.bytes()).empty());
  std::string cut = a.bytes().substr(0, a.bytes().size() - 2);
  EXPECT_EQ(ParseEthtoolRingsAttributes(cut).size(), 1u);
  EXPECT_TRUE(ParseEthtoolRingsAttributes({}).empty());
}

}  // namespace
}  // namespace fabric
