#include "common/parse/softnet_parse.h"

#include <gtest/gtest.h>

#include <cctype>
#include <string>

namespace fabric {
namespace {

struct Generation {
  const char* name;
  const char* text;
  size_t cpus;
  bool has_rps, has_flow_limit, has_backlog, has_queue_split;
  uint32_t second_cpu_id;
  uint64_t second_squeeze;
};

// One line per kernel generation, modelled on real captures of each.
const Generation kGenerations[] = {
    {"9 columns (2.6.32)",
     "6dcad223 00000000 00000001 00000000 00000000 00000000 00000000 00000000 00000000\n"
     "6f0e1565 00000000 00000002 00000000 00000000 00000000 00000000 00000000 00000000\n",
     2, false, false, false, false, 1, 2},
    {"10 columns (2.6.36)",
     "6dcad223 00000000 00000001 00000000 00000000 00000000 00000000 00000000 00000000 00000007\n"
     "6f0e1565 00000010 00000002 00000000 00000000 00000000 00000000 00000000 00000000 00000000\n",
     2, true, false, false, false, 1, 2},
    {"11 columns (3.11)",
     "00022be3 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 "
     "00000003\n"
     "000025d5 00000000 000000ff 00000000 00000000 00000000 00000000 00000000 00000000 00000000 "
     "00000000\n",
     2, true, true, false, false, 1, 255},
    {"13 columns (5.10), offline CPU 1 skipped",
     "00067f83 00000000 00000383 00000000 00000000 00000000 00000000 00000000 00000000 00000000 "
     "00000000 00000000 00000000\n"
     "00006c62 00000000 000000c1 00000000 00000000 00000000 00000000 00000000 00000000 00000000 "
     "00000000 00000005 00000002\n",
     2, true, true, true, false, 2, 0xc1},
    {"15 columns (6.x)",
     "0078b644 00000000 0000003d 00000000 00000000 00000000 00000000 00000000 00000000 00000000 "
     "00000000 00000000 00000000 00000000 00000000\n"
     "006d1ebe 00000000 0000004f 00000000 00000000 00000000 00000000 00000000 00000000 00000000 "
     "00000000 00000003 00000001 00000001 00000002\n",
     2, true, true, true, true, 1, 0x4f},
};

class SoftnetGenerationTest : public ::testing::TestWithParam<Generation> {};

TEST_P(SoftnetGenerationTest, ParsesEveryColumnTheKernelHas) {
  const Generation& g = GetParam();
  auto result = ParseSoftnetStat(g.text, "softnet_stat");
  ASSERT_TRUE(result.ok()) << result.error().message;
  ASSERT_EQ(result->size(), g.cpus);
  const auto& second = (*result)[1];
  EXPECT_EQ(second.cpu, g.second_cpu_id);
  EXPECT_EQ(second.time_squeeze, g.second_squeeze);
  EXPECT_EQ(second.received_rps.has_value(), g.has_rps);
  EXPECT_EQ(second.flow_limit_count.has_value(), g.has_flow_limit);
  EXPECT_EQ(second.backlog_len.has_value(), g.has_backlog);
  EXPECT_EQ(second.input_queue_len.has_value(), g.has_queue_split);
}

// Test names from the case descriptions, so ctest lists readable, stable names.
template <typename T>
std::string CaseName(const ::testing::TestParamInfo<T>& info) {
  std::string name;
  for (const char* c = info.param.name; *c; ++c) name += std::isalnum(*c) ? *c : '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(AllGenerations, SoftnetGenerationTest, ::testing::ValuesIn(kGenerations),
                         CaseName<Generation>);

TEST(SoftnetParseTest, ReadsValuesFromTheRightColumns) {
  auto result = ParseSoftnetStat(
      "0000000a 0000000b 0000000c 00000000 00000000 00000000 00000000 00000000 00000000 "
      "0000000d 0000000e 0000000f 00000007 00000001 00000002\n",
      "x");
  ASSERT_TRUE(result.ok());
  const auto& cpu = result->front();
  EXPECT_EQ(cpu.processed, 10u);
  EXPECT_EQ(cpu.dropped, 11u);
  EXPECT_EQ(cpu.time_squeeze, 12u);
  EXPECT_EQ(cpu.received_rps, 13u);
  EXPECT_EQ(cpu.flow_limit_count, 14u);
  EXPECT_EQ(cpu.backlog_len, 15u);
  EXPECT_EQ(cpu.cpu, 7u);
  EXPECT_EQ(cpu.input_queue_len, 1u);
  EXPECT_EQ(cpu.process_queue_len, 2u);
}

TEST(SoftnetParseTest, EmptyFileIsNoCpus) {
  auto result = ParseSoftnetStat("", "x");
  ASSERT_TRUE(result.ok());
  EXPECT_TRUE(result->empty());
}

struct Broken {
  const char* name;
  const char* text;
  const char* message_part;
};

const Broken kBroken[] = {
    {"too few columns", "00015c73 00020e76 F0000769 00000000\n",
     "softnet_stat:1: expected at least 9"},
    {"not hex",
     "00000001 00000000 0000zz00 00000000 00000000 00000000 00000000 00000000 00000000\n",
     "softnet_stat:1: column 3 is not hex"},
    {"ragged lines",
     "00000001 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000\n"
     "00000001 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000\n",
     "softnet_stat:2: expected 10 columns"},
    {"binary garbage", "\x01\x02garbage\xff\n", "softnet_stat:1:"},
    {"overflowing hex",
     "fffffffffffffffffffff 00000000 00000000 00000000 00000000 00000000 00000000 00000000 0\n",
     "column 1 is not hex"},
};

class SoftnetBrokenTest : public ::testing::TestWithParam<Broken> {};

TEST_P(SoftnetBrokenTest, FailsWithFileLineAndReason) {
  auto result = ParseSoftnetStat(GetParam().text, "softnet_stat");
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error().message.find(GetParam().message_part), std::string::npos)
      << result.error().message;
}

INSTANTIATE_TEST_SUITE_P(BrokenInputs, SoftnetBrokenTest, ::testing::ValuesIn(kBroken),
                         CaseName<Broken>);

}  // namespace
}  // namespace fabric
