// Small string helpers shared by the parsers: splitting, trimming and strict
// number conversion (a number followed by garbage is an error, not a prefix).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fabric {

std::string_view TrimSpace(std::string_view s);

// Splits on runs of ASCII whitespace; never yields empty fields.
std::vector<std::string_view> SplitFields(std::string_view s);

// Splits into lines on '\n'; a trailing newline does not add an empty line.
std::vector<std::string_view> SplitLines(std::string_view s);

std::optional<uint64_t> ParseUint64(std::string_view s, int base = 10);
std::optional<int64_t> ParseInt64(std::string_view s);
std::optional<double> ParseDouble(std::string_view s);

bool StartsWith(std::string_view s, std::string_view prefix);

// Quotes a string for a log or error message, escaping control characters so
// garbage input cannot corrupt a log line.
std::string Quote(std::string_view s, size_t max_len = 80);

}  // namespace fabric
