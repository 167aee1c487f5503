// How a storage result is shown: a human table (the default) and JSON for
// machines, plus the unit parsers fabric_probe's flags use.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "active-probes/storage/storage_probe.h"
#include "common/result.h"

namespace fabric::storage {

std::string FormatHuman(const StorageProbeResult& r);
std::string FormatJson(const StorageProbeResult& r);

// "4096", "4k", "4KiB", "1M", "1MiB", "2G" (powers of 1024, as fio reads them).
Result<uint64_t> ParseBytes(std::string_view s);
// "3", "3s", "500ms", "1m".
Result<double> ParseSeconds(std::string_view s);

}  // namespace fabric::storage
