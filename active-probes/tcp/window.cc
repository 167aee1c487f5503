#include "active-probes/tcp/window.h"

#include <algorithm>
#include <cstdio>
#include <optional>

#include "common/strings.h"

namespace fabric::probe {
namespace {

std::string Fixed(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.6f", v);
  return buf;
}

template <typename F>
std::string JoinStreams(const std::vector<StreamWindow>& s, F field) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (i) out += ',';
    out += field(s[i]);
  }
  return out.empty() ? "-" : out;
}

Result<std::vector<std::string>> SplitList(const Message& m, const std::string& key, size_t n) {
  auto v = m.Get(key);
  if (!v) return MakeError("RESULT: missing " + key);
  std::vector<std::string> out;
  if (*v == "-") {
    if (n != 0) return MakeError("RESULT: " + key + " is empty");
    return out;
  }
  size_t start = 0;
  for (;;) {
    size_t comma = v->find(',', start);
    out.push_back(v->substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (out.size() != n) return MakeError("RESULT: " + key + " has the wrong number of streams");
  return out;
}

Result<double> Double(const Message& m, const std::string& key) {
  auto v = m.Get(key);
  if (!v) return MakeError("RESULT: missing " + key);
  auto d = ParseDouble(*v);
  if (!d) return MakeError("RESULT: bad number in " + key);
  return *d;
}

}  // namespace

std::chrono::steady_clock::time_point WindowEnd(const WindowEdge& b,
                                                const std::vector<bool>& send) {
  // The end edge is where the sender stopped, and its message is what tells
  // this side: sent at once, it arrives before the streams' FINs. A late one
  // (lost and retransmitted on the control connection, or read by a stalled
  // thread) would stretch the window over time with no data in it, so when
  // every receiving stream had read its FIN by then, the window ends at the
  // last FIN.
  std::optional<std::chrono::steady_clock::time_point> last_close;
  for (size_t i = 0; i < b.streams.size(); ++i) {
    if (i < send.size() && send[i]) continue;
    const auto& closed = b.streams[i].peer_closed;
    if (!closed) return b.time;
    if (!last_close || *closed > *last_close) last_close = closed;
  }
  return last_close ? std::min(b.time, *last_close) : b.time;
}

Status CheckResponderWindow(double prober_window_seconds, double responder_window_seconds) {
  if (responder_window_seconds >= kMinResponderWindowFraction * prober_window_seconds) {
    return OkStatus();
  }
  char text[200];
  std::snprintf(text, sizeof(text),
                "window_missed: the responder counted over %.3f s of our %.3f s window: its "
                "window-start message reached it late (delayed on the control connection)",
                std::max(0.0, responder_window_seconds), prober_window_seconds);
  return MakeError(ErrorCode::kWindowMissed, text);
}

WindowEdge SampleEdge(const StreamSet& streams, const SysRoot& root, const std::string& iface) {
  WindowEdge e;
  e.time = std::chrono::steady_clock::now();
  e.streams = streams.Snapshot();
  e.process = SampleProcessCpu();
  auto host = ReadProcStat(root.procfs());
  if (host.ok()) e.host = std::move(*host);
  e.nic = ReadNicCounters(root.sysfs(), iface);
  return e;
}

SideReport DiffEdges(const WindowEdge& a, const WindowEdge& b, const std::vector<bool>& send) {
  SideReport r;
  r.window_seconds = std::chrono::duration<double>(WindowEnd(b, send) - a.time).count();
  for (size_t i = 0; i < b.streams.size() && i < a.streams.size(); ++i) {
    const auto& x = a.streams[i];
    const auto& y = b.streams[i];
    StreamWindow w;
    w.send = i < send.size() && send[i];
    w.bytes = y.bytes - x.bytes;
    // Never go negative (a thread's clock that could not be read is 0).
    w.thread_cpu_seconds = y.thread_cpu_seconds > x.thread_cpu_seconds
                               ? y.thread_cpu_seconds - x.thread_cpu_seconds
                               : 0;
    if (x.tcp.valid && y.tcp.valid) {
      w.retrans = y.tcp.total_retrans - std::min(x.tcp.total_retrans, y.tcp.total_retrans);
      w.busy_us = y.tcp.busy_us - std::min(x.tcp.busy_us, y.tcp.busy_us);
      w.rwnd_limited_us =
          y.tcp.rwnd_limited_us - std::min(x.tcp.rwnd_limited_us, y.tcp.rwnd_limited_us);
      w.sndbuf_limited_us =
          y.tcp.sndbuf_limited_us - std::min(x.tcp.sndbuf_limited_us, y.tcp.sndbuf_limited_us);
      w.rtt_us = y.tcp.rtt_us;
      w.min_rtt_us = y.tcp.min_rtt_us;
      w.snd_wnd = y.tcp.snd_wnd;
      w.cwnd = y.tcp.snd_cwnd;
      w.mss = y.tcp.snd_mss;
      w.pmtu = y.tcp.pmtu;
    }
    w.zc_sends = y.zc_sends - x.zc_sends;
    w.zc_copied = y.zc_copied - x.zc_copied;
    w.unsent_limit = y.unsent_limit;
    r.streams.push_back(w);
  }
  r.user_seconds = b.process.user_seconds - a.process.user_seconds;
  r.system_seconds = b.process.system_seconds - a.process.system_seconds;
  r.host = DiffCpu(a.host, b.host);
  if (a.nic.valid && b.nic.valid) {
    r.nic_valid = true;
    r.nic_rx_bytes = b.nic.rx_bytes - a.nic.rx_bytes;
    r.nic_tx_bytes = b.nic.tx_bytes - a.nic.tx_bytes;
  }
  return r;
}

std::string MtuChange(const SideReport& side) {
  if (side.mtu_start <= 0 || side.mtu_end <= 0 || side.mtu_start == side.mtu_end) return "";
  return (side.iface.empty() ? std::string("the interface") : side.iface) + " MTU changed from " +
         std::to_string(side.mtu_start) + " to " + std::to_string(side.mtu_end) + " during the run";
}

Message SideReportToMessage(const SideReport& r) {
  Message m;
  m.verb = "RESULT";
  m.Set("streams", r.streams.size());
  m.Set("window_s", Fixed(r.window_seconds));
  m.Set("user_s", Fixed(r.user_seconds));
  m.Set("system_s", Fixed(r.system_seconds));
  m.Set("host_busy", Fixed(r.host.busy_fraction));
  m.Set("host_max_cpu_busy", Fixed(r.host.max_cpu_busy));
  m.Set("host_max_cpu", std::to_string(r.host.max_cpu));
  m.Set("softirq_s", Fixed(r.host.softirq_seconds));
  m.Set("softirq_frac", Fixed(r.host.softirq_fraction));
  m.Set("iface", r.iface.empty() ? "-" : r.iface);
  m.Set("nic", r.nic_valid ? "1" : "0");
  m.Set("nic_rx", r.nic_rx_bytes);
  m.Set("nic_tx", r.nic_tx_bytes);
  m.Set("link_bps", Fixed(r.link_bps));
  m.Set("mtu_start", std::to_string(r.mtu_start));
  m.Set("mtu_end", std::to_string(r.mtu_end));
  const auto& s = r.streams;
  m.Set("send", JoinStreams(s, [](auto& w) { return std::string(w.send ? "1" : "0"); }));
  m.Set("bytes", JoinStreams(s, [](auto& w) { return std::to_string(w.bytes); }));
  m.Set("cpu_s", JoinStreams(s, [](auto& w) { return Fixed(w.thread_cpu_seconds); }));
  m.Set("retrans", JoinStreams(s, [](auto& w) { return std::to_string(w.retrans); }));
  m.Set("busy_us", JoinStreams(s, [](auto& w) { return std::to_string(w.busy_us); }));
  m.Set("rwnd_us", JoinStreams(s, [](auto& w) { return std::to_string(w.rwnd_limited_us); }));
  m.Set("sndbuf_us", JoinStreams(s, [](auto& w) { return std::to_string(w.sndbuf_limited_us); }));
  m.Set("rtt_us", JoinStreams(s, [](auto& w) { return std::to_string(w.rtt_us); }));
  m.Set("min_rtt_us", JoinStreams(s, [](auto& w) { return std::to_string(w.min_rtt_us); }));
  m.Set("snd_wnd", JoinStreams(s, [](auto& w) { return std::to_string(w.snd_wnd); }));
  m.Set("cwnd", JoinStreams(s, [](auto& w) { return std::to_string(w.cwnd); }));
  m.Set("mss", JoinStreams(s, [](auto& w) { return std::to_string(w.mss); }));
  m.Set("pmtu", JoinStreams(s, [](auto& w) { return std::to_string(w.pmtu); }));
  m.Set("zc", JoinStreams(s, [](auto& w) { return std::to_string(w.zc_sends); }));
  m.Set("zc_copied", JoinStreams(s, [](auto& w) { return std::to_string(w.zc_copied); }));
  m.Set("unsent", JoinStreams(s, [](auto& w) { return std::to_string(w.unsent_limit); }));
  return m;
}

Result<SideReport> SideReportFromMessage(const Message& m) {
  if (m.verb != "RESULT") return MakeError("expected RESULT, got " + m.verb);
  SideReport r;
  auto n = m.Uint("streams");
  if (!n.ok()) return Unexpected{n.error()};
  if (*n > 4096) return MakeError("RESULT: too many streams");
  struct D {
    const char* key;
    double* out;
  };
  for (D d : {D{"window_s", &r.window_seconds}, D{"user_s", &r.user_seconds},
              D{"system_s", &r.system_seconds}, D{"host_busy", &r.host.busy_fraction},
              D{"host_max_cpu_busy", &r.host.max_cpu_busy}, D{"softirq_s", &r.host.softirq_seconds},
              D{"softirq_frac", &r.host.softirq_fraction}, D{"link_bps", &r.link_bps}}) {
    auto v = Double(m, d.key);
    if (!v.ok()) return Unexpected{v.error()};
    *d.out = *v;
  }
  auto max_cpu = ParseInt64(m.Get("host_max_cpu").value_or("x"));
  r.host.max_cpu = max_cpu ? static_cast<int>(*max_cpu) : -1;
  r.iface = m.Get("iface").value_or("-");
  if (r.iface == "-") r.iface.clear();
  r.nic_valid = m.Get("nic").value_or("0") == "1";
  r.nic_rx_bytes = m.Uint("nic_rx").value_or(0);
  r.nic_tx_bytes = m.Uint("nic_tx").value_or(0);
  // Absent from a responder of an earlier release: unknown, no change judged.
  r.mtu_start = static_cast<int64_t>(m.Uint("mtu_start").value_or(0));
  r.mtu_end = static_cast<int64_t>(m.Uint("mtu_end").value_or(0));
  r.streams.resize(*n);
  struct U {
    const char* key;
    uint64_t StreamWindow::*field;
  };
  for (U u : {U{"bytes", &StreamWindow::bytes}, U{"retrans", &StreamWindow::retrans},
              U{"busy_us", &StreamWindow::busy_us}, U{"rwnd_us", &StreamWindow::rwnd_limited_us},
              U{"sndbuf_us", &StreamWindow::sndbuf_limited_us}, U{"rtt_us", &StreamWindow::rtt_us},
              U{"snd_wnd", &StreamWindow::snd_wnd}, U{"cwnd", &StreamWindow::cwnd},
              U{"mss", &StreamWindow::mss}, U{"pmtu", &StreamWindow::pmtu},
              U{"zc", &StreamWindow::zc_sends}, U{"zc_copied", &StreamWindow::zc_copied}}) {
    auto list = SplitList(m, u.key, *n);
    if (!list.ok()) return Unexpected{list.error()};
    for (size_t i = 0; i < *n; ++i) {
      auto v = ParseUint64((*list)[i]);
      if (!v) return MakeError(std::string("RESULT: bad number in ") + u.key);
      r.streams[i].*u.field = *v;
    }
  }
  // Optional: a responder of an earlier release does not send it (the value then stays 0,
  // "unknown", and the rules fall back to nothing rather than to a wrong RTT).
  if (m.Get("min_rtt_us")) {
    auto list = SplitList(m, "min_rtt_us", *n);
    if (!list.ok()) return Unexpected{list.error()};
    for (size_t i = 0; i < *n; ++i) {
      auto v = ParseUint64((*list)[i]);
      if (!v) return MakeError("RESULT: bad number in min_rtt_us");
      r.streams[i].min_rtt_us = *v;
    }
  }
  // Optional as well: without it the responder's unsent limit is unknown (-1), not 0.
  if (m.Get("unsent")) {
    auto list = SplitList(m, "unsent", *n);
    if (!list.ok()) return Unexpected{list.error()};
    for (size_t i = 0; i < *n; ++i) {
      auto v = ParseInt64((*list)[i]);
      if (!v || *v < -1 || *v > (int64_t{1} << 31)) {
        return MakeError("RESULT: bad number in unsent");
      }
      r.streams[i].unsent_limit = *v;
    }
  }
  auto send = SplitList(m, "send", *n);
  if (!send.ok()) return Unexpected{send.error()};
  auto cpu = SplitList(m, "cpu_s", *n);
  if (!cpu.ok()) return Unexpected{cpu.error()};
  for (size_t i = 0; i < *n; ++i) {
    r.streams[i].send = (*send)[i] == "1";
    auto c = ParseDouble((*cpu)[i]);
    if (!c) return MakeError("RESULT: bad number in cpu_s");
    r.streams[i].thread_cpu_seconds = *c;
  }
  return r;
}

}  // namespace fabric::probe
