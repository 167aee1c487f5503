// Command-line values: the flag parser with fabric_exporter's whole flag set
// (arguments split at NUL bytes), fabric_probe's duration, size, count and
// list values, the storage probe's sizes, durations and modes, the TCP
// probe's send mode and direction, log levels and listen addresses.
// Operators type these, so the bar is errors instead of crashes or hangs.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "active-probes/cli/arg_parse.h"
#include "active-probes/storage/storage_report.h"
#include "active-probes/tcp/stream_io.h"
#include "active-probes/tcp/tcp_probe.h"
#include "common/log.h"
#include "exporter/app/options.h"
#include "exporter/collectors/collector_table.h"
#include "exporter/http/listen_address.h"
#include "tests/fuzz/fuzz_input.h"

namespace {

void ExporterFlags(std::string_view text) {
  static const std::vector<fabric::CollectorSpec>& table = fabric::CollectorTable();
  fabric::FlagSet flags = fabric::MakeExporterFlags(table);
  std::vector<std::string> args = {"fabric_exporter"};
  size_t start = 0;
  while (start <= text.size() && args.size() < 64) {
    size_t end = text.find('\0', start);
    if (end == std::string_view::npos) end = text.size();
    args.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  if (flags.Parse(static_cast<int>(argv.size()), argv.data()).ok()) {
    for (const auto& spec : table) (void)flags.IsSet("collector." + std::string(spec.name));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto in = fabric::fuzz::Split(data, size, 5);
  namespace probe = fabric::probe;
  switch (in.selector) {
    case 0:
      ExporterFlags(in.text);
      break;
    case 1:
      (void)probe::ParseDurationFlag("duration", in.text);
      (void)probe::ParseBytesFlag("block", in.text);
      (void)probe::ParseCountFlag("streams", in.text, 1, 1024);
      (void)probe::ParseCountList("sweep", in.text, 4096);
      break;
    case 2:
      (void)fabric::storage::ParseBytes(in.text);
      (void)fabric::storage::ParseSeconds(in.text);
      (void)fabric::storage::ParseMode(in.text);
      break;
    case 3:
      (void)probe::ParseSendMode(in.text);
      (void)probe::ParseDirection(in.text);
      (void)fabric::log::ParseLevel(in.text);
      (void)fabric::log::ParseFormat(in.text);
      break;
    case 4:
      (void)fabric::ToCivetListeningPort(in.text);
      break;
  }
  return 0;
}
