#include "common/parse/ethtool_features_parse.h"

#include <gtest/gtest.h>
#include <linux/ethtool_netlink.h>

#include "tests/unit/common/parse/netlink_reply.h"

namespace fabric {
namespace {

using testing::GenlAttributes;
using testing::NlAttrs;
using testing::RecordedReply;

// The kernel's reply for a veth (6.18) after `ethtool -K vcap0 gro on tso
// off`: ethtool -k then printed generic-receive-offload on,
// tcp-segmentation-offload off, generic-segmentation-offload on,
// large-receive-offload off [fixed].
TEST(EthtoolFeaturesParseTest, RecordedVethReply) {
  const std::string msg = RecordedReply("veth/features.hex");
  ASSERT_GT(msg.size(), 1000u);
  std::string_view attributes = GenlAttributes(msg);
  ASSERT_FALSE(attributes.empty());
  EthtoolFeatures f = ParseEthtoolFeaturesAttributes(attributes);
  EXPECT_EQ(f.gro, true);
  EXPECT_EQ(f.tso, false);
  EXPECT_EQ(f.gso, true);
  EXPECT_EQ(f.lro, false);
}

NlAttrs Bit(uint32_t index, const std::string& name, bool value) {
  NlAttrs bit;
  bit.PutU32(ETHTOOL_A_BITSET_BIT_INDEX, index).PutString(ETHTOOL_A_BITSET_BIT_NAME, name);
  if (value) bit.PutFlag(ETHTOOL_A_BITSET_BIT_VALUE);
  return bit;
}

TEST(EthtoolFeaturesParseTest, MaskFormLeavesUnlistedFeaturesUnknown) {
  NlAttrs bits;
  bits.Nest(ETHTOOL_A_BITSET_BITS_BIT, Bit(14, "rx-gro", false))
      .Nest(ETHTOOL_A_BITSET_BITS_BIT, Bit(16, "tx-tcp-segmentation", true));
  NlAttrs bitset;
  bitset.PutU32(ETHTOOL_A_BITSET_SIZE, 64).Nest(ETHTOOL_A_BITSET_BITS, bits);
  NlAttrs a;
  a.Nest(ETHTOOL_A_FEATURES_ACTIVE, bitset);
  EthtoolFeatures f = ParseEthtoolFeaturesAttributes(a.bytes());
  EXPECT_EQ(f.gro, false);
  EXPECT_EQ(f.tso, true);
  EXPECT_FALSE(f.gso.has_value());
  EXPECT_FALSE(f.lro.has_value());
}

TEST(EthtoolFeaturesParseTest, OnlyTheActiveSetCounts) {
  // WANTED lists LRO on (asked for), ACTIVE without it: LRO is off.
  NlAttrs wanted_bits;
  wanted_bits.Nest(ETHTOOL_A_BITSET_BITS_BIT, Bit(15, "rx-lro", true));
  NlAttrs wanted;
  wanted.PutFlag(ETHTOOL_A_BITSET_NOMASK).Nest(ETHTOOL_A_BITSET_BITS, wanted_bits);
  NlAttrs active;
  active.PutFlag(ETHTOOL_A_BITSET_NOMASK).PutU32(ETHTOOL_A_BITSET_SIZE, 64);
  NlAttrs a;
  a.Nest(ETHTOOL_A_FEATURES_WANTED, wanted).Nest(ETHTOOL_A_FEATURES_ACTIVE, active);
  EthtoolFeatures f = ParseEthtoolFeaturesAttributes(a.bytes());
  EXPECT_EQ(f.lro, false);
  EXPECT_EQ(f.gro, false);
  // No ACTIVE set at all: nothing known.
  NlAttrs none;
  none.Nest(ETHTOOL_A_FEATURES_WANTED, wanted);
  EthtoolFeatures unknown = ParseEthtoolFeaturesAttributes(none.bytes());
  EXPECT_FALSE(unknown.lro || unknown.gro || unknown.tso || unknown.gso);
}

}  // namespace
}  // namespace fabric
