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
  auto cpu = [&](const SideCpu& side, const char* who) {
    if (side.max_thread_cpu >= kCpuBoundFraction) {
      c.cpu_bound = true;
      c.notes.push_back(std::string("cpu_bound: a ") + who + " stream thread used " +
                        PercentText(side.max_thread_cpu) + " of a core");
    }
    if (side.host_max_cpu_busy >= kCpuBoundFraction) {
      c.cpu_bound = true;
      c.notes.push_back(std::string("cpu_bound: ") + who + " host CPU " +
                        std::to_string(side.host_max_cpu) + " was " +
                        PercentText(side.host_max_cpu_busy) + " busy");
    }
  };
  cpu(r.local_cpu, "local");
  cpu(r.remote_cpu, "responder");

  if (r.nic_valid) {
    double excess = static_cast<double>(r.nic_bytes) - static_cast<double>(r.expected_nic_bytes);
    double allowed = kContendedExcess * static_cast<double>(r.expected_nic_bytes) + (1 << 20);
    if (excess > allowed) {
      c.contended = true;
      c.notes.push_back("contended: " + r.iface + " moved " + std::to_string(r.nic_bytes) +
                        " bytes, the probe explains " + std::to_string(r.expected_nic_bytes));
    }
  }

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
