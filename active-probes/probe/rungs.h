// The rung table: every kind of probe record the exporter keeps, with the
// `probe` label its series carry, its title, what its target names, the
// `direction` labels its records have, and whether it is a layer of the ladder
// (the recording rules and the page draw it). Records that are not ladder
// layers (the path check, comparison runs) are rows here too, so they share
// the records, the state file and the exposition without special cases.
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "active-probes/probe/direction.h"

namespace fabric::probe {

enum class Rung {
  kRdma,
  kTcpMulti,
  kTcpSingle,
  kStorageRead,
  kStorageWrite,
  kPath,
  // Comparison runs (docs: COMPARISON_RUNS): records of their own beside the
  // rungs they compare with, rotated over plan rounds inside the probe budget.
  kTcpMultiCopy,              // tcp_multi in copy (write/read) mode.
  kTcpMultiSweep,             // tcp_multi over a stream-count sweep.
  kStorageReadBuffered,       // storage_read through the page cache.
  kStorageReadSharedFile,     // J jobs over one shared file.
  kStorageReadSeparateFiles,  // The same J jobs over J files.
  kStorageReadDepth1,         // One job, one I/O in flight.
  kStorageWriteDepth1,
};

// What a record's `target` label names.
enum class RungTarget {
  kPeer,       // A fleet node (or "loopback"): one record set per path.
  kDirectory,  // A directory of this node: one record set per node.
};

struct RungInfo {
  Rung id;
  std::string_view label;  // The `probe` label ("tcp_multi").
  std::string_view title;  // How the ladder names it ("N-stream TCP").
  RungTarget target;
  // The records one run makes, by direction label, in the order people say
  // them (send before receive).
  std::span<const Direction> directions;
  bool ladder_layer;
  // As a ladder layer, whether it counts for the binding layer: 1-stream TCP
  // is a per-stream property of the tool, not a capacity of the path (as in
  // the recording rules).
  bool ceiling;
};

// Every rung, ladder layers in ladder order (top first) before the others.
std::span<const RungInfo> Rungs();
const RungInfo& InfoOf(Rung rung);
std::string_view RungLabel(Rung rung);
// The rung of a `probe` label; nullopt for a label no rung has.
std::optional<Rung> RungFromLabel(std::string_view label);

}  // namespace fabric::probe
