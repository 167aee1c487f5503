#include "active-probes/cli/arg_parse.h"

#include <cmath>
#include <string>

#include "active-probes/control/auth.h"
#include "active-probes/responder/responder.h"
#include "common/strings.h"

namespace fabric::probe {

Result<std::chrono::milliseconds> ParseDurationFlag(std::string_view flag, std::string_view v) {
  double scale = 1000;  // bare numbers are seconds
  std::string_view num = v;
  if (v.ends_with("ms")) {
    scale = 1;
    num = v.substr(0, v.size() - 2);
  } else if (v.ends_with("s")) {
    num = v.substr(0, v.size() - 1);
  } else if (v.ends_with("m")) {
    scale = 60000;
    num = v.substr(0, v.size() - 1);
  }
  auto d = ParseDouble(num);
  if (!d || *d < 0 || !std::isfinite(*d) || *d * scale > 86400e3) {
    return MakeError("--" + std::string(flag) + ": not a duration: " + Quote(v) +
                     " (e.g. 5s, 250ms)");
  }
  return std::chrono::milliseconds(static_cast<int64_t>(std::llround(*d * scale)));
}

Result<uint64_t> ParseBytesFlag(std::string_view flag, std::string_view v) {
  uint64_t scale = 1;
  std::string_view num = v;
  if (!v.empty()) {
    switch (v.back()) {
      case 'K':
      case 'k':
        scale = 1ull << 10;
        break;
      case 'M':
      case 'm':
        scale = 1ull << 20;
        break;
      case 'G':
      case 'g':
        scale = 1ull << 30;
        break;
      default:
        break;
    }
    if (scale != 1) num = v.substr(0, v.size() - 1);
  }
  auto n = ParseUint64(num);
  if (!n || *n > (1ull << 50) / scale) {
    return MakeError("--" + std::string(flag) + ": not a byte count: " + Quote(v) +
                     " (e.g. 4096, 256K, 4M)");
  }
  return *n * scale;
}

Result<uint64_t> ParseCountFlag(std::string_view flag, std::string_view v, uint64_t min,
                                uint64_t max) {
  auto n = ParseUint64(v);
  if (!n || *n < min || *n > max) {
    return MakeError("--" + std::string(flag) + ": want a whole number from " +
                     std::to_string(min) + " to " + std::to_string(max) + ", got " + Quote(v));
  }
  return *n;
}

Result<std::vector<uint32_t>> ParseCountList(std::string_view flag, std::string_view v,
                                             uint64_t max) {
  std::vector<uint32_t> out;
  size_t start = 0;
  while (start <= v.size()) {
    size_t comma = v.find(',', start);
    auto item = v.substr(start, comma == std::string_view::npos ? v.size() - start : comma - start);
    auto n = ParseCountFlag(flag, TrimSpace(item), 1, max);
    if (!n.ok()) return Unexpected{n.error()};
    out.push_back(static_cast<uint32_t>(*n));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

Result<PeerFlags> ParsePeerFlags(const FlagSet& flags) {
  if (flags.GetString("peer").empty()) return MakeError("--peer is required");
  auto peer = ParseHostPort(flags.GetString("peer"), kDefaultResponderPort);
  if (!peer.ok()) return MakeError("--peer: " + peer.error().message);
  if (flags.GetString("secret-file").empty()) return MakeError("--secret-file is required");
  auto secret = LoadSecretFile(flags.GetString("secret-file"));
  if (!secret.ok()) return Unexpected{secret.error()};
  return PeerFlags{*peer, *secret};
}

}  // namespace fabric::probe
