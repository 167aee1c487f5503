#include "exporter/ladder/ladder_model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string_view>

namespace fabric::ladder {
namespace {

std::string Printf(const char* format, double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, value);
  return buf;
}

// The probe rungs of a ladder in rung order, with their titles.
struct RungSpec {
  const char* id;
  const char* title;
  bool per_path;  // A result per peer; otherwise per node (storage).
  bool ceiling;
};
constexpr RungSpec kRungs[] = {
    {"rdma", "RDMA write", true, true},
    {"tcp_multi", "N-stream TCP", true, true},
    {"tcp_single", "1-stream TCP", true, false},
    {"storage_read", "storage read", false, true},
    {"storage_write", "storage write", false, true},
};

std::string FailureWords(const ProbeRecord& r) {
  const std::string& reason = r.failure_reason;
  if (reason == "no_device") return "no RDMA device on this node";
  if (reason == "no_port") return "no active RDMA port";
  if (reason == "unreachable") return "peer unreachable";
  if (reason == "busy") return "peer's responder stayed busy";
  if (reason == "auth") return "authentication failed (shared secret)";
  if (reason == "refused") return "connection refused (is the responder running?)";
  if (reason == "timeout") return "timed out";
  if (reason == "rejected") return "rejected by the responder's limits";
  std::string words = "failed";
  if (!reason.empty()) words += " (" + reason + ")";
  if (!r.failure_detail.empty()) words += ": " + r.failure_detail;
  return words;
}

double Value(const ProbeRecord& r, const char* name, double fallback = -1) {
  auto it = r.values.find(name);
  return it == r.values.end() ? fallback : it->second;
}

bool Raised(const ProbeRecord& r, const char* verdict) {
  auto it = r.verdicts.find(verdict);
  return it != r.verdicts.end() && it->second;
}

std::string Seconds(double s) {
  if (s < 1e-3) return Printf("%.0f µs", s * 1e6);
  if (s < 1) return Printf("%.1f ms", s * 1e3);
  return Printf("%.2f s", s);
}

// One probe rung: the worse direction is the layer's number (a path is as fast as its slower
// direction), both are in the detail.
Layer RungLayer(const RungSpec& spec, const std::vector<const ProbeRecord*>& records,
                const LadderInput& input) {
  Layer layer;
  layer.id = spec.id;
  layer.title = spec.title;
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
    double rate = Value(*r, "throughput_bytes_per_second");
    if (rate < 0) continue;
    layer.self_checked = true;
    if (!layer.bytes_per_second || rate < *layer.bytes_per_second) layer.bytes_per_second = rate;
    if (!detail.empty()) detail += ", ";
    if (!r->key.direction.empty()) detail += r->key.direction + " ";
    detail += FormatRate(rate);
    for (const auto& [verdict, raised] : r->verdicts) {
      if (raised && std::find(layer.verdicts.begin(), layer.verdicts.end(), verdict) ==
                        layer.verdicts.end()) {
        layer.verdicts.push_back(verdict);
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
  if (double streams = Value(first, "streams"); streams > 1 && spec.per_path) {
    detail += Printf(std::string(spec.id) == "rdma" ? "; %.0f QPs" : "; %.0f streams", streams);
  }
  if (double p99 = Value(first, "latency_p99_seconds"); p99 > 0) detail += "; p99 " + Seconds(p99);
  if (auto fs = first.info.find("filesystem"); fs != first.info.end() && !fs->second.empty()) {
    detail += "; " + fs->second;
  }
  layer.detail = detail;
  if (!failure.empty()) layer.detail += "; other direction " + failure;
  return layer;
}

// The records of one rung on this path (network rungs) or this node (storage).
std::vector<const ProbeRecord*> RecordsOf(const LadderInput& input, const RungSpec& spec) {
  std::vector<const ProbeRecord*> out;
  for (const auto& r : input.records) {
    if (r.key.probe != spec.id) continue;
    if (spec.per_path && r.key.target != input.peer) continue;
    out.push_back(&r);
  }
  // Send before receive, as people say it.
  std::stable_sort(out.begin(), out.end(), [](const ProbeRecord* a, const ProbeRecord* b) {
    return (a->key.direction == "send") > (b->key.direction == "send");
  });
  return out;
}

const ProbeRecord* Find(const LadderInput& input, const char* probe, const char* direction) {
  for (const auto& r : input.records) {
    const bool per_node = std::string_view(probe).starts_with("storage_");
    if (r.key.probe == probe && (per_node || r.key.target == input.peer) &&
        (direction == nullptr || r.key.direction == direction) && r.success &&
        r.timestamp_seconds > 0) {
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
  for (const char* rung : {"tcp_multi", "tcp_single"}) {
    for (const char* direction : {"send", "receive"}) {
      const ProbeRecord* r = Find(input, rung, direction);
      if (r == nullptr) continue;
      if (Raised(*r, "receiver_window_limited")) {
        window = true;
        rtt = std::max(rtt, Value(*r, "rtt_seconds"));
      }
      sndbuf = sndbuf || Raised(*r, "send_buffer_limited");
    }
  }
  if (window) {
    shapes.push_back("socket buffers below the bandwidth-delay product (receiver window limited" +
                     (rtt > 0 ? ", RTT " + Seconds(rtt) : std::string()) + ")");
  }
  if (sndbuf) {
    shapes.push_back("send buffer below the bandwidth-delay product (send buffer limited)");
  }
  auto any = [&](const char* rung, const char* verdict) {
    for (const char* direction : {"send", "receive", ""}) {
      const ProbeRecord* r = Find(input, rung, direction);
      if (r != nullptr && Raised(*r, verdict)) return true;
    }
    return false;
  };
  if (any("tcp_single", "cpu_bound")) {
    shapes.push_back("single stream CPU-bound: a harness ceiling, not the fabric");
  }
  if (any("tcp_multi", "cpu_bound")) {
    shapes.push_back("N-stream TCP CPU-bound: a harness ceiling, not the fabric");
  }
  if (any("tcp_multi", "stream_limited")) {
    shapes.push_back(
        "N-stream TCP is stream-limited: streams × the per-stream ceiling, more streams would go "
        "faster (a stream-count artefact)");
  }
  if (any("tcp_multi", "contended") || any("rdma", "contended")) {
    shapes.push_back("other traffic shared the path while the probe ran (contended)");
  }
  if (any("rdma", "congested")) {
    shapes.push_back("RDMA congested: CNPs or receive-buffer drops in the window");
  }
  const ProbeRecord* send = Find(input, "tcp_multi", "send");
  const ProbeRecord* receive = Find(input, "tcp_multi", "receive");
  if (send && receive) {
    double s = Value(*send, "throughput_bytes_per_second");
    double r = Value(*receive, "throughput_bytes_per_second");
    if (s > 0 && r > 0 && std::min(s, r) < 0.8 * std::max(s, r)) {
      shapes.push_back("send and receive differ: " + FormatRate(s) + " sent, " + FormatRate(r) +
                       " received (TX/RX asymmetry)");
    }
  }
  if (const ProbeRecord* path = Find(input, "path", nullptr)) {
    if (Value(*path, "egress_matches_expected") == 0) {
      auto egress = path->info.find("egress_interface");
      auto expected = path->info.find("expected_interface");
      shapes.push_back("route leaves through " +
                       (egress != path->info.end() ? egress->second : "?") + ", expected " +
                       (expected != path->info.end() ? expected->second : "?"));
    }
    if (Value(*path, "jumbo_frames_pass") == 0) {
      double size = Value(*path, "jumbo_frame_bytes");
      shapes.push_back("jumbo frames fail on this path (MTU)" +
                       (size > 0 ? Printf(": a %.0f-byte echo with Don't Fragment set got no "
                                          "answer",
                                          size)
                                 : std::string()));
    }
  }
  for (const char* rung : {"storage_read", "storage_write"}) {
    const ProbeRecord* r = Find(input, rung, nullptr);
    if (r == nullptr) continue;
    std::string what = std::string(rung) == "storage_read" ? "storage read" : "storage write";
    if (Raised(*r, "latency_bound")) {
      double p99 = Value(*r, "latency_p99_seconds");
      shapes.push_back(what + " latency-bound" +
                       (p99 > 0 ? " (p99 " + Seconds(p99) + ")" : std::string()));
    }
    if (Raised(*r, "cpu_bound")) shapes.push_back(what + " CPU-bound: a harness ceiling");
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
  if (verdict == "cpu_bound") return "CPU-bound: a harness ceiling, not the fabric";
  if (verdict == "contended") return "contended: other traffic shared the path";
  if (verdict == "stream_limited") return "stream-limited: streams × the per-stream ceiling";
  if (verdict == "receiver_window_limited") return "receiver window limited";
  if (verdict == "send_buffer_limited") return "send buffer limited";
  if (verdict == "latency_bound") return "latency-bound: throughput = in-flight / latency";
  if (verdict == "congested") return "congested: CNPs or receive-buffer drops";
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

  for (const auto& spec : kRungs)
    ladder.layers.push_back(RungLayer(spec, RecordsOf(input, spec), input));

  Layer transfers;
  transfers.id = "transfers";
  transfers.title = "real transfers";
  transfers.ceiling = false;
  if (auto it = input.facts.transfers.find(input.peer); it != input.facts.transfers.end()) {
    transfers.bytes_per_second = it->second;
    transfers.detail = "best bulk flow now";
  } else {
    auto reason = input.absent_reasons.find("transfers");
    transfers.status =
        reason != input.absent_reasons.end() ? reason->second : "no bulk flow to this peer now";
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
      if (!l.ceiling || !l.bytes_per_second || l.id.starts_with("storage_")) continue;
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
