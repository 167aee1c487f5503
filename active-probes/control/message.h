// The responder's control protocol: one line per message, "VERB key=value
// key=value\n", ASCII, at most kMaxLineBytes (64 KiB: a result line lists every stream). Text keeps
// the protocol easy to inspect with tcpdump and to extend (the RDMA probe adds verbs and keys);
// parsing is a pure function so every malformed shape is unit-tested.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"

namespace fabric::probe {

inline constexpr size_t kMaxLineBytes = 65536;
inline constexpr int kProtocolVersion = 1;

struct Message {
  std::string verb;
  std::map<std::string, std::string> fields;

  Message& Set(std::string key, std::string value);
  Message& Set(std::string key, uint64_t value);
  // A field or nullopt; Uint fails on a missing or non-numeric value.
  std::optional<std::string> Get(std::string_view key) const;
  Result<uint64_t> Uint(std::string_view key) const;
};

// "VERB k=v ...\n"; keys and values must not contain spaces, '=' (keys) or
// control characters (checked: a violation is a programming error and aborts).
std::string FormatMessage(const Message& m);
// Parses one line without its trailing newline.
Result<Message> ParseMessage(std::string_view line);

}  // namespace fabric::probe
