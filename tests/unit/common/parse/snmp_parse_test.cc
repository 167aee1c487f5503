#include "common/parse/snmp_parse.h"

#include <gtest/gtest.h>

namespace fabric {
namespace {

constexpr char kSnmp[] =
    "Ip: Forwarding DefaultTTL InReceives\n"
    "Ip: 2 64 76\n"
    "Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens InSegs OutSegs RetransSegs InErrs\n"
    "Tcp: 1 200 120000 -1 12 4000 3900 17 2\n";

TEST(SnmpParseTest, MapsNamesToValuesPerPrefix) {
  auto table = ParseSnmpTable(kSnmp, "snmp");
  ASSERT_TRUE(table.ok()) << table.error().message;
  EXPECT_EQ(table->Get("Tcp", "RetransSegs"), 17);
  EXPECT_EQ(table->Get("Tcp", "MaxConn"), -1);
  EXPECT_EQ(table->Get("Ip", "DefaultTTL"), 64);
  EXPECT_EQ(table->Get("Tcp", "NoSuchField"), std::nullopt);
  EXPECT_EQ(table->Get("Udp", "InDatagrams"), std::nullopt);
  EXPECT_TRUE(table->HasPrefix("Ip"));
}

TEST(SnmpParseTest, MergesSnmpAndNetstat) {
  auto snmp = ParseSnmpTable(kSnmp, "snmp");
  auto netstat = ParseSnmpTable("TcpExt: TCPTimeouts TCPLostRetransmit\nTcpExt: 5 3\n", "netstat");
  ASSERT_TRUE(snmp.ok() && netstat.ok());
  SnmpTable merged = *snmp;
  merged.MergeFrom(*netstat);
  EXPECT_EQ(merged.Get("TcpExt", "TCPTimeouts"), 5);
  EXPECT_EQ(merged.Get("Tcp", "InSegs"), 4000);
}

TEST(SnmpParseTest, ToleratesBlankLinesAndMissingTrailingNewline) {
  auto table = ParseSnmpTable("\nTcp: InSegs\nTcp: 9", "snmp");
  ASSERT_TRUE(table.ok());
  EXPECT_EQ(table->Get("Tcp", "InSegs"), 9);
}

struct Broken {
  const char* text;
  const char* message_part;
};

class SnmpBrokenTest : public ::testing::TestWithParam<Broken> {};

TEST_P(SnmpBrokenTest, FailsWithLineAndReason) {
  auto table = ParseSnmpTable(GetParam().text, "netstat");
  ASSERT_FALSE(table.ok());
  EXPECT_NE(table.error().message.find(GetParam().message_part), std::string::npos)
      << table.error().message;
}

INSTANTIATE_TEST_SUITE_P(
    BrokenInputs, SnmpBrokenTest,
    ::testing::Values(Broken{"Tcp: InSegs OutSegs\nTcp: 1\n", "netstat:2: 2 field names but 1"},
                      Broken{"Tcp: InSegs\n", "netstat:1: header \"Tcp:\" has no value line"},
                      Broken{"Tcp: InSegs\nUdp: 4\n", "netstat:2: expected the value line"},
                      Broken{"Tcp: InSegs\nTcp: 4x\n", "Tcp InSegs is not an integer: \"4x\""},
                      Broken{"garbage without colon\n", "netstat:1: expected a \"Prefix:\""},
                      Broken{"\xff\xfe\x00\x01", "netstat:1:"}),
    [](const ::testing::TestParamInfo<Broken>& info) {
      return "case" + std::to_string(info.index);
    });

}  // namespace
}  // namespace fabric
