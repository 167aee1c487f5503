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

#include <algorithm>
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
  msg.idiag_inode = 987654;
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
  mem[SK_MEMINFO_RMEM_ALLOC] = 70000;
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
  EXPECT_EQ(s.inode, 987654u);
  ASSERT_TRUE(s.info.has_value());
  EXPECT_EQ(s.info->rtt_us, 400u);
  EXPECT_EQ(s.info->bytes_acked, 123456789u);
  EXPECT_EQ(s.info->busy_us, 1000u);
  EXPECT_EQ(s.info->rwnd_limited_us, 500u);
  EXPECT_EQ(s.info->sndbuf_limited_us, 100u);
  EXPECT_EQ(s.info->snd_wnd, 65536u);
  EXPECT_EQ(s.rcvbuf, 131072u);
  EXPECT_EQ(s.sndbuf, 212992u);
  EXPECT_EQ(s.rmem_alloc, 70000u);
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

// Every cut of a valid three-message reply (two sockets, NLMSG_DONE): a cut
// on a message boundary parses the messages before it and is not done; any
// other cut is an error (a header whose length runs past the buffer, or bytes
// too short for a header); only the whole reply is done. The ASan build runs
// this too, so no cut may read out of bounds.
TEST(NetlinkParseTest, EveryTruncationParsesWholeMessagesOrFails) {
  const std::string first = DiagMessage(sizeof(tcp_info), 1);
  const std::string second = DiagMessage(40, 2);  // tcp_info cut after tcpi_lost
  const std::string valid = first + second + Done();
  const size_t boundaries[] = {0, first.size(), first.size() + second.size(), valid.size()};
  for (size_t cut = 0; cut <= valid.size(); ++cut) {
    std::vector<SocketRecord> out;
    bool done = false;
    auto status = ParseInetDiagBuffer(std::string_view(valid).substr(0, cut), out, done);
    const size_t whole = (cut >= first.size()) + (cut >= first.size() + second.size());
    const bool on_boundary =
        std::find(std::begin(boundaries), std::end(boundaries), cut) != std::end(boundaries);
    EXPECT_EQ(status.ok(), on_boundary) << "cut at " << cut;
    EXPECT_EQ(done, cut == valid.size()) << "cut at " << cut;
    // What was appended before an error is the whole messages, parsed right.
    ASSERT_LE(out.size(), whole) << "cut at " << cut;
    if (status.ok()) {
      ASSERT_EQ(out.size(), whole) << "cut at " << cut;
    }
    for (size_t i = 0; i < out.size(); ++i) {
      EXPECT_EQ(out[i].cookie, i + 1);
      EXPECT_EQ(out[i].remote_port, 22);
      ASSERT_TRUE(out[i].info.has_value());
      EXPECT_EQ(out[i].info->snd_mss, 8948u);
      EXPECT_EQ(out[i].info->bytes_acked.has_value(), i == 0);  // 40 bytes hold no counters
    }
  }
}

// Headers and attributes that lie about their length are errors, never reads
// past the buffer; bytes inside payloads cannot break the framing.
TEST(NetlinkParseTest, LyingLengthsFailAndPayloadBytesDoNot) {
  const std::string valid = DiagMessage(sizeof(tcp_info), 1) + Done();
  auto parse = [](const std::string& buffer, std::vector<SocketRecord>& out) {
    bool done = false;
    return ParseInetDiagBuffer(buffer, out, done);
  };
  auto with_length = [&](uint32_t len) {
    std::string b = valid;
    std::memcpy(b.data() + offsetof(nlmsghdr, nlmsg_len), &len, sizeof(len));
    return b;
  };
  for (uint32_t len : {0u, 15u, static_cast<uint32_t>(valid.size()) + 4, 0xffffffffu}) {
    std::vector<SocketRecord> out;
    EXPECT_FALSE(parse(with_length(len), out).ok()) << "nlmsg_len " << len;
    EXPECT_TRUE(out.empty()) << "nlmsg_len " << len;
  }
  // The INET_DIAG_INFO attribute's rta_len, right after the aligned
  // inet_diag_msg: past the message, and below the attribute header.
  const size_t rta = NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(inet_diag_msg));
  for (uint16_t len : {uint16_t{2}, uint16_t{0xfff0}}) {
    std::string b = valid;
    std::memcpy(b.data() + rta + offsetof(rtattr, rta_len), &len, sizeof(len));
    std::vector<SocketRecord> out;
    EXPECT_FALSE(parse(b, out).ok()) << "rta_len " << len;
    EXPECT_TRUE(out.empty()) << "rta_len " << len;
  }
  // Random bytes written over the tcp_info payload (not its header) change
  // values, never the framing: one socket, its identity intact, done.
  std::mt19937 rng(9);
  const size_t info_begin = rta + RTA_LENGTH(0);
  for (int i = 0; i < 500; ++i) {
    std::string noise = valid;
    for (int flips = 0; flips < 8; ++flips) {
      noise[info_begin + rng() % sizeof(tcp_info)] = static_cast<char>(rng());
    }
    std::vector<SocketRecord> out;
    bool done = false;
    ASSERT_TRUE(ParseInetDiagBuffer(noise, out, done).ok());
    EXPECT_TRUE(done);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].cookie, 1u);
    EXPECT_EQ(out[0].local.ToString(), "198.18.9.1");
  }
}

// Any corruption of a reply: whatever the parsers return, what they append
// fits in the buffer (a record per message of at least its fixed header) and
// an error says something. The ASan build checks the reads.
TEST(NetlinkParseTest, CorruptRepliesStayInBounds) {
  const std::string valid = DiagMessage(sizeof(tcp_info), 1) + DiagMessage(40, 2) + Done();
  std::mt19937 rng(9);
  for (int i = 0; i < 2000; ++i) {
    std::string noise = valid;
    for (int flips = 0; flips < 4; ++flips) noise[rng() % noise.size()] = static_cast<char>(rng());
    std::vector<SocketRecord> sockets;
    std::vector<InterfaceAddress> addresses;
    std::map<uint32_t, std::string> names;
    bool done = false;
    auto check = [&](const Status& status, size_t appended, size_t fixed_header) {
      EXPECT_LE(appended, noise.size() / (NLMSG_HDRLEN + fixed_header)) << "iteration " << i;
      if (!status.ok()) {
        EXPECT_FALSE(status.error().message.empty());
      }
    };
    check(ParseInetDiagBuffer(noise, sockets, done), sockets.size(), sizeof(inet_diag_msg));
    check(ParseIfAddrBuffer(noise, addresses, done), addresses.size(), sizeof(ifaddrmsg));
    check(ParseLinkBuffer(noise, names, done), names.size(), sizeof(ifinfomsg));
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
