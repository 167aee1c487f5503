// Walks netlink attributes (struct nlattr, the TLVs of generic netlink
// replies such as ethtool's) without libnl, checking every length against the
// buffer, so the pure parsers can take recorded attribute bytes.
#pragma once

#include <linux/netlink.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>

namespace fabric {

// Calls `visit(type, payload)` for each attribute of `attributes`, the
// nested and byte-order flags masked off the type; stops at the first
// attribute whose length does not fit.
template <typename Visit>
void WalkNlattrs(std::string_view attributes, Visit visit) {
  size_t offset = 0;
  while (offset + NLA_HDRLEN <= attributes.size()) {
    nlattr a;
    std::memcpy(&a, attributes.data() + offset, sizeof a);
    if (a.nla_len < NLA_HDRLEN || offset + a.nla_len > attributes.size()) return;
    visit(static_cast<uint16_t>(a.nla_type & NLA_TYPE_MASK),
          attributes.substr(offset + NLA_HDRLEN, a.nla_len - NLA_HDRLEN));
    offset += NLA_ALIGN(a.nla_len);
  }
}

// A fixed-size attribute payload (u8, u32, u64); nullopt when it is shorter.
template <typename T>
std::optional<T> NlattrValue(std::string_view payload) {
  if (payload.size() < sizeof(T)) return std::nullopt;
  T value;
  std::memcpy(&value, payload.data(), sizeof value);
  return value;
}

}  // namespace fabric
