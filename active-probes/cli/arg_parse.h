// Value parsers for fabric_probe flags: durations ("5s", "250ms", "1.5s"),
// byte sizes ("256K", "4M", "1G", powers of 1024) and counts.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "active-probes/control/conn.h"
#include "common/flags.h"
#include "common/result.h"

namespace fabric::probe {

// The responder to talk to and the shared secret, from the --peer and
// --secret-file flags every requesting command takes; errors name the flag.
struct PeerFlags {
  HostPort peer;
  std::string secret;
};
Result<PeerFlags> ParsePeerFlags(const FlagSet& flags);

Result<std::chrono::milliseconds> ParseDurationFlag(std::string_view flag, std::string_view v);
Result<uint64_t> ParseBytesFlag(std::string_view flag, std::string_view v);
Result<uint64_t> ParseCountFlag(std::string_view flag, std::string_view v, uint64_t min,
                                uint64_t max);
// "1,2,4,8" -> {1,2,4,8}
Result<std::vector<uint32_t>> ParseCountList(std::string_view flag, std::string_view v,
                                             uint64_t max);

}  // namespace fabric::probe
