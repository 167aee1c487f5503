#include "exporter/ladder/ladder_model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string_view>

#include "active-probes/probe/error_kinds.h"

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
    if (!layer.bytes_per_second || rate < *layer.bytes_per_second) layer.bytes_per_second = rate;
    if (!detail.empty()) detail += ", ";
    if (r->key.direction != Direction::kNone) {
      detail += std::string(probe::DirectionName(r->key.direction)) + " ";
    }
    detail += FormatRate(rate) + ModeWords(*r);
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

void DetectShapes(const LadderInput& input, Ladder& ladder) {
  const PassiveFacts& f = input.facts;
  auto& shapes = ladder.shapes;
  if (f.pcie_slot_limited) {
    std::string s = "NIC in a slot narrower than the card";
    if (f.pcie_width > 0) s += " (x" + std::to_string(f.pcie_width) + ")";
    if (f.pcie_current) s += ": its PCIe path carries " + FormatRate(*f.pcie_current);
    if (f.pcie_capable) s += " of the card's " + FormatRate(*f.pcie_capable);
    shapes.push_back(s);
  } else if (f.pcie_downtrained_hops > 0) {
    shapes.push_back("PCIe link trained below what both ends support (" +
                     std::to_string(f.pcie_downtrained_hops) + " hop" +
                     (f.pcie_downtrained_hops > 1 ? "s" : "") + " downtrained)");
  } else if (f.pcie_current && f.line_rate && *f.pcie_current < *f.line_rate) {
    shapes.push_back("PCIe link of the NIC (" + FormatRate(*f.pcie_current) +
                     ") is below its line rate (" + FormatRate(*f.line_rate) + ")");
  }
  // The TCP shapes: the window verdicts on either rung, the CPU ceiling per rung.
  bool window = false, sndbuf = false;
  double rtt = -1;
  for (Rung rung : {Rung::kTcpMulti, Rung::kTcpSingle}) {
    for (Direction direction : probe::InfoOf(rung).directions) {
      const ProbeRecord* r = Find(input, rung, direction);
      if (r == nullptr) continue;
      if (Raised(*r, Verdict::kReceiverWindowLimited)) {
        window = true;
        rtt = std::max(rtt, Value(*r, ProbeValue::kMinRtt));
      }
      sndbuf = sndbuf || Raised(*r, Verdict::kSendBufferLimited);
    }
  }
  if (window) {
    shapes.push_back("socket buffers below the bandwidth-delay product (receiver window limited" +
                     (rtt > 0 ? ", path RTT " + Seconds(rtt) : std::string()) + ")");
  }
  if (sndbuf) {
    shapes.push_back("send buffer below the bandwidth-delay product (send buffer limited)");
  }
  auto any = [&](Rung rung, Verdict verdict) {
    for (Direction direction : probe::InfoOf(rung).directions) {
      const ProbeRecord* r = Find(input, rung, direction);
      if (r != nullptr && Raised(*r, verdict)) return true;
    }
    return false;
  };
  if (any(Rung::kTcpSingle, Verdict::kCpuBound)) {
    shapes.push_back("single stream CPU-bound: a harness ceiling, not the fabric");
  }
  if (any(Rung::kTcpMulti, Verdict::kCpuBound)) {
    shapes.push_back("N-stream TCP CPU-bound: a harness ceiling, not the fabric");
  }
  if (any(Rung::kTcpMulti, Verdict::kStreamLimited)) {
    shapes.push_back(
        "N-stream TCP is stream-limited: streams × what one stream moved in the probe's mode, "
        "more streams would go faster (a stream-count artefact)");
  }
  if (any(Rung::kTcpMulti, Verdict::kContended) || any(Rung::kRdma, Verdict::kContended)) {
    shapes.push_back("other traffic shared the path while the probe ran (contended)");
  }
  if (any(Rung::kRdma, Verdict::kCongested)) {
    shapes.push_back("RDMA congested: CNPs or receive-buffer drops in the window");
  }
  const ProbeRecord* send = Find(input, Rung::kTcpMulti, Direction::kSend);
  const ProbeRecord* receive = Find(input, Rung::kTcpMulti, Direction::kReceive);
  if (send && receive) {
    double s = Value(*send, ProbeValue::kThroughput);
    double r = Value(*receive, ProbeValue::kThroughput);
    if (s > 0 && r > 0 && std::min(s, r) < 0.8 * std::max(s, r)) {
      shapes.push_back("send and receive differ: " + FormatRate(s) + " sent, " + FormatRate(r) +
                       " received (TX/RX asymmetry)");
    }
  }
  if (const ProbeRecord* path = Find(input, Rung::kPath)) {
    if (Value(*path, ProbeValue::kEgressMatchesExpected) == 0) {
      auto egress = path->info.find("egress_interface");
      auto expected = path->info.find("expected_interface");
      shapes.push_back("route leaves through " +
                       (egress != path->info.end() ? egress->second : "?") + ", expected " +
                       (expected != path->info.end() ? expected->second : "?"));
    }
    if (Value(*path, ProbeValue::kJumboFramesPass) == 0) {
      double size = Value(*path, ProbeValue::kJumboFrameBytes);
      shapes.push_back("jumbo frames fail on this path (MTU)" +
                       (size > 0 ? Printf(": a %.0f-byte echo with Don't Fragment set got no "
                                          "answer",
                                          size)
                                 : std::string()));
    }
  }
  for (Rung rung : {Rung::kStorageRead, Rung::kStorageWrite}) {
    const ProbeRecord* r = Find(input, rung);
    if (r == nullptr) continue;
    std::string what(probe::InfoOf(rung).title);
    if (Raised(*r, Verdict::kLatencyBound)) {
      double p99 = Value(*r, ProbeValue::kLatencyP99);
      shapes.push_back(what + " latency-bound" +
                       (p99 > 0 ? " (p99 " + Seconds(p99) + ")" : std::string()));
    }
    if (Raised(*r, Verdict::kCpuBound)) shapes.push_back(what + " CPU-bound: a harness ceiling");
  }
}

}  // namespace

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
  if (auto it = input.facts.transfers.find(input.peer); it != input.facts.transfers.end()) {
    transfers.bytes_per_second = it->second;
    transfers.detail = "best bulk flow now";
  } else {
    transfers.status = !input.transfers_absent_reason.empty() ? input.transfers_absent_reason
                                                              : "no bulk flow to this peer now";
  }
  ladder.layers.push_back(transfers);

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
  const Layer& t = ladder.layers.back();
  if (ladder.binding >= 0 && t.bytes_per_second &&
      *t.bytes_per_second < 0.5 * *ladder.layers[ladder.binding].bytes_per_second) {
    ladder.shapes.push_back(
        "real transfers reach " +
        FormatPercent(*t.bytes_per_second / *ladder.layers[ladder.binding].bytes_per_second) +
        " of the binding layer: the application or its protocol is the limit");
  }
  return ladder;
}

}  // namespace fabric::ladder
