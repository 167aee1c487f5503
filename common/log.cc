#include "common/log.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <mutex>

#include "common/json.h"

namespace fabric::log {
namespace {

std::atomic<Level> g_min_level{Level::kInfo};
std::atomic<Format> g_format{Format::kLogfmt};
std::mutex g_write_mutex;

const char* LevelName(Level level) {
  switch (level) {
    case Level::kDebug:
      return "debug";
    case Level::kInfo:
      return "info";
    case Level::kWarn:
      return "warn";
    case Level::kError:
      return "error";
  }
  return "info";
}

void AppendLogfmtValue(std::string& out, std::string_view s) {
  bool needs_quotes = s.empty();
  for (unsigned char c : s) {
    if (c <= ' ' || c == '"' || c == '=' || c == '\\' || c >= 0x7f) needs_quotes = true;
  }
  if (!needs_quotes) {
    out += s;
    return;
  }
  // logfmt quoting follows JSON string escaping.
  AppendJsonString(out, s);
}

std::string NowTimestamp() {
  auto now = std::chrono::system_clock::now();
  std::time_t secs = std::chrono::system_clock::to_time_t(now);
  auto millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(millis));
  return buf;
}

}  // namespace

std::optional<Level> ParseLevel(std::string_view s) {
  if (s == "debug") return Level::kDebug;
  if (s == "info") return Level::kInfo;
  if (s == "warn") return Level::kWarn;
  if (s == "error") return Level::kError;
  return std::nullopt;
}

std::optional<Format> ParseFormat(std::string_view s) {
  if (s == "logfmt") return Format::kLogfmt;
  if (s == "json") return Format::kJson;
  return std::nullopt;
}

void Configure(Level min_level, Format format) {
  g_min_level = min_level;
  g_format = format;
}

std::string FormatRecord(Format format, std::string_view timestamp, Level level,
                         std::string_view msg, std::initializer_list<Field> fields) {
  std::string line;
  if (format == Format::kJson) {
    line = "{\"ts\":";
    AppendJsonString(line, timestamp);
    line += ",\"level\":";
    AppendJsonString(line, LevelName(level));
    line += ",\"msg\":";
    AppendJsonString(line, msg);
    for (const auto& [key, value] : fields) {
      line += ',';
      AppendJsonString(line, key);
      line += ':';
      AppendJsonString(line, value);
    }
    line += '}';
  } else {
    line = "ts=";
    line += timestamp;
    line += " level=";
    line += LevelName(level);
    line += " msg=";
    AppendLogfmtValue(line, msg);
    for (const auto& [key, value] : fields) {
      line += ' ';
      line += key;
      line += '=';
      AppendLogfmtValue(line, value);
    }
  }
  line += '\n';
  return line;
}

void Write(Level level, std::string_view msg, std::initializer_list<Field> fields) {
  if (level < g_min_level.load()) return;
  std::string line = FormatRecord(g_format.load(), NowTimestamp(), level, msg, fields);
  std::lock_guard<std::mutex> lock(g_write_mutex);
  std::fwrite(line.data(), 1, line.size(), stderr);
}

}  // namespace fabric::log
