#include "active-probes/tcp/self_checks.h"

#include <algorithm>
#include <cstdio>

namespace fabric::probe {
std::string PercentText(double f) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.0f%%", f * 100);
  return buf;
}

std::string GbpsText(double bytes_per_second) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.2f Gbit/s", bytes_per_second * 8 / 1e9);
  return buf;
}

void EvaluateSelfChecks(TcpProbeResult& r) {
  SelfChecks& c = r.checks;
  // A busy host CPU limits the probe only where the probe waited on that host: its senders
  // ran out of data (the sending side's threads did not get the CPU) or its receivers did not
  // drain (the window closed). A host busy while the link set the pace (a shaped or congested
  // path: senders always had data, the window stayed open) measured the path, not the host.
  // `sending`: the direction in which this side sends; `receiving`: in which it receives.
  auto host_held = [&](Direction sending, Direction receiving) -> std::string {
    for (const auto& d : r.directions) {
      if (d.direction == sending &&
          (d.sender_busy_fraction < 0 || d.sender_busy_fraction < kSenderStarvedBelow)) {
        return d.sender_busy_fraction < 0
                   ? "senders' busy time unknown"
                   : "its senders had data queued " + PercentText(d.sender_busy_fraction) +
                         " of the window";
      }
      if (d.direction == receiving && d.rwnd_limited_fraction >= kWindowLimitedFraction) {
        return "its receivers held the window closed " + PercentText(d.rwnd_limited_fraction) +
               " of busy time";
      }
    }
    return "";
  };
  auto cpu = [&](const SideCpu& side, const char* who, Direction sending, Direction receiving) {
    if (side.max_thread_cpu >= kCpuBoundFraction) {
      c.cpu_bound = true;
      c.notes.push_back(std::string("cpu_bound: a ") + who + " stream thread used " +
                        PercentText(side.max_thread_cpu) + " of a core");
    }
    if (side.host_max_cpu_busy >= kCpuBoundFraction) {
      std::string held = host_held(sending, receiving);
      if (!held.empty()) {
        c.cpu_bound = true;
        c.notes.push_back(std::string("cpu_bound: ") + who + " host CPU " +
                          std::to_string(side.host_max_cpu) + " was " +
                          PercentText(side.host_max_cpu_busy) + " busy and " + held);
      }
    }
  };
  cpu(r.local_cpu, "local", Direction::kSend, Direction::kReceive);
  cpu(r.remote_cpu, "responder", Direction::kReceive, Direction::kSend);

  // Either end's NIC carrying more than the probe explains: the path was shared, at this end
  // or at the responder's.
  auto nic = [&](bool valid, uint64_t bytes, uint64_t expected, const std::string& iface,
                 const char* who) {
    if (!valid) return;
    double excess = static_cast<double>(bytes) - static_cast<double>(expected);
    double allowed = kContendedExcess * static_cast<double>(expected) + (1 << 20);
    if (excess > allowed) {
      c.contended = true;
      c.notes.push_back(std::string("contended: ") + who + " " + iface + " moved " +
                        std::to_string(bytes) + " bytes, the probe explains " +
                        std::to_string(expected));
    }
  };
  nic(r.nic_valid, r.nic_bytes, r.expected_nic_bytes, r.iface, "local");
  nic(r.responder_nic_valid, r.responder_nic_bytes, r.responder_expected_nic_bytes,
      r.responder_iface, "responder");

  for (const auto& d : r.directions) {
    const std::string direction(DirectionName(d.direction));
    if (d.rwnd_limited_fraction >= kWindowLimitedFraction) {
      c.receiver_window_limited = true;
      c.notes.push_back("receiver_window_limited: " + direction + " senders waited on the " +
                        "receive window " + PercentText(d.rwnd_limited_fraction) + " of busy time");
    } else if (d.window_bound_ratio >= kWindowBoundRatio) {
      // At microsecond RTTs the kernel's rwnd-limited timer catches only part
      // of it; the arithmetic does not miss it: the rate is window / RTT.
      c.receiver_window_limited = true;
      c.notes.push_back("receiver_window_limited: " + direction + " streams ran at " +
                        PercentText(d.window_bound_ratio) + " of receive window / RTT");
    }
    if (d.sndbuf_limited_fraction >= kWindowLimitedFraction) {
      c.send_buffer_limited = true;
      c.notes.push_back("send_buffer_limited: " + direction + " senders were send-buffer " +
                        "limited " + PercentText(d.sndbuf_limited_fraction) + " of busy time");
    }
    // Aggregate = streams x a per-stream ceiling below line rate: each stream
    // is held by something of its own (its thread's core, its window), the
    // streams are even, and the link had room.
    bool below_line =
        r.link_bits_per_second <= 0 || d.bytes_per_second * 8 < 0.9 * r.link_bits_per_second;
    bool even = d.per_stream.max > 0 && d.per_stream.min >= 0.8 * d.per_stream.max;
    bool per_stream_cap = d.max_sender_thread_cpu >= kCpuBoundFraction ||
                          d.max_receiver_thread_cpu >= kCpuBoundFraction ||
                          d.rwnd_limited_fraction >= kWindowLimitedFraction ||
                          d.sndbuf_limited_fraction >= kWindowLimitedFraction;
    if (below_line && even && per_stream_cap) {
      c.stream_limited = true;
      c.notes.push_back("stream_limited: " + direction + " aggregate " +
                        GbpsText(d.bytes_per_second) + " = " + std::to_string(d.streams) + " x " +
                        GbpsText(d.per_stream.median) +
                        " per stream, each stream at its own ceiling; add streams (--sweep)");
    }
  }
}

void AnalyzeSweep(SweepResult& sweep) {
  if (sweep.runs.empty()) return;
  std::vector<double> agg;
  for (const auto& r : sweep.runs) {
    agg.push_back(r.bytes_per_second);
    sweep.best_bytes_per_second = std::max(sweep.best_bytes_per_second, r.bytes_per_second);
    for (const auto& d : r.directions) {
      sweep.per_stream_ceiling_bytes_per_second =
          std::max(sweep.per_stream_ceiling_bytes_per_second, d.per_stream.max);
    }
  }
  size_t sat = 0;
  while (sat < agg.size() && agg[sat] < 0.95 * sweep.best_bytes_per_second) ++sat;
  bool last = sat + 1 == agg.size();
  bool still_growing = last && agg.size() > 1 && agg[sat] >= 1.10 * agg[sat - 1];
  if (still_growing) {
    sweep.stream_limited = true;
    sweep.note = "aggregate still growing at " + std::to_string(sweep.runs[sat].streams) +
                 " streams: the plateau is a stream-count artefact, sweep higher";
    return;
  }
  sweep.saturating_streams = sweep.runs[sat].streams;
  sweep.note = "aggregate stops growing at " + std::to_string(*sweep.saturating_streams) +
               " streams (within 5% of the best, " + GbpsText(sweep.best_bytes_per_second) + ")";
}

}  // namespace fabric::probe
