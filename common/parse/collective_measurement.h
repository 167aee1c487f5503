// What a collective benchmark or profiler reports for one collective at one
// message size, whatever file it came from (NCCL Inspector's textfile,
// nccl-tests' JSON): the typed value the collective collector publishes, and
// the reasons a file of either format fails, as codes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fabric {

struct CollectiveMeasurement {
  std::string collective;  // As NCCL names it: "AllReduce", "AllGather", "ReduceScatter", ...
  uint64_t message_bytes = 0;
  // GB/s as the tools write them: 1e9 bytes per second.
  double bus_gbs = 0;
  std::optional<double> algorithm_gbs;
  std::optional<double> time_us;
  int nodes = 0;  // Nodes the communicator spans; 0 when the file does not say.
  int ranks = 0;  // 0 when the file does not say.
  // When it was measured (Unix seconds), where the file itself says; else the
  // collector takes the file's modification time.
  std::optional<double> unix_seconds;
};

// Why a file yielded no measurements: the `reason` label of
// fabric_collective_file_errors. Each parser sets one; the collector adds its
// own (unreadable, too_large).
enum class CollectiveFailure {
  kSyntax,      // Not the format at all, or broken inside.
  kTruncated,   // Ends mid-document: a file caught while its writer writes (a run in progress).
  kNoResults,   // Well formed, but nothing to publish (no bus bandwidth in it).
  kUnreadable,  // The read failed.
  kTooLarge,    // Over collectors.collective.max_file_bytes.
};

const char* CollectiveFailureName(CollectiveFailure failure);

struct CollectiveParse {
  std::vector<CollectiveMeasurement> measurements;
  std::optional<CollectiveFailure> failure;  // Set: `measurements` is empty.
  std::string message;                       // For the log, when failure is set.
};

}  // namespace fabric
