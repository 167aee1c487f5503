#include "active-probes/probe/values.h"

#include <array>

namespace fabric::probe {
namespace {

using V = ProbeValue;
using U = ValueUnit;

// clang-format off
constexpr std::array<ValueInfo, 28> kValueCatalogue = {{
  {V::kThroughput, "throughput_bytes_per_second",
   "Probe payload throughput over the measured window (warm-up excluded), counted at the receiver.",
   U::kBytesPerSecond},
  {V::kBytes, "bytes", "Payload bytes moved inside the measured window.", U::kBytes},
  {V::kWindow, "window_seconds", "Length of the measured window.", U::kSeconds},
  {V::kStreams, "streams", "Parallel streams, queue pairs or jobs the probe used.", U::kCount},
  {V::kStreamMin, "stream_min_bytes_per_second", "Slowest stream's throughput.", U::kBytesPerSecond},
  {V::kStreamMedian, "stream_median_bytes_per_second", "Median stream's throughput.",
   U::kBytesPerSecond},
  {V::kStreamMax, "stream_max_bytes_per_second", "Fastest stream's throughput.", U::kBytesPerSecond},
  {V::kRetransmits, "retransmits", "TCP segments retransmitted during the window (TCP_INFO deltas).",
   U::kCount},
  {V::kRtt, "rtt_seconds", "Smoothed round-trip time at the end of the window.", U::kSeconds},
  {V::kMinRtt, "min_rtt_seconds",
   "Lowest round-trip time the connections saw (TCP_INFO min_rtt): the path's delay without the "
   "queue the probe builds, the RTT of the bandwidth-delay product.",
   U::kSeconds},
  {V::kCwnd, "cwnd_bytes", "Congestion window at the end of the window.", U::kBytes},
  {V::kRwndLimited, "rwnd_limited_ratio",
   "Fraction of the window the sender was limited by the receiver's window.", U::kRatio},
  {V::kSndbufLimited, "sndbuf_limited_ratio",
   "Fraction of the window the sender was limited by its send buffer.", U::kRatio},
  {V::kMss, "mss_bytes", "TCP maximum segment size of the probe connections.", U::kBytes},
  {V::kLocalCpu, "local_cpu_ratio",
   "CPU time of this side's probe threads per second of window (1 = one core).", U::kRatio},
  {V::kRemoteCpu, "remote_cpu_ratio",
   "CPU time of the responder per second of window (1 = one core).", U::kRatio},
  {V::kIops, "iops", "I/O operations per second over the measured window.", U::kPerSecond},
  {V::kLatencyP50, "latency_p50_seconds", "Median I/O or message latency.", U::kSeconds},
  {V::kLatencyP99, "latency_p99_seconds", "99th percentile I/O or message latency.", U::kSeconds},
  {V::kLatencyP999, "latency_p999_seconds", "99.9th percentile I/O or message latency.",
   U::kSeconds},
  {V::kRouteMtu, "route_mtu_bytes", "MTU of the kernel's route to the peer.", U::kBytes},
  {V::kEgressMatchesExpected, "egress_matches_expected",
   "1 if the route to the peer leaves through the configured fabric interface.", U::kBoolean},
  {V::kJumboFramesPass, "jumbo_frames_pass",
   "1 if an ICMP echo of the path's expected MTU with Don't Fragment set came back from the peer.",
   U::kBoolean},
  {V::kJumboFrameBytes, "jumbo_frame_bytes",
   "Size of the DF-set echo the jumbo check sent: the path's expected MTU.", U::kBytes},
  {V::kPerStreamCeiling, "per_stream_ceiling_bytes_per_second",
   "Stream sweep: the best throughput per stream of any step (aggregate / streams).",
   U::kBytesPerSecond},
  {V::kSaturatingStreams, "saturating_streams",
   "Stream sweep: the stream count after which more streams added under 10%; absent while the "
   "aggregate still grew at the largest count.",
   U::kCount},
  {V::kReferenceThroughput, "reference_throughput_bytes_per_second",
   "Comparison runs: the reference run's throughput, measured back to back with the compared run "
   "in the same slot, with the same streams, block size and direction pattern (tcp_multi_copy: "
   "sendfile against copy; storage_read_buffered: direct I/O against the page cache). The "
   "comparison's throughput over it is the gap.",
   U::kBytesPerSecond},
  {V::kPathLineRate, "path_line_rate_bytes_per_second",
   "Line rate of the path: the slower of the two ends' interfaces, as each end read its link "
   "speed for the run; absent when either end reports none (veth, virtio).",
   U::kBytesPerSecond},
}};

constexpr std::array<VerdictInfo, 7> kVerdicts = {{
  {Verdict::kCongested, "congested", "congested: CNPs or receive-buffer drops"},
  {Verdict::kContended, "contended", "contended: other traffic shared the path"},
  {Verdict::kCpuBound, "cpu_bound", "CPU-bound: a harness ceiling, not the fabric"},
  {Verdict::kLatencyBound, "latency_bound", "latency-bound: throughput = in-flight / latency"},
  {Verdict::kReceiverWindowLimited, "receiver_window_limited", "receiver window limited"},
  {Verdict::kSendBufferLimited, "send_buffer_limited", "send buffer limited"},
  {Verdict::kStreamLimited, "stream_limited", "stream-limited: streams × the per-stream ceiling"},
}};
// clang-format on

}  // namespace

std::span<const ValueInfo> ValueCatalogue() { return kValueCatalogue; }

const ValueInfo& InfoOf(ProbeValue value) {
  for (const auto& info : kValueCatalogue) {
    if (info.id == value) return info;
  }
  return kValueCatalogue[0];  // Unreachable: every value has a row (tested).
}

std::string_view ValueName(ProbeValue value) { return InfoOf(value).name; }

std::optional<ProbeValue> ValueFromName(std::string_view name) {
  for (const auto& info : kValueCatalogue) {
    if (info.name == name) return info.id;
  }
  return std::nullopt;
}

std::string_view UnitName(ValueUnit unit) {
  switch (unit) {
    case ValueUnit::kBytesPerSecond:
      return "bytes_per_second";
    case ValueUnit::kBytes:
      return "bytes";
    case ValueUnit::kSeconds:
      return "seconds";
    case ValueUnit::kRatio:
      return "ratio";
    case ValueUnit::kPerSecond:
      return "per_second";
    case ValueUnit::kCount:
      return "count";
    case ValueUnit::kBoolean:
      return "boolean";
  }
  return "?";
}

std::span<const VerdictInfo> Verdicts() { return kVerdicts; }

const VerdictInfo& InfoOf(Verdict verdict) {
  for (const auto& info : kVerdicts) {
    if (info.id == verdict) return info;
  }
  return kVerdicts[0];  // Unreachable (tested).
}

std::string_view VerdictName(Verdict verdict) { return InfoOf(verdict).name; }

std::optional<Verdict> VerdictFromName(std::string_view name) {
  for (const auto& info : kVerdicts) {
    if (info.name == name) return info.id;
  }
  return std::nullopt;
}

}  // namespace fabric::probe
