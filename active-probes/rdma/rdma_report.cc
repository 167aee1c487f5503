#include "active-probes/rdma/rdma_report.h"

#include <cstdio>

#include "common/json.h"

namespace fabric::probe {
namespace {

// Absent counters are null, never 0.
std::string Opt(const std::optional<uint64_t>& v) { return v ? std::to_string(*v) : "null"; }

std::string CountersJson(const PortCounterDelta& c) {
  return "{\"xmit_bytes\":" + Opt(c.xmit_bytes) + ",\"rcv_bytes\":" + Opt(c.rcv_bytes) +
         ",\"np_cnp_sent\":" + Opt(c.np_cnp_sent) + ",\"rp_cnp_handled\":" + Opt(c.rp_cnp_handled) +
         ",\"out_of_buffer\":" + Opt(c.out_of_buffer) + "}";
}

std::string CpuJson(const RdmaSideCpu& c) {
  return "{\"user_seconds\":" + JsonNumber(c.user_seconds) +
         ",\"system_seconds\":" + JsonNumber(c.system_seconds) +
         ",\"poll_thread_core_fraction\":" + JsonNumber(c.poll_thread_core_fraction) + "}";
}

std::string Gbps(double bytes_per_second) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.3f", bytes_per_second * 8 / 1e9);
  return buf;
}

std::string OptText(const std::optional<uint64_t>& v) { return v ? std::to_string(*v) : "-"; }

void Line(std::string& out, const char* fmt, auto... args) {
  char buf[512];
  std::snprintf(buf, sizeof(buf), fmt, args...);
  out += buf;
}

}  // namespace

std::string RdmaResultToJson(const RdmaProbeResult& r) {
  std::string per, notes;
  for (size_t i = 0; i < r.per_qp.size(); ++i) {
    per += (i ? "," : "") + std::string("{\"qp\":") + std::to_string(i) +
           ",\"bytes\":" + std::to_string(r.per_qp[i].bytes) +
           ",\"messages\":" + std::to_string(r.per_qp[i].messages) +
           ",\"bytes_per_second\":" + JsonNumber(r.per_qp[i].bytes_per_second) + "}";
  }
  for (size_t i = 0; i < r.notes.size(); ++i) notes += (i ? "," : "") + JsonString(r.notes[i]);
  return "{\"probe\":\"rdma_write\",\"peer\":" + JsonString(r.peer) +
         ",\"qps\":" + std::to_string(r.qps) + ",\"size_bytes\":" + std::to_string(r.size) +
         ",\"tx_depth\":" + std::to_string(r.tx_depth) +
         ",\"duration_seconds\":" + JsonNumber(r.duration_seconds) +
         ",\"warmup_seconds\":" + JsonNumber(r.warmup_seconds) +
         ",\"window_seconds\":" + JsonNumber(r.window_seconds) +
         ",\"bytes\":" + std::to_string(r.bytes) +
         ",\"bytes_per_second\":" + JsonNumber(r.bytes_per_second) +
         ",\"messages\":" + std::to_string(r.messages) +
         ",\"messages_per_second\":" + JsonNumber(r.messages_per_second) +
         ",\"per_qp_bytes_per_second\":{\"min\":" + JsonNumber(r.qp_min_bytes_per_second) +
         ",\"max\":" + JsonNumber(r.qp_max_bytes_per_second) + ",\"each\":[" + per +
         "]},\"port\":{\"device\":" + JsonString(r.device) + ",\"port\":" + std::to_string(r.port) +
         ",\"interface\":" + JsonString(r.netdev) + ",\"link_layer\":" + JsonString(r.link_layer) +
         ",\"link_bits_per_second\":" + JsonNumber(r.link_bits_per_second) +
         ",\"active_mtu_bytes\":" + std::to_string(r.local_active_mtu) +
         ",\"responder_device\":" + JsonString(r.remote_device) +
         ",\"responder_port\":" + std::to_string(r.remote_port) +
         ",\"responder_active_mtu_bytes\":" + std::to_string(r.remote_active_mtu) +
         ",\"path_mtu_bytes\":" + std::to_string(r.mtu) +
         "},\"counters\":{\"local\":" + CountersJson(r.local_counters) +
         ",\"responder\":" + CountersJson(r.remote_counters) +
         ",\"local_before\":" + CountersJson(r.local_counters_before) +
         ",\"local_after\":" + CountersJson(r.local_counters_after) +
         "},\"cpu\":{\"local\":" + CpuJson(r.local_cpu) +
         ",\"responder\":" + CpuJson(r.remote_cpu) +
         "},\"self_checks\":{\"cpu_bound\":" + JsonBool(r.cpu_bound) +
         ",\"contended\":" + JsonBool(r.contended) + ",\"qp_limited\":" + JsonBool(r.qp_limited) +
         ",\"congested\":" + JsonBool(r.congested) +
         ",\"counters_consistent\":" + JsonBool(r.counters_consistent) + ",\"notes\":[" + notes +
         "]}}";
}

std::string RdmaResultToTable(const RdmaProbeResult& r) {
  std::string out;
  Line(out,
       "peer %s  %s port %u (%s, %s) -> %s port %u  qps %u  size %u  tx-depth %u  mtu %u\n"
       "window %.3f s (warm-up %.2f s excluded)\n",
       r.peer.c_str(), r.device.c_str(), r.port, r.netdev.c_str(), r.link_layer.c_str(),
       r.remote_device.c_str(), r.remote_port, r.qps, r.size, r.tx_depth, r.mtu, r.window_seconds,
       r.warmup_seconds);
  Line(out, "%14s %10s %10s %12s %10s %10s\n", "bytes", "Gbit/s", "GB/s", "msgs/s", "min/qp",
       "max/qp");
  Line(out, "%14llu %10s %10.3f %12.0f %10s %10s\n", static_cast<unsigned long long>(r.bytes),
       Gbps(r.bytes_per_second).c_str(), r.bytes_per_second / 1e9, r.messages_per_second,
       Gbps(r.qp_min_bytes_per_second).c_str(), Gbps(r.qp_max_bytes_per_second).c_str());
  auto counters = [&](const char* who, const PortCounterDelta& c) {
    Line(out,
         "port %-9s xmit_bytes %s  rcv_bytes %s  np_cnp_sent %s  rp_cnp_handled %s  "
         "out_of_buffer %s\n",
         who, OptText(c.xmit_bytes).c_str(), OptText(c.rcv_bytes).c_str(),
         OptText(c.np_cnp_sent).c_str(), OptText(c.rp_cnp_handled).c_str(),
         OptText(c.out_of_buffer).c_str());
  };
  counters("local", r.local_counters);
  counters("responder", r.remote_counters);
  Line(out,
       "cpu local user %.2f s sys %.2f s (poll thread %.0f%%)  responder user %.2f s sys %.2f s\n",
       r.local_cpu.user_seconds, r.local_cpu.system_seconds,
       r.local_cpu.poll_thread_core_fraction * 100, r.remote_cpu.user_seconds,
       r.remote_cpu.system_seconds);
  Line(out,
       "self-checks: cpu_bound=%s contended=%s qp_limited=%s congested=%s "
       "counters_consistent=%s\n",
       r.cpu_bound ? "YES" : "no", r.contended ? "YES" : "no", r.qp_limited ? "YES" : "no",
       r.congested ? "YES" : "no", r.counters_consistent ? "yes" : "NO");
  for (const auto& n : r.notes) out += "  " + n + "\n";
  return out;
}

}  // namespace fabric::probe
