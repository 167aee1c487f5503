// Structured logging to stderr in logfmt or JSON, the two formats Prometheus
// exporters offer (--log.format). Thread-safe; one line per call.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace fabric::log {

enum class Level { kDebug = 0, kInfo = 1, kWarn = 2, kError = 3 };
enum class Format { kLogfmt, kJson };

std::optional<Level> ParseLevel(std::string_view s);
std::optional<Format> ParseFormat(std::string_view s);

void Configure(Level min_level, Format format);

using Field = std::pair<std::string_view, std::string>;

void Write(Level level, std::string_view msg, std::initializer_list<Field> fields = {});

// Formats one record without writing it (used by Write and by tests).
std::string FormatRecord(Format format, std::string_view timestamp, Level level,
                         std::string_view msg, std::initializer_list<Field> fields);

inline void Debug(std::string_view msg, std::initializer_list<Field> f = {}) {
  Write(Level::kDebug, msg, f);
}
inline void Info(std::string_view msg, std::initializer_list<Field> f = {}) {
  Write(Level::kInfo, msg, f);
}
inline void Warn(std::string_view msg, std::initializer_list<Field> f = {}) {
  Write(Level::kWarn, msg, f);
}
inline void Error(std::string_view msg, std::initializer_list<Field> f = {}) {
  Write(Level::kError, msg, f);
}

}  // namespace fabric::log
