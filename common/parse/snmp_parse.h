// Parser for the paired header/value tables of /proc/net/snmp and
// /proc/net/netstat:
//   Tcp: RtoAlgorithm RtoMin ... InSegs OutSegs RetransSegs InErrs ...
//   Tcp: 1 200 ... 123 456 7 0 ...
// Each protocol prefix ("Tcp", "TcpExt", "IpExt", ...) maps field names to
// values. Values are signed (Tcp MaxConn is -1).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"

namespace fabric {

class SnmpTable {
 public:
  // The value of `prefix`'s `field`, or nullopt when this kernel lacks it.
  std::optional<int64_t> Get(std::string_view prefix, std::string_view field) const;
  bool HasPrefix(std::string_view prefix) const;

  // Merges another table in (snmp and netstat together); later wins.
  void MergeFrom(const SnmpTable& other);

 private:
  friend Result<SnmpTable> ParseSnmpTable(std::string_view, std::string_view);
  std::map<std::string, std::map<std::string, int64_t, std::less<>>, std::less<>> values_;
};

Result<SnmpTable> ParseSnmpTable(std::string_view text, std::string_view source);

}  // namespace fabric
