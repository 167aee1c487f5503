// Parser for nccl-tests' JSON output file (all_reduce_perf and the other
// *_perf binaries with -J/--output_file NAME.json; JSON_FILE_VERSION 2 of
// src/util.cu). One document per run:
//   {"version": 2, "start_time": "...", "args": ["./all_reduce_perf", ...],
//    "env": [...], "nccl_version": 22703,
//    "config": {"nthreads": 1, "ngpus": 1, ..., "devices": [{"rank": 0,
//               "hostname": "node-a", ...}, ...]},
//    "results": [{"size": 8, "count": 2, "type": "float", "redop": "sum",
//                 "root": "    -1",
//                 "out_of_place": {"time": 10.2, "alg_bw": 0.0, "bus_bw": 0.0,
//                                  "nwrong": 0},
//                 "in_place": {...}, "actual_iterations": 20,
//                 "experiment_name": ""}, ...],
//    "out_of_bounds": {...}, "average_bus_bandwidth": {...}, "errors": [],
//    "end_time": "..."}
// The collective is the experiment_name where set (trace replay), else the
// program's name (args[0], "all_reduce_perf" -> "AllReduce"). The nodes are the
// distinct hostnames of config.devices. A result's bus bandwidth is the better
// of its out-of-place and in-place runs. NaN is written as the string "nan";
// out_of_place may be null. Unknown keys are ignored.
#pragma once

#include <string>
#include <string_view>

#include "common/parse/collective_measurement.h"

namespace fabric {

CollectiveParse ParseNcclTestsJson(std::string_view text);

// "all_reduce_perf" (or a path to it, or "all_reduce_perf_mpi") -> "AllReduce";
// empty when `program` is no *_perf binary.
std::string CollectiveOfProgram(std::string_view program);

}  // namespace fabric
