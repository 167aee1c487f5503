#include "active-probes/storage/storage_report.h"

#include <cmath>
#include <cstdio>
#include <string>

#include "common/json.h"
#include "common/strings.h"

namespace fabric::storage {
namespace {

std::string Printf(const char* fmt, auto... args) {
  char buf[512];
  std::snprintf(buf, sizeof(buf), fmt, args...);
  return buf;
}

std::string Ms(double seconds) { return Printf("%.3f ms", seconds * 1e3); }

}  // namespace

std::string FormatHuman(const StorageProbeResult& r) {
  std::string out;
  auto row = [&](std::string_view key, const std::string& value) {
    out += Printf("%-22.*s %s\n", static_cast<int>(key.size()), key.data(), value.c_str());
  };
  row("mode", std::string(ModeName(r.mode)) + (r.direct ? " (O_DIRECT)" : " (buffered)"));
  row("target", r.target);
  row("filesystem", r.filesystem.type.empty() ? "unknown"
                                              : r.filesystem.type + " on " + r.filesystem.source +
                                                    " at " + r.filesystem.mount_point);
  if (!r.filesystem.options.empty()) row("mount options", r.filesystem.options);
  std::string engine_detail;
  if (r.registered_buffers) engine_detail += ", registered buffers";
  if (!r.ring_setup.empty()) engine_detail += ", " + r.ring_setup;
  row("engine", r.engine + (engine_detail.empty() ? "" : " (" + engine_detail.substr(2) + ")"));
  if (!r.engine_note.empty()) row("ENGINE FALLBACK", r.engine_note);
  if (!r.direct_note.empty()) row("DIRECT I/O FALLBACK", r.direct_note);
  row("layout",
      Printf("%u job(s) x depth %u, %u-byte blocks, %u file(s) of %llu bytes", r.jobs,
             r.queue_depth, r.block_size, r.files, static_cast<unsigned long long>(r.size)));
  row("window",
      Printf("%.3f s%s%s", r.window_seconds, r.includes_fdatasync ? " (includes fdatasync)" : "",
             r.single_pass ? " (buffered: one pass over the file)" : ""));
  row("throughput",
      Printf("%.1f MB/s (%.3f GB/s)", r.bytes_per_second / 1e6, r.bytes_per_second / 1e9));
  row("iops", Printf("%.0f", r.iops));
  row("latency p50/p99/p99.9",
      Ms(r.latency.p50) + " / " + Ms(r.latency.p99) + " / " + Ms(r.latency.p999));
  if (r.unloaded_latency_p50 > 0) row("depth-1 latency p50", Ms(r.unloaded_latency_p50));
  row("cpu", Printf("%.3f s (%.3f s per GB, busiest job %.0f%% of a core)%s", r.cpu_seconds,
                    r.cpu_seconds_per_gb, r.max_job_cpu_fraction * 100,
                    r.cpu_saturated ? " SATURATED" : ""));
  row("latency_bound", r.latency_bound ? "yes" : "no");
  row("verdict", r.verdict);
  return out;
}

std::string FormatJson(const StorageProbeResult& r) {
  std::string out = "{";
  bool first = true;
  auto field = [&](std::string_view key, const std::string& value) {
    if (!first) out += ",";
    first = false;
    out += JsonString(key) + ":" + value;
  };
  auto str = [&](std::string_view key, std::string_view v) { field(key, JsonString(v)); };
  auto num = [&](std::string_view key, double v) { field(key, JsonNumber(v)); };
  auto integer = [&](std::string_view key, uint64_t v) { field(key, std::to_string(v)); };
  auto boolean = [&](std::string_view key, bool v) { field(key, v ? "true" : "false"); };
  str("mode", ModeName(r.mode));
  str("target", r.target);
  str("engine", r.engine);
  str("engine_fallback", r.engine_note);
  str("ring_setup", r.ring_setup);
  boolean("direct", r.direct);
  str("direct_fallback", r.direct_note);
  boolean("registered_buffers", r.registered_buffers);
  integer("block_size_bytes", r.block_size);
  integer("queue_depth", r.queue_depth);
  integer("jobs", r.jobs);
  integer("files", r.files);
  integer("size_bytes", r.size);
  boolean("includes_fdatasync", r.includes_fdatasync);
  boolean("single_pass", r.single_pass);
  num("window_seconds", r.window_seconds);
  integer("bytes", r.bytes);
  integer("ios", r.ios);
  num("bytes_per_second", r.bytes_per_second);
  num("iops", r.iops);
  field("latency_seconds",
        "{\"p50\":" + JsonNumber(r.latency.p50) + ",\"p99\":" + JsonNumber(r.latency.p99) +
            ",\"p99.9\":" + JsonNumber(r.latency.p999) + ",\"mean\":" + JsonNumber(r.latency.mean) +
            ",\"max\":" + JsonNumber(r.latency.max) + "}");
  num("unloaded_latency_p50_seconds", r.unloaded_latency_p50);
  num("cpu_seconds", r.cpu_seconds);
  num("cpu_seconds_per_gb", r.cpu_seconds_per_gb);
  num("max_job_cpu_fraction", r.max_job_cpu_fraction);
  boolean("cpu_saturated", r.cpu_saturated);
  field("filesystem", "{\"type\":" + JsonString(r.filesystem.type) +
                          ",\"source\":" + JsonString(r.filesystem.source) +
                          ",\"mount_point\":" + JsonString(r.filesystem.mount_point) +
                          ",\"options\":" + JsonString(r.filesystem.options) + "}");
  num("littles_law_ratio", r.littles_law_ratio);
  num("queueing_factor", r.queueing_factor);
  boolean("latency_bound", r.latency_bound);
  str("verdict", r.verdict);
  return out + "}\n";
}

Result<uint64_t> ParseBytes(std::string_view s) {
  std::string_view text = TrimSpace(s);
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  auto number = ParseUint64(text.substr(0, digits));
  std::string unit(text.substr(digits));
  for (char& c : unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  int shift = -1;
  if (unit.empty() || unit == "b") shift = 0;
  if (unit == "k" || unit == "kib" || unit == "kb") shift = 10;
  if (unit == "m" || unit == "mib" || unit == "mb") shift = 20;
  if (unit == "g" || unit == "gib" || unit == "gb") shift = 30;
  if (unit == "t" || unit == "tib" || unit == "tb") shift = 40;
  if (!number || shift < 0) {
    return MakeError("bad size " + Quote(s) + " (want e.g. 4096, 4k, 1MiB, 2G)");
  }
  if (shift > 0 && *number > (UINT64_MAX >> shift))
    return MakeError("size " + Quote(s) + " too big");
  return *number << shift;
}

Result<double> ParseSeconds(std::string_view s) {
  std::string_view text = TrimSpace(s);
  double scale = 1;
  if (text.ends_with("ms")) {
    scale = 1e-3;
    text.remove_suffix(2);
  } else if (text.ends_with("s")) {
    text.remove_suffix(1);
  } else if (text.ends_with("m")) {
    scale = 60;
    text.remove_suffix(1);
  }
  auto value = ParseDouble(text);
  if (!value || !std::isfinite(*value) || *value < 0) {
    return MakeError("bad duration " + Quote(s) + " (want e.g. 3s, 500ms, 1m)");
  }
  return *value * scale;
}

}  // namespace fabric::storage
