// Netlink reply buffers for the ethtool parsers' tests, in the kernel's uapi
// layout (struct nlmsghdr, struct genlmsghdr, then struct nlattr TLVs, nests
// flagged NLA_F_NESTED, every attribute padded to 4 bytes): built here for
// the replies the kernel on the test host cannot give for a veth or tap
// (rings, pause, FEC need a real NIC driver), read from recorded hex for
// those it can (tests/fixtures/ethtool-netlink, captured by capture.py).
#pragma once

#include <linux/genetlink.h>
#include <linux/netlink.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

namespace fabric::testing {

class NlAttrs {
 public:
  NlAttrs& Put(uint16_t type, std::string_view payload) {
    nlattr a{};
    a.nla_len = static_cast<uint16_t>(NLA_HDRLEN + payload.size());
    a.nla_type = type;
    buf_.append(reinterpret_cast<const char*>(&a), sizeof a);
    buf_.append(payload);
    buf_.append(NLA_ALIGN(a.nla_len) - a.nla_len, '\0');
    return *this;
  }
  template <typename T>
  NlAttrs& PutValue(uint16_t type, T value) {
    return Put(type, std::string_view(reinterpret_cast<const char*>(&value), sizeof value));
  }
  NlAttrs& PutU8(uint16_t type, uint8_t v) { return PutValue(type, v); }
  NlAttrs& PutU32(uint16_t type, uint32_t v) { return PutValue(type, v); }
  NlAttrs& PutU64(uint16_t type, uint64_t v) { return PutValue(type, v); }
  NlAttrs& PutFlag(uint16_t type) { return Put(type, {}); }
  NlAttrs& PutString(uint16_t type, const std::string& s) {
    return Put(type, std::string_view(s.c_str(), s.size() + 1));
  }
  NlAttrs& Nest(uint16_t type, const NlAttrs& inner) {
    return Put(static_cast<uint16_t>(type | NLA_F_NESTED), inner.bytes());
  }
  const std::string& bytes() const { return buf_; }

 private:
  std::string buf_;
};

// A whole generic netlink message around `attributes`.
inline std::string GenlMessage(uint16_t family, uint8_t cmd, const NlAttrs& attributes) {
  nlmsghdr h{};
  h.nlmsg_len = static_cast<uint32_t>(NLMSG_HDRLEN + GENL_HDRLEN + attributes.bytes().size());
  h.nlmsg_type = family;
  genlmsghdr g{};
  g.cmd = cmd;
  g.version = 1;
  std::string out(reinterpret_cast<const char*>(&h), sizeof h);
  out.append(reinterpret_cast<const char*>(&g), sizeof g);
  out.append(attributes.bytes());
  return out;
}

// The attributes of one generic netlink message (what ethtool_netlink.cc
// hands the parsers); empty when the lengths do not hold.
inline std::string_view GenlAttributes(std::string_view message) {
  if (message.size() < NLMSG_HDRLEN + GENL_HDRLEN) return {};
  nlmsghdr h;
  std::memcpy(&h, message.data(), sizeof h);
  if (h.nlmsg_len > message.size() || h.nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN) return {};
  return message.substr(NLMSG_HDRLEN + GENL_HDRLEN, h.nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN);
}

// A recorded reply: hex bytes, whitespace-separated, '#' lines are comments.
inline std::string ReadHexReply(const std::string& path) {
  std::ifstream in(path);
  std::string line, out;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    std::string byte;
    while (words >> byte) out.push_back(static_cast<char>(std::stoul(byte, nullptr, 16)));
  }
  return out;
}

inline std::string RecordedReply(const std::string& name) {
  return ReadHexReply(std::string(FABRIC_SOURCE_DIR) + "/tests/fixtures/ethtool-netlink/" + name);
}

}  // namespace fabric::testing
