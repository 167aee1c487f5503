#include "active-probes/control/message.h"

#include <cstdlib>

#include "common/strings.h"

namespace fabric::probe {
namespace {

bool IsTokenChar(char c, bool allow_eq) {
  if (c == '=' && !allow_eq) return false;
  return c > ' ' && c < 0x7f;
}

bool IsToken(std::string_view s, bool allow_eq) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!IsTokenChar(c, allow_eq)) return false;
  }
  return true;
}

}  // namespace

Message& Message::Set(std::string key, std::string value) {
  fields[std::move(key)] = std::move(value);
  return *this;
}

Message& Message::Set(std::string key, uint64_t value) {
  return Set(std::move(key), std::to_string(value));
}

std::optional<std::string> Message::Get(std::string_view key) const {
  auto it = fields.find(std::string(key));
  if (it == fields.end()) return std::nullopt;
  return it->second;
}

Result<uint64_t> Message::Uint(std::string_view key) const {
  auto v = Get(key);
  if (!v) return MakeError(verb + ": missing " + std::string(key));
  auto n = ParseUint64(*v);
  if (!n) return MakeError(verb + ": " + std::string(key) + " is not a number: " + Quote(*v));
  return *n;
}

std::string FormatMessage(const Message& m) {
  if (!IsToken(m.verb, false)) std::abort();
  std::string out = m.verb;
  for (const auto& [k, v] : m.fields) {
    if (!IsToken(k, false) || (!v.empty() && !IsToken(v, true))) std::abort();
    out += ' ';
    out += k;
    out += '=';
    out += v;
  }
  out += '\n';
  if (out.size() > kMaxLineBytes) std::abort();
  return out;
}

Result<Message> ParseMessage(std::string_view line) {
  if (line.size() > kMaxLineBytes) return MakeError("control message over 64 KiB");
  for (char c : line) {
    if ((c < ' ' && c != '\t') || c == 0x7f) {
      return MakeError("control message has control characters: " + Quote(line));
    }
  }
  auto words = SplitFields(line);
  if (words.empty()) return MakeError("empty control message");
  Message m;
  if (!IsToken(words[0], false)) return MakeError("bad verb: " + Quote(words[0]));
  m.verb = std::string(words[0]);
  for (size_t i = 1; i < words.size(); ++i) {
    auto eq = words[i].find('=');
    if (eq == std::string_view::npos || eq == 0) {
      return MakeError(m.verb + ": field is not key=value: " + Quote(words[i]));
    }
    std::string key(words[i].substr(0, eq));
    if (m.fields.count(key) != 0) return MakeError(m.verb + ": duplicate field " + Quote(key));
    m.fields[key] = std::string(words[i].substr(eq + 1));
  }
  return m;
}

}  // namespace fabric::probe
