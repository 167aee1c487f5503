#include "active-probes/tcp/report.h"

#include <cstdio>

#include "common/json.h"

namespace fabric::probe {
namespace {

std::string Gbps(double bytes_per_second) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.3f", bytes_per_second * 8 / 1e9);
  return buf;
}

std::string CpuJson(const SideCpu& c) {
  return "{\"user_seconds\":" + JsonNumber(c.user_seconds) +
         ",\"system_seconds\":" + JsonNumber(c.system_seconds) +
         ",\"max_stream_thread_core_fraction\":" + JsonNumber(c.max_thread_cpu) +
         ",\"host_busy_fraction\":" + JsonNumber(c.host_busy) +
         ",\"host_max_cpu_busy_fraction\":" + JsonNumber(c.host_max_cpu_busy) +
         ",\"host_max_cpu\":" + std::to_string(c.host_max_cpu) +
         ",\"host_softirq_seconds\":" + JsonNumber(c.softirq_seconds) + "}";
}

std::string DirectionJson(const DirectionResult& d) {
  std::string per;
  for (size_t i = 0; i < d.stream_bytes_per_second.size(); ++i) {
    per += (i ? "," : "") + JsonNumber(d.stream_bytes_per_second[i]);
  }
  return "{\"direction\":" + JsonString(DirectionName(d.direction)) +
         ",\"streams\":" + std::to_string(d.streams) + ",\"bytes\":" + std::to_string(d.bytes) +
         ",\"window_seconds\":" + JsonNumber(d.window_seconds) +
         ",\"bytes_per_second\":" + JsonNumber(d.bytes_per_second) +
         ",\"per_stream_bytes_per_second\":{\"min\":" + JsonNumber(d.per_stream.min) +
         ",\"median\":" + JsonNumber(d.per_stream.median) +
         ",\"max\":" + JsonNumber(d.per_stream.max) + ",\"each\":[" + per +
         "]},\"retransmits\":" + std::to_string(d.retransmits) +
         ",\"rtt_seconds\":" + JsonNumber(d.rtt_seconds) +
         ",\"min_rtt_seconds\":" + JsonNumber(d.min_rtt_seconds) +
         ",\"cwnd_segments\":" + std::to_string(d.cwnd_segments) +
         ",\"receiver_window_limited_fraction\":" + JsonNumber(d.rwnd_limited_fraction) +
         ",\"sender_busy_fraction\":" + JsonNumber(d.sender_busy_fraction) +
         ",\"window_bound_ratio\":" + JsonNumber(d.window_bound_ratio) +
         ",\"send_buffer_limited_fraction\":" + JsonNumber(d.sndbuf_limited_fraction) +
         ",\"unsent_limit_bytes\":" +
         (d.unsent_limit < 0 ? std::string("null") : std::to_string(d.unsent_limit)) +
         ",\"mss_bytes\":" + std::to_string(d.mss) +
         ",\"path_mtu_bytes\":" + std::to_string(d.path_mtu) +
         ",\"zerocopy_sends\":" + std::to_string(d.zerocopy_sends) +
         ",\"zerocopy_copied_sends\":" + std::to_string(d.zerocopy_copied) +
         ",\"max_sender_thread_core_fraction\":" + JsonNumber(d.max_sender_thread_cpu) +
         ",\"max_receiver_thread_core_fraction\":" + JsonNumber(d.max_receiver_thread_cpu) + "}";
}

void Line(std::string& out, const char* fmt, auto... args) {
  char buf[512];
  std::snprintf(buf, sizeof(buf), fmt, args...);
  out += buf;
}

}  // namespace

std::string ResultToJson(const TcpProbeResult& r) {
  std::string dirs, notes;
  for (size_t i = 0; i < r.directions.size(); ++i) {
    dirs += (i ? "," : "") + DirectionJson(r.directions[i]);
  }
  for (size_t i = 0; i < r.checks.notes.size(); ++i) {
    notes += (i ? "," : "") + JsonString(r.checks.notes[i]);
  }
  const SelfChecks& c = r.checks;
  return "{\"peer\":" + JsonString(r.peer) + ",\"streams\":" + std::to_string(r.streams) +
         ",\"direction\":" + JsonString(r.direction) + ",\"mode\":" + JsonString(r.mode) +
         ",\"block_bytes\":" + std::to_string(r.block) +
         ",\"recv_block_bytes\":" + std::to_string(r.recv_block) +
         ",\"duration_seconds\":" + JsonNumber(r.duration_seconds) +
         ",\"warmup_seconds\":" + JsonNumber(r.warmup_seconds) +
         ",\"bytes\":" + std::to_string(r.bytes) +
         ",\"bytes_per_second\":" + JsonNumber(r.bytes_per_second) + ",\"directions\":[" + dirs +
         "],\"cpu\":{\"local\":" + CpuJson(r.local_cpu) +
         ",\"responder\":" + CpuJson(r.remote_cpu) +
         "},\"nic\":{\"interface\":" + JsonString(r.iface) +
         ",\"link_bits_per_second\":" + JsonNumber(r.link_bits_per_second) +
         ",\"counters_valid\":" + JsonBool(r.nic_valid) +
         ",\"bytes\":" + std::to_string(r.nic_bytes) +
         ",\"probe_explained_bytes\":" + std::to_string(r.expected_nic_bytes) +
         ",\"responder\":{\"interface\":" + JsonString(r.responder_iface) +
         ",\"link_bits_per_second\":" + JsonNumber(r.responder_link_bits_per_second) +
         ",\"counters_valid\":" + JsonBool(r.responder_nic_valid) +
         ",\"bytes\":" + std::to_string(r.responder_nic_bytes) +
         ",\"probe_explained_bytes\":" + std::to_string(r.responder_expected_nic_bytes) + "}" +
         "},\"self_checks\":{\"cpu_bound\":" + JsonBool(c.cpu_bound) +
         ",\"contended\":" + JsonBool(c.contended) +
         ",\"stream_limited\":" + JsonBool(c.stream_limited) +
         ",\"receiver_window_limited\":" + JsonBool(c.receiver_window_limited) +
         ",\"send_buffer_limited\":" + JsonBool(c.send_buffer_limited) + ",\"notes\":[" + notes +
         "]}}";
}

std::string SweepToJson(const SweepResult& s) {
  std::string runs;
  for (size_t i = 0; i < s.runs.size(); ++i) runs += (i ? "," : "") + ResultToJson(s.runs[i]);
  return "{\"sweep\":{\"saturating_streams\":" +
         (s.saturating_streams ? std::to_string(*s.saturating_streams) : "null") +
         ",\"per_stream_ceiling_bytes_per_second\":" +
         JsonNumber(s.per_stream_ceiling_bytes_per_second) +
         ",\"best_bytes_per_second\":" + JsonNumber(s.best_bytes_per_second) +
         ",\"stream_limited\":" + JsonBool(s.stream_limited) + ",\"note\":" + JsonString(s.note) +
         ",\"runs\":[" + runs + "]}}\n";
}

std::string ResultToTable(const TcpProbeResult& r) {
  std::string out;
  Line(out,
       "peer %s  streams %u  direction %s  mode %s  block %u KiB (receives %u KiB)  window %.2f s "
       "(warm-up %.2f s excluded)\n",
       r.peer.c_str(), r.streams, r.direction.c_str(), r.mode.c_str(), r.block / 1024,
       r.recv_block / 1024, r.directions.empty() ? 0.0 : r.directions[0].window_seconds,
       r.warmup_seconds);
  Line(out, "%-8s %12s %10s %10s %10s %8s %9s %7s %6s %6s %5s %7s\n", "dir", "bytes", "Gbit/s",
       "min/strm", "med/strm", "max/strm", "retrans", "rtt_us", "rwnd%", "sbuf%", "mss", "unsent");
  for (const auto& d : r.directions) {
    // The senders' unsent limit: KiB, the kernel's default, or unknown.
    const std::string unsent = d.unsent_limit < 0    ? "?"
                               : d.unsent_limit == 0 ? "kernel"
                                                     : std::to_string(d.unsent_limit / 1024) + "K";
    Line(out, "%-8s %12llu %10s %10s %10s %8s %9llu %7.0f %6.1f %6.1f %5llu %7s\n",
         std::string(DirectionName(d.direction)).c_str(), static_cast<unsigned long long>(d.bytes),
         Gbps(d.bytes_per_second).c_str(), Gbps(d.per_stream.min).c_str(),
         Gbps(d.per_stream.median).c_str(), Gbps(d.per_stream.max).c_str(),
         static_cast<unsigned long long>(d.retransmits), d.rtt_seconds * 1e6,
         d.rwnd_limited_fraction * 100, d.sndbuf_limited_fraction * 100,
         static_cast<unsigned long long>(d.mss), unsent.c_str());
    if (d.zerocopy_sends > 0) {
      Line(out, "         zerocopy: %llu sends completed, %llu copied by the kernel anyway\n",
           static_cast<unsigned long long>(d.zerocopy_sends),
           static_cast<unsigned long long>(d.zerocopy_copied));
    }
  }
  if (r.directions.size() > 1)
    Line(out, "total    %12llu %10s\n", static_cast<unsigned long long>(r.bytes),
         Gbps(r.bytes_per_second).c_str());
  auto cpu = [&](const char* who, const SideCpu& c) {
    Line(out,
         "cpu %-9s user %.2f s  sys %.2f s  busiest stream thread %.0f%%  host %.0f%% "
         "(busiest cpu%d %.0f%%)  softirq %.2f s\n",
         who, c.user_seconds, c.system_seconds, c.max_thread_cpu * 100, c.host_busy * 100,
         c.host_max_cpu, c.host_max_cpu_busy * 100, c.softirq_seconds);
  };
  cpu("local", r.local_cpu);
  cpu("responder", r.remote_cpu);
  const SelfChecks& c = r.checks;
  Line(out,
       "self-checks: cpu_bound=%s contended=%s stream_limited=%s "
       "receiver_window_limited=%s send_buffer_limited=%s\n",
       c.cpu_bound ? "YES" : "no", c.contended ? "YES" : "no", c.stream_limited ? "YES" : "no",
       c.receiver_window_limited ? "YES" : "no", c.send_buffer_limited ? "YES" : "no");
  for (const auto& n : c.notes) out += "  " + n + "\n";
  return out;
}

std::string SweepToTable(const SweepResult& s) {
  std::string out;
  Line(out, "%8s %12s %12s %10s\n", "streams", "Gbit/s", "med/strm", "cpu_bound");
  for (const auto& r : s.runs) {
    double med = r.directions.empty() ? 0 : r.directions[0].per_stream.median;
    Line(out, "%8u %12s %12s %10s\n", r.streams, Gbps(r.bytes_per_second).c_str(),
         Gbps(med).c_str(), r.checks.cpu_bound ? "YES" : "no");
  }
  Line(
      out, "saturating stream count: %s\nper-stream ceiling: %s Gbit/s\n",
      s.saturating_streams ? std::to_string(*s.saturating_streams).c_str() : "none (still growing)",
      Gbps(s.per_stream_ceiling_bytes_per_second).c_str());
  out += s.note + "\n";
  return out;
}

}  // namespace fabric::probe
