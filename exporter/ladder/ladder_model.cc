#include "exporter/ladder/ladder_model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <map>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "active-probes/probe/error_kinds.h"
#include "exporter/ladder/rule_thresholds.h"

namespace fabric::ladder {
namespace {

using probe::Direction;
using probe::ProbeValue;
using probe::Rung;
using probe::RungInfo;
using probe::Verdict;

std::string Printf(const char* format, double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, value);
  return buf;
}

// A rung's records are per path (a result per peer), or per node (storage).
bool PerPath(const RungInfo& rung) { return rung.target == probe::RungTarget::kPeer; }

// The error-kind table's words for the recorded reason, else the reason and the detail.
std::string FailureWords(const ProbeRecord& r) {
  const std::string& reason = r.failure_reason;
  const probe::ErrorKind* kind = probe::KindOfReason(reason);
  if (kind != nullptr && !kind->ladder_words.empty()) return std::string(kind->ladder_words);
  std::string words = "failed";
  if (!reason.empty()) words += " (" + reason + ")";
  if (!r.failure_detail.empty()) words += ": " + r.failure_detail;
  return words;
}

double Value(const ProbeRecord& r, ProbeValue value, double fallback = -1) {
  auto it = r.values.find(value);
  return it == r.values.end() ? fallback : it->second;
}

bool Raised(const ProbeRecord& r, Verdict verdict) {
  auto it = r.verdicts.find(verdict);
  return it != r.verdicts.end() && it->second;
}

std::string Seconds(double s) {
  if (s < 1e-3) return Printf("%.0f µs", s * 1e6);
  if (s < 1) return Printf("%.1f ms", s * 1e3);
  return Printf("%.2f s", s);
}

// " (copy, 1 MiB blocks)": the send mode and block size a TCP record used,
// the probe's calibrated choice (or its default), so the ladder shows a rung's
// figure as what the probe moved in that mode, not as the stream's ceiling.
std::string ModeWords(const ProbeRecord& r) {
  auto mode = r.info.find("mode");
  auto block = r.info.find("block_bytes");
  if (mode == r.info.end() || block == r.info.end()) return "";
  std::string size = block->second + " B";
  char* end = nullptr;
  const unsigned long bytes = std::strtoul(block->second.c_str(), &end, 10);
  if (end != nullptr && *end == '\0' && bytes > 0) {
    if (bytes % (1024 * 1024) == 0) {
      size = std::to_string(bytes / (1024 * 1024)) + " MiB";
    } else if (bytes % 1024 == 0) {
      size = std::to_string(bytes / 1024) + " KiB";
    }
  }
  return " (" + mode->second + ", " + size + " blocks)";
}

// One probe rung: the worse direction is the layer's number (a path is as fast as its slower
// direction), both are in the detail.
// " (it did 194 Gbit/s on 2026-11-02, its best in 30 days)": a clean result more than the
// rules' regressionFraction below the best clean result the store kept over their
// longBaselineWindow, so a decline the 7-day baseline absorbed stays in sight (the regression
// alerts' evidence). A contended or CPU-bound result says what the harness met, not what the
// path can do: it is not set against the best, as the rules judge clean results only.
std::string UsedToDoWords(const ProbeRecord& r, double rate) {
  if (Raised(r, Verdict::kContended) || Raised(r, Verdict::kCpuBound)) return "";
  if (!r.best || r.best->bytes_per_second <= 0 ||
      rate >= (1 - rule_config::kRegressionFraction) * r.best->bytes_per_second) {
    return "";
  }
  const auto when = static_cast<time_t>(r.best->timestamp_seconds);
  tm utc{};
  char date[16] = "?";
  if (gmtime_r(&when, &utc) != nullptr) std::strftime(date, sizeof date, "%Y-%m-%d", &utc);
  return " (it did " + FormatRate(r.best->bytes_per_second) + " on " + date + ", its best in " +
         Printf("%.0f days", rule_config::kLongBaselineWindowSeconds / 86400) + ")";
}

// The result a contended run leaves standing: the last uncontended one the store kept, while
// younger than the rules' age limit (they divide by the same one; the ladder's recording rule
// instance_target_direction:fabric_ladder_bytes_per_second:max shows the same).
std::optional<KeptResult> StandingUncontended(const ProbeRecord& r, const LadderInput& input) {
  if (!Raised(r, Verdict::kContended) || !r.uncontended) return std::nullopt;
  if (input.now_seconds > 0 && input.now_seconds - r.uncontended->timestamp_seconds >=
                                   rule_config::kProbeEvidenceMaxAgeSeconds) {
    return std::nullopt;
  }
  return r.uncontended;
}

Layer RungLayer(const RungInfo& spec, const std::vector<const ProbeRecord*>& records,
                const LadderInput& input) {
  Layer layer;
  layer.id = std::string(spec.label);
  layer.title = std::string(spec.title);
  layer.ceiling = spec.ceiling;
  if (records.empty()) {
    auto it = input.absent_reasons.find(spec.id);
    layer.status = it != input.absent_reasons.end() ? it->second : "not configured";
    return layer;
  }
  std::string detail;
  std::string failure;
  double newest = 0;
  for (const ProbeRecord* r : records) {
    newest = std::max(newest, r->timestamp_seconds);
    if (r->timestamp_seconds == 0) continue;
    if (!r->success) {
      failure = FailureWords(*r);
      continue;
    }
    double rate = Value(*r, ProbeValue::kThroughput);
    if (rate < 0) continue;
    layer.self_checked = true;
    // A run that shared its path with other traffic measured what was left beside it (a
    // transfer, another probe), not what the path carries: the bar stays at the uncontended
    // result the rules judge by, and the words give both and its age.
    std::string words = FormatRate(rate) + ModeWords(*r) + UsedToDoWords(*r, rate);
    if (auto standing = StandingUncontended(*r, input)) {
      const std::string age =
          input.now_seconds > 0 ? FormatAge(input.now_seconds - standing->timestamp_seconds) : "";
      words = FormatRate(standing->bytes_per_second) + ModeWords(*r) + " without other traffic" +
              (age.empty() ? "" : " " + age) + " (the last run, " + FormatRate(rate) +
              ", shared the path)";
      rate = standing->bytes_per_second;
    }
    if (!layer.bytes_per_second || rate < *layer.bytes_per_second) layer.bytes_per_second = rate;
    if (!detail.empty()) detail += ", ";
    if (r->key.direction != Direction::kNone) {
      detail += std::string(probe::DirectionName(r->key.direction)) + " ";
    }
    detail += words;
    // In the verdicts' name order (the table's).
    for (const auto& [verdict, raised] : r->verdicts) {
      std::string name(probe::VerdictName(verdict));
      if (raised &&
          std::find(layer.verdicts.begin(), layer.verdicts.end(), name) == layer.verdicts.end()) {
        layer.verdicts.push_back(name);
      }
    }
  }
  if (newest == 0) {
    layer.status = "not run yet";
    return layer;
  }
  if (input.now_seconds > 0 && input.now_seconds >= newest) {
    layer.age_seconds = input.now_seconds - newest;
  }
  if (!layer.bytes_per_second) {
    layer.status = failure.empty() ? "no result" : failure;
    return layer;
  }
  // Streams, latency and filesystem from a successful run (a failed one has no values).
  const ProbeRecord& first = **std::find_if(records.begin(), records.end(), [](const auto* r) {
    return r->success && r->timestamp_seconds > 0;
  });
  if (double streams = Value(first, ProbeValue::kStreams); streams > 1 && PerPath(spec)) {
    detail += Printf(spec.id == Rung::kRdma ? "; %.0f QPs" : "; %.0f streams", streams);
  }
  if (double p99 = Value(first, ProbeValue::kLatencyP99); p99 > 0) {
    detail += "; p99 " + Seconds(p99);
  }
  if (auto fs = first.info.find("filesystem"); fs != first.info.end() && !fs->second.empty()) {
    detail += "; " + fs->second;
  }
  layer.detail = detail;
  if (!failure.empty()) layer.detail += "; other direction " + failure;
  return layer;
}

// The records of one rung on this path (network rungs) or this node (storage).
std::vector<const ProbeRecord*> RecordsOf(const LadderInput& input, const RungInfo& spec) {
  std::vector<const ProbeRecord*> out;
  for (const auto& r : input.records) {
    if (r.key.probe != spec.id) continue;
    if (PerPath(spec) && r.key.target != input.peer) continue;
    out.push_back(&r);
  }
  // Send before receive, as people say it.
  std::stable_sort(out.begin(), out.end(), [](const ProbeRecord* a, const ProbeRecord* b) {
    return (a->key.direction == Direction::kSend) > (b->key.direction == Direction::kSend);
  });
  return out;
}

// A successful record of `rung` on this path (or this node), in `direction`
// when one is given.
const ProbeRecord* Find(const LadderInput& input, Rung rung,
                        std::optional<Direction> direction = std::nullopt) {
  for (const auto& r : input.records) {
    if (r.key.probe == rung && (!PerPath(probe::InfoOf(rung)) || r.key.target == input.peer) &&
        (!direction || r.key.direction == *direction) && r.success && r.timestamp_seconds > 0) {
      return &r;
    }
  }
  return nullptr;
}

// The shapes below judge by the rule bundle's own thresholds (rules/mixin/config.libsonnet,
// compiled in from rules/thresholds.json), so the page and the alerts cannot drift apart.
using rule_config::kBdpFactor;
using rule_config::kHarnessCpuRatio;
using rule_config::kPcieLineRatio;
using rule_config::kProbeEvidenceMaxAgeSeconds;
using rule_config::kStorageLatencyGain;
using rule_config::kStorageLatencySeconds;
using rule_config::kSweepGain;
using rule_config::kTransferCriticalRatio;
using rule_config::kTransferMinBytesPerSecond;
using rule_config::kTransferMinPathRatio;
using rule_config::kTxRxRatio;

bool Has(const ProbeRecord& r, ProbeValue value) { return r.values.count(value) > 0; }

// What the N-stream TCP probe proved on this path in `direction` with no other traffic on it:
// the last uncontended result the store kept across contended runs, while younger than the
// rules' age limit, else the latest result unless it is contended (a record built by hand has
// no kept result), as
// instance_target_direction:fabric_probe_uncontended_throughput_bytes_per_second:max.
std::optional<double> ProvenUncontended(const LadderInput& input, Direction direction) {
  for (const auto& r : input.records) {
    if (r.key.probe != Rung::kTcpMulti || r.key.target != input.peer ||
        r.key.direction != direction) {
      continue;
    }
    if (r.uncontended &&
        (input.now_seconds <= 0 ||
         input.now_seconds - r.uncontended->timestamp_seconds < kProbeEvidenceMaxAgeSeconds)) {
      return r.uncontended->bytes_per_second;
    }
    if (r.success && r.timestamp_seconds > 0 && !Raised(r, Verdict::kContended) &&
        Has(r, ProbeValue::kThroughput)) {
      return Value(r, ProbeValue::kThroughput);
    }
  }
  return std::nullopt;
}

// Successful records of `rung` with a result, of every peer of the node: the node-wide shapes
// (asymmetry, socket buffers) are judged over all of them, as their alerts are per node.
std::vector<const ProbeRecord*> NodeRecords(const LadderInput& input, Rung rung) {
  std::vector<const ProbeRecord*> out;
  for (const auto& r : input.records) {
    if (r.key.probe == rung && r.success && r.timestamp_seconds > 0) out.push_back(&r);
  }
  return out;
}

// FabricProbeHarnessLimited's evidence for one rung: a result of this node that is cpu_bound or
// contended, unless it is stream-limited (FabricProbeStreamLimited names that) or CPU-bound at
// the far end only (the peer's harness, named on the peer's node).
bool HarnessLimited(const ProbeRecord& r) {
  const bool contended = Raised(r, Verdict::kContended);
  if (!contended && !Raised(r, Verdict::kCpuBound)) return false;
  if (Raised(r, Verdict::kStreamLimited)) return false;
  const bool far_end_only = Has(r, ProbeValue::kLocalCpu) && Has(r, ProbeValue::kRemoteCpu) &&
                            Value(r, ProbeValue::kLocalCpu) < kHarnessCpuRatio &&
                            Value(r, ProbeValue::kRemoteCpu) >= kHarnessCpuRatio && !contended;
  return !far_end_only;
}

// The egress check of `peer`'s path found the route leaving through another interface.
bool WrongEgress(const LadderInput& input, const std::string& peer) {
  for (const ProbeRecord* path : NodeRecords(input, Rung::kPath)) {
    if (path->key.target == peer && Value(*path, ProbeValue::kEgressMatchesExpected) == 0) {
      return true;
    }
  }
  return false;
}

std::string Bytes(double bytes) {
  if (bytes >= 1024 * 1024) return Printf("%.1f MiB", bytes / (1024 * 1024));
  return Printf("%.0f KiB", bytes / 1024);
}

// The NFS mounts on this peer: a fact, not a measured layer (the nfs collector exports byte
// counters; their rates are the rules' and the transfers dashboard's). Names the transport and a
// negotiated rsize/wsize below what the mount asked for, as FabricNfsTransferSizeCapped does.
Layer NfsLayer(const std::vector<NfsMountFact>& mounts) {
  Layer layer;
  layer.id = "nfs";
  layer.title = "NFS client";
  layer.ceiling = false;
  for (const NfsMountFact& m : mounts) {
    std::string words = m.mount_point + " over " + m.transport;
    std::string capped;
    auto size = [&](const char* name, const std::optional<double>& got,
                    const std::optional<double>& asked) {
      if (!got) return;
      words += std::string(", ") + name + " " + Bytes(*got);
      if (asked && *got < *asked) {
        capped += (capped.empty() ? "" : ", ") + std::string(name) + " " + Bytes(*got) +
                  " below the " + Bytes(*asked) + " asked";
      }
    };
    size("rsize", m.rsize, m.requested_rsize);
    size("wsize", m.wsize, m.requested_wsize);
    if (!capped.empty()) words += " (capped: " + capped + ")";
    layer.status += (layer.status.empty() ? "" : "; ") + words;
  }
  return layer;
}

// The collective rung: NCCL's best bus bandwidth across nodes at the large message sizes (the
// recording rule's instance_collective:..., placed as layer="collective"), against this path's
// RDMA rung, as FabricCollectiveBelowRdma judges it against the node's. Usage, not a ceiling:
// it never binds. Intra-node collectives (NVLink) and small messages are named, not measured.
Layer CollectiveLayer(const std::vector<CollectiveFact>& facts, const std::optional<double>& rdma) {
  Layer layer;
  layer.id = "collective";
  layer.title = "NCCL collectives";
  layer.ceiling = false;
  const CollectiveFact* best = nullptr;
  for (const CollectiveFact& f : facts) {
    const bool judged =
        f.scope == "inter_node" && (f.message_size == "256MiB-4GiB" || f.message_size == "4GiB+");
    if (judged && (best == nullptr || f.bytes_per_second > best->bytes_per_second)) best = &f;
  }
  if (best == nullptr) {
    layer.status = "no collective across nodes at 256 MiB or more (" +
                   std::to_string(facts.size()) + " other measurement" +
                   (facts.size() == 1 ? "" : "s") + ")";
    return layer;
  }
  layer.bytes_per_second = best->bytes_per_second;
  layer.detail = best->collective + " bus bandwidth across nodes, " + best->message_size +
                 " messages (" + best->source + ")";
  if (rdma && *rdma > 0) {
    layer.detail += ", " + FormatPercent(best->bytes_per_second / *rdma) + " of the RDMA rung";
  }
  return layer;
}

// Who uses RDMA on this path: the processes whose connected queue pairs name the peer (their
// rdma_cm id's destination), and how many more QPs connected without rdma_cm the kernel cannot
// place on any path. A fact, not a bar: the kernel keeps objects, not per-process bytes.
Layer RdmaUsersLayer(const std::map<std::string, double>* on_path,
                     const std::map<std::string, double>* unplaced) {
  Layer layer;
  layer.id = "rdma_users";
  layer.title = "RDMA queue pairs";
  layer.ceiling = false;
  auto list = [](const std::map<std::string, double>& by_command) {
    std::string out;
    for (const auto& [command, n] : by_command) {
      out += (out.empty() ? "" : ", ") + command + " " + Printf("%.0f", n);
    }
    return out;
  };
  if (on_path != nullptr) layer.status = "to this peer: " + list(*on_path);
  if (unplaced != nullptr) {
    layer.status += (layer.status.empty() ? "" : "; ") +
                    std::string("peer unknown (connected without rdma_cm): ") + list(*unplaced);
  }
  return layer;
}

// Each shape is named on the evidence of the alert that names it (the table in
// docs/probes/scheduled.md#the-ladder-page): a verdict alone is shown on its layer, not as a
// shape, where the rules judge the shape by other numbers.
void DetectShapes(const LadderInput& input, Ladder& ladder) {
  const PassiveFacts& f = input.facts;
  auto& shapes = ladder.shapes;
  auto name = [&](std::string id, std::string words) {
    shapes.push_back({std::move(id), std::move(words)});
  };
  // Shape 14: FabricNicSlotLimited, FabricPcieLinkDowntrained, FabricPciePathBelowLineRate,
  // each on its own evidence (a slot-limited path is also below the line rate).
  if (f.pcie_slot_limited && f.pcie_capable && f.line_rate &&
      *f.pcie_capable < kPcieLineRatio * *f.line_rate) {
    std::string s = "NIC in a slot narrower than the card";
    if (f.pcie_width > 0) {
      s += " (x" + std::to_string(f.pcie_width) +
           (f.pcie_capable_width > f.pcie_width ? ", card x" + std::to_string(f.pcie_capable_width)
                                                : std::string()) +
           ")";
    }
    s += ": even fully trained its PCIe path carries " + FormatRate(*f.pcie_capable) +
         ", below the " + FormatRate(*f.line_rate) + " line rate";
    name("pcie_slot_limited", s);
  }
  if (f.pcie_downtrained_hops > 0) {
    name("pcie_downtrained", "PCIe link trained below what both ends support (" +
                                 std::to_string(f.pcie_downtrained_hops) + " hop" +
                                 (f.pcie_downtrained_hops > 1 ? "s" : "") + " downtrained)");
  }
  if (f.pcie_current && f.line_rate && *f.pcie_current < kPcieLineRatio * *f.line_rate) {
    name("pcie_below_line_rate", "PCIe link of the NIC (" + FormatRate(*f.pcie_current) +
                                     ") is below its line rate (" + FormatRate(*f.line_rate) + ")");
  }
  // Shape 1 (FabricSocketBufferBelowBdp): line rate x the longest TCP path RTT of the node
  // (TCP's minimum RTT) against every socket-buffer maximum. The probes' window verdicts are
  // shown on their layers; the receiver's window is the far end's buffers.
  if (f.line_rate && !f.socket_buffer_max.empty()) {
    double rtt = -1;
    for (Rung rung : {Rung::kTcpMulti, Rung::kTcpSingle}) {
      for (const ProbeRecord* r : NodeRecords(input, rung)) {
        rtt = std::max(rtt, Value(*r, ProbeValue::kMinRtt));
      }
    }
    const double bdp = *f.line_rate * rtt * kBdpFactor;
    std::string below;
    for (const auto& [sysctl, bytes] : f.socket_buffer_max) {
      if (bytes < bdp) below += (below.empty() ? "" : ", ") + sysctl + " is " + Bytes(bytes);
    }
    if (rtt > 0 && !below.empty()) {
      name("socket_buffer_below_bdp", "socket buffers below the bandwidth-delay product (" +
                                          FormatRate(*f.line_rate) + " x path RTT " + Seconds(rtt) +
                                          " = " + Bytes(bdp) + "; " + below + ")");
    }
  }
  // Shape 3 (FabricProbeStreamLimited): a stream-limited result whose stream sweep reached
  // more with more streams.
  for (Direction direction : probe::InfoOf(Rung::kTcpMulti).directions) {
    const ProbeRecord* multi = Find(input, Rung::kTcpMulti, direction);
    const ProbeRecord* sweep = Find(input, Rung::kTcpMultiSweep, direction);
    if (multi == nullptr || sweep == nullptr || !Raised(*multi, Verdict::kStreamLimited)) continue;
    const double streams = Value(*multi, ProbeValue::kStreams);
    const double sweep_streams = Value(*sweep, ProbeValue::kStreams);
    const double rate = Value(*multi, ProbeValue::kThroughput);
    const double sweep_rate = Value(*sweep, ProbeValue::kThroughput);
    if (rate >= 0 && sweep_rate > kSweepGain * rate && streams >= 0 && sweep_streams > streams) {
      name("stream_limited",
           Printf("N-stream TCP is stream-limited: %.0f streams", streams) + " × what one stream " +
               "moved; the stream sweep reached " + FormatRate(sweep_rate) +
               Printf(" with %.0f streams (a stream-count artefact)", sweep_streams));
      break;
    }
  }
  // FabricProbeHarnessLimited, per rung: results that measure the probe harness or a shared
  // path (cpu_bound, contended), not the fabric. The 1-stream rung is one core's ceiling by
  // definition: its cpu_bound verdict is shown on its layer.
  for (Rung rung : {Rung::kRdma, Rung::kTcpMulti, Rung::kStorageRead, Rung::kStorageWrite}) {
    const RungInfo& spec = probe::InfoOf(rung);
    bool cpu = false, contended = false;
    for (const ProbeRecord* r : NodeRecords(input, rung)) {
      if (PerPath(spec) && r->key.target != input.peer) continue;
      if (!HarnessLimited(*r)) continue;
      cpu = cpu || Raised(*r, Verdict::kCpuBound);
      contended = contended || Raised(*r, Verdict::kContended);
    }
    if (!cpu && !contended) continue;
    std::string why = cpu && contended ? "CPU-bound and contended"
                      : cpu            ? "CPU-bound"
                                       : "other traffic shared the path (contended)";
    name("harness_limited_" + std::string(spec.label),
         std::string(spec.title) + " " + why + ": a harness ceiling, not the fabric");
  }
  // Shape 10 (FabricTransmitAsymmetry), per node, on the latest results (the alert waits until
  // every send of txRxWindow is slow): the best N-stream send that shared no path
  // (cpu_bound kept: a CPU-starved transmit side is the shape), on paths whose route is the
  // fabric's, against the best clean receive (neither cpu_bound nor contended).
  double send = -1, receive = -1;
  for (const ProbeRecord* r : NodeRecords(input, Rung::kTcpMulti)) {
    const double rate = Value(*r, ProbeValue::kThroughput);
    if (r->key.direction == Direction::kSend && !Raised(*r, Verdict::kContended) &&
        !WrongEgress(input, r->key.target)) {
      send = std::max(send, rate);
    }
    if (r->key.direction == Direction::kReceive && !Raised(*r, Verdict::kContended) &&
        !Raised(*r, Verdict::kCpuBound)) {
      receive = std::max(receive, rate);
    }
  }
  if (send >= 0 && receive > 0 && send < kTxRxRatio * receive) {
    name("tx_rx_asymmetry", "this node sends slower than it receives: " + FormatRate(send) +
                                " sent, " + FormatRate(receive) +
                                " received at best (TX/RX asymmetry)");
  }
  // Shape 13: FabricRouteUnexpectedInterface, FabricJumboFramesFailing.
  if (const ProbeRecord* path = Find(input, Rung::kPath)) {
    if (Value(*path, ProbeValue::kEgressMatchesExpected) == 0) {
      auto egress = path->info.find("egress_interface");
      auto expected = path->info.find("expected_interface");
      name("route_unexpected_interface",
           "route leaves through " + (egress != path->info.end() ? egress->second : "?") +
               ", expected " + (expected != path->info.end() ? expected->second : "?"));
    }
    if (Value(*path, ProbeValue::kJumboFramesPass) == 0) {
      double size = Value(*path, ProbeValue::kJumboFrameBytes);
      name("jumbo_frames_failing",
           "jumbo frames fail on this path (MTU)" +
               (size > 0 ? Printf(": a %.0f-byte echo with Don't Fragment set got no answer", size)
                         : std::string()));
    }
  }
  // Shape 12 (FabricStorageLatencyBound): one I/O at a time is slow per I/O and the loaded run
  // moves several times more.
  for (auto [rung, depth1] : {std::pair{Rung::kStorageRead, Rung::kStorageReadDepth1},
                              std::pair{Rung::kStorageWrite, Rung::kStorageWriteDepth1}}) {
    const ProbeRecord* loaded = Find(input, rung);
    const ProbeRecord* one = Find(input, depth1);
    if (loaded == nullptr || one == nullptr || loaded->key.target != one->key.target) continue;
    const double p50 = Value(*one, ProbeValue::kLatencyP50);
    const double one_rate = Value(*one, ProbeValue::kThroughput);
    const double loaded_rate = Value(*loaded, ProbeValue::kThroughput);
    if (p50 < kStorageLatencySeconds || one_rate < 0 ||
        loaded_rate < kStorageLatencyGain * one_rate) {
      continue;
    }
    const std::string what(probe::InfoOf(rung).title);
    const double p99 = Value(*loaded, ProbeValue::kLatencyP99);
    name(std::string(probe::InfoOf(rung).label) + "_latency_bound",
         what + " latency-bound" + (p99 > 0 ? " (p99 " + Seconds(p99) + ")" : std::string()) +
             ": one I/O at a time moves " + FormatRate(one_rate) + " at " + Seconds(p50) +
             " per I/O, the loaded run " + FormatRate(loaded_rate));
  }
  // FabricTransfersFarBelowLadder: while real bulk transfers move at least their floor in one
  // direction (a fraction of the line rate, else of the best proven N-stream result of the
  // path: instance_target:fabric_transfers_floor_bytes_per_second:max, from this end's NIC),
  // their sum is far below what the N-stream TCP probe proved uncontended on the same path
  // and direction, over the rules' transferWindow (facts.windowed).
  const auto& windowed = input.facts.windowed;
  if (auto flows = windowed.transfers.find(input.peer); flows != windowed.transfers.end()) {
    double best = -1;
    for (Direction direction : probe::InfoOf(Rung::kTcpMulti).directions) {
      best = std::max(best, ProvenUncontended(input, direction).value_or(-1));
    }
    const double capacity = f.line_rate && *f.line_rate > 0 ? *f.line_rate : best;
    const double least = std::max(kTransferMinPathRatio * capacity, kTransferMinBytesPerSecond);
    for (Direction direction : probe::InfoOf(Rung::kTcpMulti).directions) {
      auto moved = flows->second.find(std::string(probe::DirectionName(direction)));
      const std::optional<double> proved = ProvenUncontended(input, direction);
      // Judged while the transfers move: one that ended inside the window is not slow.
      auto peer_now = input.facts.transfers.find(input.peer);
      const bool moving_now = peer_now != input.facts.transfers.end() &&
                              peer_now->second.count(std::string(probe::DirectionName(direction)));
      if (!moving_now || moved == flows->second.end() || capacity <= 0 || moved->second <= least ||
          !proved || *proved <= 0 || moved->second / *proved >= kTransferCriticalRatio) {
        continue;
      }
      const std::string words = direction == Direction::kSend ? "send" : "receive";
      const std::string over =
          windowed.window_seconds <= 0 ? std::string()
          : windowed.window_seconds < 60
              ? Printf(" over the last %.0f s", windowed.window_seconds)
              : Printf(" over the last %.0f min", windowed.window_seconds / 60);
      name("transfers_below_ladder",
           "real transfers " + words + " " + FormatRate(moved->second) + over + ", " +
               FormatPercent(moved->second / *proved) + " of the " + FormatRate(*proved) +
               " the N-stream TCP probe proved on this path: the applications, not the fabric, "
               "are the limit" +
               ApplicationsWords(windowed.applications, input.peer, words));
      break;
    }
  }
}

}  // namespace

namespace {

// True when `application` is one of `alternation`'s names ("ssh|scp|sftp"), as the rules'
// application=~"..." matches it.
bool OneOf(std::string_view alternation, std::string_view application) {
  while (!alternation.empty()) {
    const size_t bar = alternation.find('|');
    if (alternation.substr(0, bar) == application) return true;
    if (bar == std::string_view::npos) break;
    alternation.remove_prefix(bar + 1);
  }
  return false;
}

// A peer's applications in one direction, the busiest first: the one to look at.
std::vector<std::pair<double, std::string>> RankedApplications(const ApplicationRates& facts,
                                                               const std::string& peer,
                                                               const std::string& direction) {
  std::vector<std::pair<double, std::string>> ranked;
  auto by_peer = facts.find(peer);
  if (by_peer == facts.end()) return ranked;
  auto by_direction = by_peer->second.find(direction);
  if (by_direction == by_peer->second.end()) return ranked;
  for (const auto& [application, rate] : by_direction->second) {
    ranked.emplace_back(rate, application);
  }
  std::sort(ranked.begin(), ranked.end(), std::greater<>());
  return ranked;
}

}  // namespace

std::string ApplicationNames(const ApplicationRates& facts, const std::string& peer,
                             const std::string& direction) {
  std::string out;
  for (const auto& [rate, application] : RankedApplications(facts, peer, direction)) {
    out += (out.empty() ? " by " : ", ") + application;
  }
  return out;
}

std::string ApplicationWords(const std::string& application) {
  // The shapes the rules name on the same flows (their _config's sshApplications and
  // copyApplications; rsync is the field's per-file protocol).
  if (OneOf(rule_config::kSshApplications, application)) {
    return application + " (SSH encryption on a trusted path: ssh, scp, sftp, rsync over ssh)";
  }
  if (application == "rsync") return "rsync (its per-file protocol)";
  if (OneOf(rule_config::kCopyApplications, application)) {
    return application + " (a userspace copy pipeline: dd | socat, tar | nc)";
  }
  return application;
}

std::string ApplicationsWords(const ApplicationRates& facts, const std::string& peer,
                              const std::string& direction) {
  std::string out;
  for (const auto& [rate, application] : RankedApplications(facts, peer, direction)) {
    out += (out.empty() ? ": " : "; ") + ApplicationWords(application) + " " + FormatRate(rate);
  }
  return out;
}

std::string FormatRate(double bytes_per_second) {
  double bits = bytes_per_second * 8;
  if (bits >= 1e11) return Printf("%.0f Gbit/s", bits / 1e9);
  if (bits >= 1e9) return Printf("%.1f Gbit/s", bits / 1e9);
  if (bits >= 1e6) return Printf("%.0f Mbit/s", bits / 1e6);
  return Printf("%.0f kbit/s", bits / 1e3);
}

std::string FormatPercent(double fraction) {
  return Printf(fraction >= 0.1 ? "%.0f%%" : "%.1f%%", fraction * 100);
}

std::string FormatAge(double seconds) {
  if (seconds < 0) return "";
  if (seconds < 120) return std::to_string(static_cast<int>(seconds)) + " s ago";
  if (seconds < 7200) return std::to_string(static_cast<int>(seconds / 60)) + " min ago";
  if (seconds < 172800) return std::to_string(static_cast<int>(seconds / 3600)) + " h ago";
  return std::to_string(static_cast<int>(seconds / 86400)) + " days ago";
}

std::string VerdictWords(const std::string& verdict) {
  if (auto id = probe::VerdictFromName(verdict)) return std::string(probe::InfoOf(*id).words);
  return verdict;
}

std::string VerdictSummary(const Ladder& ladder) {
  std::string raised;
  int checked = 0;
  for (const auto& l : ladder.layers) {
    if (!l.self_checked) continue;
    ++checked;
    for (const auto& v : l.verdicts) {
      if (!raised.empty()) raised += "; ";
      raised += l.title + ": " + VerdictWords(v);
    }
  }
  if (checked == 0) return "No self-checked result yet.";
  if (raised.empty()) return "Self-checks passed on every measured layer.";
  return "Self-checks raised: " + raised + ".";
}

Ladder BuildLadder(const LadderInput& input) {
  Ladder ladder;
  ladder.node = input.node;
  ladder.peer = input.peer;
  ladder.loopback = input.loopback;
  ladder.interface = input.facts.interface;
  ladder.line_rate = input.facts.line_rate;

  Layer line;
  line.id = "line";
  line.title = "NIC line rate";
  line.bytes_per_second = input.facts.line_rate;
  if (input.loopback) {
    line.status = "loopback: no NIC, no line rate";
  } else if (input.facts.interface.empty()) {
    line.status = "unknown: no fabric interface";
  } else if (!line.bytes_per_second) {
    line.status = "unknown: " + input.facts.interface + " reports no speed";
  } else {
    line.detail = input.facts.interface;
  }
  ladder.layers.push_back(line);

  Layer pcie;
  pcie.id = "pcie";
  pcie.title = "PCIe link of the NIC";
  pcie.bytes_per_second = input.facts.pcie_current;
  if (pcie.bytes_per_second) {
    pcie.detail = input.facts.pcie_address;
    if (input.facts.pcie_width > 0) pcie.detail += " x" + std::to_string(input.facts.pcie_width);
    if (input.facts.pcie_capable_width > 0 &&
        input.facts.pcie_capable_width != input.facts.pcie_width) {
      pcie.detail += " (card x" + std::to_string(input.facts.pcie_capable_width) + ")";
    }
  } else {
    pcie.status = input.loopback ? "loopback: no PCIe device" : "unknown: no PCIe link attributes";
  }
  ladder.layers.push_back(pcie);

  for (const auto& spec : probe::Rungs()) {
    if (spec.ladder_layer) ladder.layers.push_back(RungLayer(spec, RecordsOf(input, spec), input));
  }

  Layer transfers;
  transfers.id = "transfers";
  transfers.title = "real transfers";
  transfers.ceiling = false;
  if (auto it = input.facts.transfers.find(input.peer);
      it != input.facts.transfers.end() && !it->second.empty()) {
    // The bar is the busier direction (usage, not a ceiling); the detail names both, each with
    // the applications that move it.
    double busiest = 0;
    for (const auto& [direction, rate] : it->second) {
      busiest = std::max(busiest, rate);
      transfers.detail += (transfers.detail.empty() ? "" : ", ") + direction + " " +
                          FormatRate(rate) +
                          ApplicationNames(input.facts.applications, input.peer, direction);
    }
    transfers.bytes_per_second = busiest;
    transfers.detail +=
        " (" +
        (input.transfers_seen.empty() ? std::string("bulk flows now") : input.transfers_seen) + ")";
  } else {
    transfers.status = !input.transfers_absent_reason.empty() ? input.transfers_absent_reason
                                                              : "no bulk flow to this peer now";
  }
  ladder.layers.push_back(transfers);
  if (!input.facts.collectives.empty()) {
    std::optional<double> rdma;
    for (const Layer& l : ladder.layers) {
      if (l.id == "rdma") rdma = l.bytes_per_second;
    }
    ladder.layers.push_back(CollectiveLayer(input.facts.collectives, rdma));
  }
  if (auto it = input.facts.nfs_mounts.find(input.peer); it != input.facts.nfs_mounts.end()) {
    ladder.layers.push_back(NfsLayer(it->second));
  }
  {
    const auto& qps = input.facts.rdma_queue_pairs;
    auto on_path = qps.find(input.peer);
    auto unplaced = qps.find("unknown");
    if (on_path != qps.end() || unplaced != qps.end()) {
      ladder.layers.push_back(RdmaUsersLayer(on_path != qps.end() ? &on_path->second : nullptr,
                                             unplaced != qps.end() ? &unplaced->second : nullptr));
    }
  }

  // Bars are fractions of line rate when it is known, else of the best measured layer.
  double best = 0;
  for (const auto& l : ladder.layers) {
    if (l.bytes_per_second) best = std::max(best, *l.bytes_per_second);
  }
  if (ladder.line_rate && *ladder.line_rate > 0) {
    ladder.scale_bytes_per_second = *ladder.line_rate;
    ladder.scale_note = "Bars are fractions of the line rate, " + FormatRate(*ladder.line_rate) +
                        (ladder.interface.empty() ? "" : " on " + ladder.interface) +
                        (best > *ladder.line_rate ? "; a layer above it (PCIe headroom) is drawn "
                                                    "full"
                                                  : "") +
                        ".";
    for (auto& l : ladder.layers) {
      if (l.bytes_per_second) l.line_fraction = *l.bytes_per_second / *ladder.line_rate;
    }
  } else {
    ladder.scale_bytes_per_second = best;
    ladder.scale_note = std::string(input.loopback ? "Loopback has no line rate"
                                                   : "Line rate unknown (the interface reports "
                                                     "no speed)") +
                        ": bars are scaled to the best measured layer" +
                        (best > 0 ? ", " + FormatRate(best) : std::string()) + ".";
  }

  for (size_t i = 0; i < ladder.layers.size(); ++i) {
    const Layer& l = ladder.layers[i];
    if (!l.ceiling || !l.bytes_per_second) continue;
    if (ladder.binding < 0 ||
        *l.bytes_per_second < *ladder.layers[ladder.binding].bytes_per_second) {
      ladder.binding = static_cast<int>(i);
    }
  }
  if (ladder.binding >= 0) {
    const Layer& b = ladder.layers[ladder.binding];
    ladder.binding_text = "Binding layer: " + b.title + " at " + FormatRate(*b.bytes_per_second);
    if (b.line_fraction)
      ladder.binding_text += ", " + FormatPercent(*b.line_fraction) + " of line rate";
    ladder.binding_text += ".";
    // Storage binds file transfers; the network's own binding layer is still worth a sentence
    // (it is what the recording rules call the path's binding layer).
    int network = -1;
    for (size_t i = 0; i < ladder.layers.size(); ++i) {
      const Layer& l = ladder.layers[i];
      auto rung = probe::RungFromLabel(l.id);
      const bool storage = rung && !PerPath(probe::InfoOf(*rung));
      if (!l.ceiling || !l.bytes_per_second || storage) continue;
      if (network < 0 || *l.bytes_per_second < *ladder.layers[network].bytes_per_second) {
        network = static_cast<int>(i);
      }
    }
    ladder.network_binding = network;
    if (network >= 0 && network != ladder.binding) {
      const Layer& n = ladder.layers[network];
      ladder.binding_text += " On the network alone: " + n.title + " at " +
                             FormatRate(*n.bytes_per_second) +
                             (n.line_fraction ? ", " + FormatPercent(*n.line_fraction) : "") + ".";
    }
  } else {
    ladder.binding_text = "No layer measured yet.";
  }
  DetectShapes(input, ladder);
  return ladder;
}

}  // namespace fabric::ladder
