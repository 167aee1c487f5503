// The value catalogue: every number a probe record may carry, published as
// fabric_probe_<name>{probe,target,direction} with the HELP text here; and the
// verdicts (self-checks) a record may raise. Producers set values and verdicts
// by id; the exposition publishes by id; the state file keeps the names. A
// value is in the catalogue only while some probe kind declares it (tested).
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace fabric::probe {

enum class ProbeValue {
  kThroughput,
  kBytes,
  kWindow,
  kStreams,
  kStreamMin,
  kStreamMedian,
  kStreamMax,
  kRetransmits,
  kRtt,
  kMinRtt,
  kCwnd,
  kRwndLimited,
  kSndbufLimited,
  kMss,
  kLocalCpu,
  kRemoteCpu,
  kIops,
  kLatencyP50,
  kLatencyP99,
  kLatencyP999,
  kRouteMtu,
  kEgressMatchesExpected,
  kJumboFramesPass,
  kJumboFrameBytes,
  kPerStreamCeiling,
  kSaturatingStreams,
  kReferenceThroughput,
  kPathLineRate,
};

// Base units; the name ends with the unit's suffix where it has one (tested).
enum class ValueUnit {
  kBytesPerSecond,  // _bytes_per_second
  kBytes,           // _bytes (or just "bytes")
  kSeconds,         // _seconds
  kRatio,           // _ratio: a fraction, 1 = all (or one core)
  kPerSecond,       // events per second (iops)
  kCount,           // a number of things
  kBoolean,         // 1 or 0
};

struct ValueInfo {
  ProbeValue id;
  std::string_view name;  // The metric name after fabric_probe_.
  std::string_view help;
  ValueUnit unit;
};

std::span<const ValueInfo> ValueCatalogue();
const ValueInfo& InfoOf(ProbeValue value);
std::string_view ValueName(ProbeValue value);
// nullopt for a name not in the catalogue (e.g. in a state file of another version).
std::optional<ProbeValue> ValueFromName(std::string_view name);
std::string_view UnitName(ValueUnit unit);

// In the order of their names, the order records list them in.
enum class Verdict {
  kCongested,
  kContended,
  kCpuBound,
  kLatencyBound,
  kReceiverWindowLimited,
  kSendBufferLimited,
  kStreamLimited,
};

struct VerdictInfo {
  Verdict id;
  std::string_view name;   // The `verdict` label.
  std::string_view words;  // One raised verdict in the ladder's words.
};

std::span<const VerdictInfo> Verdicts();
const VerdictInfo& InfoOf(Verdict verdict);
std::string_view VerdictName(Verdict verdict);
std::optional<Verdict> VerdictFromName(std::string_view name);

}  // namespace fabric::probe
