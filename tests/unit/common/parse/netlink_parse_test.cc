// The netlink parsers on byte buffers built here the way the kernel lays them
// out, including a tcp_info shorter than this header's (an older kernel).
#include "common/parse/netlink_parse.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/tcp.h>
#include <netinet/in.h>

#include <cstddef>
#include <cstring>
#include <random>
#include <string>

namespace fabric {
namespace {

void Append(std::string& out, const void* data, size_t len) {
  out.append(static_cast<const char*>(data), len);
  out.append(NLMSG_ALIGN(len) - len, '\0');
}

std::string Attribute(uint16_t type, const void* data, size_t len) {
  rtattr attr{static_cast<unsigned short>(RTA_LENGTH(len)), type};
  std::string out;
  out.append(reinterpret_cast<const char*>(&attr), sizeof(attr));
  Append(out, data, len);
  return out;
}

std::string Message(uint16_t type, const std::string& payload) {
  nlmsghdr header{};
  header.nlmsg_len = static_cast<uint32_t>(NLMSG_HDRLEN + payload.size());
  header.nlmsg_type = type;
  std::string out(reinterpret_cast<const char*>(&header), sizeof(header));
  out += payload;
  return out;
}

std::string Done() { return Message(NLMSG_DONE, std::string(4, '\0')); }

std::string DiagMessage(size_t info_len, uint64_t cookie) {
  inet_diag_msg msg{};
  msg.idiag_family = AF_INET;
  msg.idiag_state = 1;
  msg.id.idiag_sport = htons(40001);
  msg.id.idiag_dport = htons(22);
  inet_pton(AF_INET, "198.18.9.1", msg.id.idiag_src);
  inet_pton(AF_INET, "198.18.9.2", msg.id.idiag_dst);
  msg.id.idiag_cookie[0] = static_cast<uint32_t>(cookie);
  msg.id.idiag_cookie[1] = static_cast<uint32_t>(cookie >> 32);
  std::string payload;
  Append(payload, &msg, sizeof(msg));
  tcp_info info{};
  info.tcpi_rtt = 400;
  info.tcpi_snd_cwnd = 10;
  info.tcpi_snd_mss = 8948;
  info.tcpi_bytes_acked = 123456789;
  info.tcpi_bytes_received = 42;
  info.tcpi_busy_time = 1000;
  info.tcpi_rwnd_limited = 500;
  info.tcpi_sndbuf_limited = 100;
  info.tcpi_snd_wnd = 65536;
  payload += Attribute(INET_DIAG_INFO, &info, info_len);
  uint32_t mem[SK_MEMINFO_VARS] = {};
  mem[SK_MEMINFO_RCVBUF] = 131072;
  mem[SK_MEMINFO_SNDBUF] = 212992;
  payload += Attribute(INET_DIAG_SKMEMINFO, mem, sizeof(mem));
  return Message(SOCK_DIAG_BY_FAMILY, payload);
}

TEST(NetlinkParseTest, InetDiagFullTcpInfo) {
  std::vector<SocketRecord> out;
  bool done = false;
  std::string buffer = DiagMessage(sizeof(tcp_info), 0x1122334455667788ull) + Done();
  ASSERT_TRUE(ParseInetDiagBuffer(buffer, out, done).ok());
  EXPECT_TRUE(done);
  ASSERT_EQ(out.size(), 1u);
  const auto& s = out[0];
  EXPECT_EQ(s.cookie, 0x1122334455667788ull);
  EXPECT_EQ(s.local.ToString(), "198.18.9.1");
  EXPECT_EQ(s.remote.ToString(), "198.18.9.2");
  EXPECT_EQ(s.local_port, 40001);
  EXPECT_EQ(s.remote_port, 22);
  ASSERT_TRUE(s.info.has_value());
  EXPECT_EQ(s.info->rtt_us, 400u);
  EXPECT_EQ(s.info->bytes_acked, 123456789u);
  EXPECT_EQ(s.info->busy_us, 1000u);
  EXPECT_EQ(s.info->rwnd_limited_us, 500u);
  EXPECT_EQ(s.info->sndbuf_limited_us, 100u);
  EXPECT_EQ(s.info->snd_wnd, 65536u);
  EXPECT_EQ(s.rcvbuf, 131072u);
  EXPECT_EQ(s.sndbuf, 212992u);
}

TEST(NetlinkParseTest, ShortTcpInfoLeavesNewerFieldsAbsent) {
  // A 4.9-era tcp_info: it ends after tcpi_delivery_rate, before the chronographs.
  const size_t len = offsetof(tcp_info, tcpi_busy_time);
  std::vector<SocketRecord> out;
  bool done = false;
  ASSERT_TRUE(ParseInetDiagBuffer(DiagMessage(len, 1), out, done).ok());
  EXPECT_FALSE(done);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].info->bytes_acked, 123456789u);
  EXPECT_FALSE(out[0].info->busy_us.has_value());
  EXPECT_FALSE(out[0].info->rwnd_limited_us.has_value());
  EXPECT_FALSE(out[0].info->snd_wnd.has_value());
  // A 3.x tcp_info: no byte counters at all.
  out.clear();
  ASSERT_TRUE(
      ParseInetDiagBuffer(DiagMessage(offsetof(tcp_info, tcpi_pacing_rate), 1), out, done).ok());
  EXPECT_FALSE(out[0].info->bytes_acked.has_value());
}

TEST(NetlinkParseTest, SeveralMessagesInOneBuffer) {
  std::vector<SocketRecord> out;
  bool done = false;
  std::string buffer = DiagMessage(sizeof(tcp_info), 1) + DiagMessage(sizeof(tcp_info), 2);
  ASSERT_TRUE(ParseInetDiagBuffer(buffer, out, done).ok());
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].cookie, 2u);
}

TEST(NetlinkParseTest, TruncatedAndErrorMessagesFail) {
  std::vector<SocketRecord> out;
  bool done = false;
  std::string whole = DiagMessage(sizeof(tcp_info), 1);
  auto truncated = ParseInetDiagBuffer(whole.substr(0, whole.size() - 8), out, done);
  ASSERT_FALSE(truncated.ok());
  EXPECT_NE(truncated.error().message.find("truncated"), std::string::npos);

  nlmsgerr err{};
  err.error = -EPERM;
  std::string payload(reinterpret_cast<const char*>(&err), sizeof(err));
  auto failed = ParseInetDiagBuffer(Message(NLMSG_ERROR, payload), out, done);
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.error().message.find("not permitted"), std::string::npos)
      << failed.error().message;
}

TEST(NetlinkParseTest, AddressesAndLinks) {
  ifaddrmsg msg{};
  msg.ifa_family = AF_INET;
  msg.ifa_index = 7;
  uint8_t local[4], peer[4];
  inet_pton(AF_INET, "198.18.9.1", local);
  inet_pton(AF_INET, "198.18.9.2", peer);
  std::string payload;
  Append(payload, &msg, sizeof(msg));
  payload += Attribute(IFA_ADDRESS, peer, 4);  // Point-to-point: the peer.
  payload += Attribute(IFA_LOCAL, local, 4);
  std::vector<InterfaceAddress> addresses;
  bool done = false;
  ASSERT_TRUE(ParseIfAddrBuffer(Message(RTM_NEWADDR, payload) + Done(), addresses, done).ok());
  EXPECT_TRUE(done);
  ASSERT_EQ(addresses.size(), 1u);
  EXPECT_EQ(addresses[0].ifindex, 7u);
  EXPECT_EQ(addresses[0].address.ToString(), "198.18.9.1");

  ifinfomsg link{};
  link.ifi_index = 7;
  std::string link_payload;
  Append(link_payload, &link, sizeof(link));
  link_payload += Attribute(IFLA_IFNAME, "fl9a0", 6);
  std::map<uint32_t, std::string> names;
  done = false;
  ASSERT_TRUE(ParseLinkBuffer(Message(RTM_NEWLINK, link_payload), names, done).ok());
  EXPECT_EQ(names[7], "fl9a0");
}

// Garbage and every truncation of a valid reply must fail or parse, never
// read out of bounds (the ASan build runs this too).
TEST(NetlinkParseTest, SurvivesGarbageAndTruncation) {
  std::string valid = DiagMessage(sizeof(tcp_info), 1) + DiagMessage(40, 2) + Done();
  for (size_t cut = 0; cut <= valid.size(); ++cut) {
    std::vector<SocketRecord> out;
    bool done = false;
    (void)ParseInetDiagBuffer(std::string_view(valid).substr(0, cut), out, done);
  }
  std::mt19937 rng(9);
  for (int i = 0; i < 2000; ++i) {
    std::string noise = valid;
    for (int flips = 0; flips < 4; ++flips) noise[rng() % noise.size()] = static_cast<char>(rng());
    std::vector<SocketRecord> sockets;
    std::vector<InterfaceAddress> addresses;
    std::map<uint32_t, std::string> names;
    bool done = false;
    (void)ParseInetDiagBuffer(noise, sockets, done);
    (void)ParseIfAddrBuffer(noise, addresses, done);
    (void)ParseLinkBuffer(noise, names, done);
  }
}

// Found by fuzz_netlink: an NLMSG_ERROR of INT_MIN overflowed the negation
// (UB), and a last message without its alignment padding was reported as
// 2^64-ish trailing bytes.
TEST(NetlinkParseTest, ErrorCodeOutOfRangeAndUnpaddedLastMessage) {
  nlmsgerr err{};
  err.error = INT32_MIN;
  std::string payload(reinterpret_cast<const char*>(&err), sizeof(err));
  std::vector<SocketRecord> out;
  bool done = false;
  auto failed = ParseInetDiagBuffer(Message(NLMSG_ERROR, payload), out, done);
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.error().message.find("netlink error code -2147483648"), std::string::npos)
      << failed.error().message;

  ifinfomsg link{};
  link.ifi_index = 3;
  std::string link_payload;
  Append(link_payload, &link, sizeof(link));
  link_payload += Attribute(IFLA_IFNAME, "eth0", 5);
  std::string unpadded = Message(RTM_NEWLINK, link_payload.substr(0, link_payload.size() - 3));
  ASSERT_NE(unpadded.size() % NLMSG_ALIGNTO, 0u);
  std::map<uint32_t, std::string> names;
  auto parsed = ParseLinkBuffer(unpadded, names, done);
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_EQ(names[3], "eth0");
}

}  // namespace
}  // namespace fabric
