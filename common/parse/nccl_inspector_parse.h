// Parser for NCCL Inspector's Prometheus textfile (the ext-profiler/inspector
// plugin of NCCL 2.28 and later with NCCL_INSPECTOR_PROM_DUMP=1): one file per
// GPU, nccl_inspector_metrics_<GPU UUID>.prom, rewritten every dump interval
// with, per communicator, the last completed collective as three samples
// sharing one label set:
//   nccl_algorithm_bandwidth_gbs{...} 277.211
//   nccl_bus_bandwidth_gbs{...} 485.119
//   nccl_collective_exec_time_microseconds{...} 61974
// labelled comm_id, hostname, rank, slurm_job, slurm_job_id, nranks (n_ranks
// in the plugin's README), n_nodes, gpu_device_id, collective, coll_sn,
// timestamp (UTC, 2025-10-17T03:31:47Z) and message_size (the plugin's own
// human-readable form: "2.00GB", 1024-based, or "512B"). Other families and
// labels are ignored, so later plugin versions that add some still parse.
#pragma once

#include <optional>
#include <string_view>

#include "common/parse/collective_measurement.h"

namespace fabric {

CollectiveParse ParseNcclInspectorProm(std::string_view text);

// "2.00GB" -> 2147483648, "512B" -> 512; nullopt when it is not that form.
std::optional<uint64_t> ParseInspectorMessageSize(std::string_view text);

// "2025-10-17T03:31:47Z" -> Unix seconds; nullopt when it is not that form.
std::optional<double> ParseUtcTimestamp(std::string_view text);

}  // namespace fabric
