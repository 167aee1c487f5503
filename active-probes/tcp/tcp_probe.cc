#include "active-probes/tcp/tcp_probe.h"

#include <sys/socket.h>

#include <algorithm>
#include <random>
#include <thread>

#include "active-probes/control/auth.h"
#include "active-probes/control/cidr.h"
#include "active-probes/control/client_session.h"
#include "active-probes/tcp/self_checks.h"
#include "active-probes/tcp/session_request.h"
#include "active-probes/tcp/unsent_limit.h"
#include "active-probes/tcp/window.h"
#include "common/strings.h"

namespace fabric::probe {
namespace {

using std::chrono::milliseconds;

// Connection, authentication and admission (shared with every probe kind).
Result<LineConn> OpenSession(const TcpProbeOptions& o, const ProbeContext& ctx,
                             uint64_t* retry_ms) {
  ClientSessionOptions c;
  c.peer = o.peer;
  c.bind_address = o.bind_address;
  c.secret = o.secret;
  c.timeout = o.connect_timeout;
  c.probe = "tcp";
  c.stop = ctx.stop;
  c.fleet_digest = ctx.fleet_digest;
  c.on_peer_fleet = ctx.on_peer_fleet;
  return OpenClientSession(c, retry_ms);
}

std::vector<int> ChooseCpus(const TcpProbeOptions& o, const SysRoot& root,
                            const std::string& iface) {
  if (!o.cpus.empty()) return o.cpus;
  if (!o.pin) return {};
  std::vector<int> allowed = AllowedCpus();
  if (o.numa_local) {
    std::vector<int> node = NicNumaCpus(root.sysfs(), iface);
    std::vector<int> both;
    for (int c : node) {
      if (std::find(allowed.begin(), allowed.end(), c) != allowed.end()) both.push_back(c);
    }
    if (!both.empty()) return both;
  }
  return allowed;
}

SideCpu CpuOf(const SideReport& r) {
  SideCpu c;
  c.user_seconds = r.user_seconds;
  c.system_seconds = r.system_seconds;
  for (const auto& s : r.streams) {
    if (r.window_seconds > 0) {
      c.max_thread_cpu = std::max(c.max_thread_cpu, s.thread_cpu_seconds / r.window_seconds);
    }
  }
  c.host_busy = r.host.busy_fraction;
  c.host_max_cpu_busy = r.host.max_cpu_busy;
  c.host_max_cpu = r.host.max_cpu;
  c.softirq_seconds = r.host.softirq_seconds;
  return c;
}

// One direction: streams [first, first+n) counted at `receiver`, TCP state
// from `sender`.
DirectionResult Combine(Direction direction, const SideReport& receiver, const SideReport& sender,
                        size_t first, size_t n) {
  DirectionResult d;
  d.direction = direction;
  d.streams = static_cast<uint32_t>(n);
  d.window_seconds = receiver.window_seconds;
  uint64_t busy = 0, rwnd = 0, sndbuf = 0, rtt_sum = 0, min_rtt_us = 0;
  for (size_t i = first; i < first + n && i < receiver.streams.size(); ++i) {
    const auto& rx = receiver.streams[i];
    d.bytes += rx.bytes;
    double rate =
        receiver.window_seconds > 0 ? static_cast<double>(rx.bytes) / receiver.window_seconds : 0;
    d.stream_bytes_per_second.push_back(rate);
    if (receiver.window_seconds > 0) {
      d.max_receiver_thread_cpu =
          std::max(d.max_receiver_thread_cpu, rx.thread_cpu_seconds / receiver.window_seconds);
    }
    if (i >= sender.streams.size()) continue;
    const auto& tx = sender.streams[i];
    d.retransmits += tx.retrans;
    busy += tx.busy_us;
    rwnd += tx.rwnd_limited_us;
    sndbuf += tx.sndbuf_limited_us;
    rtt_sum += tx.rtt_us;
    if (tx.min_rtt_us > 0 && (min_rtt_us == 0 || tx.min_rtt_us < min_rtt_us)) {
      min_rtt_us = tx.min_rtt_us;
    }
    if (tx.snd_wnd > 0 && tx.rtt_us > 0) {
      double window_rate =
          static_cast<double>(tx.snd_wnd) / (static_cast<double>(tx.rtt_us) * 1e-6);
      d.window_bound_ratio = std::max(d.window_bound_ratio, rate / window_rate);
    }
    d.cwnd_segments += tx.cwnd;
    d.mss = std::max(d.mss, tx.mss);
    d.path_mtu = std::max(d.path_mtu, tx.pmtu);
    d.zerocopy_sends += tx.zc_sends;
    d.zerocopy_copied += tx.zc_copied;
    d.unsent_limit = std::max(d.unsent_limit, tx.unsent_limit);
    if (sender.window_seconds > 0) {
      d.max_sender_thread_cpu =
          std::max(d.max_sender_thread_cpu, tx.thread_cpu_seconds / sender.window_seconds);
    }
  }
  d.bytes_per_second =
      receiver.window_seconds > 0 ? static_cast<double>(d.bytes) / receiver.window_seconds : 0;
  d.per_stream = Summarize(d.stream_bytes_per_second);
  if (busy > 0 && n > 0 && sender.window_seconds > 0) {
    d.sender_busy_fraction = std::min(
        1.0, static_cast<double>(busy) * 1e-6 / (static_cast<double>(n) * sender.window_seconds));
  }
  if (busy > 0) {
    d.rwnd_limited_fraction = static_cast<double>(rwnd) / static_cast<double>(busy);
    d.sndbuf_limited_fraction = static_cast<double>(sndbuf) / static_cast<double>(busy);
  }
  if (n > 0) d.rtt_seconds = static_cast<double>(rtt_sum) / static_cast<double>(n) * 1e-6;
  d.min_rtt_seconds = static_cast<double>(min_rtt_us) * 1e-6;
  return d;
}

Result<TcpProbeResult> RunOnce(const TcpProbeOptions& o, const ProbeContext& ctx,
                               uint64_t* retry_ms) {
  auto session = OpenSession(o, ctx, retry_ms);
  if (!session.ok()) return Unexpected{session.error()};
  LineConn& control = *session;
  auto idle = [&] { return SteadyClock::now() + o.connect_timeout; };

  SessionRequest req;
  bool up = o.direction != Direction::kReceive;
  bool down = o.direction != Direction::kSend;
  req.up = up ? o.streams : 0;
  req.down = down ? o.streams : 0;
  req.duration_ms = static_cast<uint64_t>(o.duration.count());
  req.warmup_ms = static_cast<uint64_t>(o.warmup.count());
  req.mode = o.mode;
  req.block = o.block;
  // Named in the request, so the responder receives in the same size.
  const uint32_t recv_block = o.recv_block != 0 ? o.recv_block : DefaultRecvBlock(o.block);
  req.recv_block = recv_block;
  req.peer_rcvbuf = o.peer_rcvbuf;
  req.peer_sndbuf = o.peer_sndbuf;
  // Each side sends on o.streams streams (or none), so one limit serves both.
  const uint32_t unsent_limit = o.unsent_limit.value_or(AutoUnsentLimit(o.streams, o.block));
  req.unsent_limit = unsent_limit;
  if (auto s = control.Write(RequestToMessage(req), idle()); !s.ok()) return Unexpected{s.error()};
  auto accept = control.Read(idle());
  if (!accept.ok() && accept.error().code == ErrorCode::kInterrupted) {
    return Unexpected{accept.error()};
  }
  if (!accept.ok()) {
    return MakeError(ErrorCode::kRefused,
                     "refused: responder closed the session: " + accept.error().message);
  }
  if (accept->verb == "REJECT") {
    WaitForClose(control);
    return MakeError(ErrorCode::kRejected, "rejected: responder refused the request: " +
                                               accept->Get("reason").value_or("unknown"));
  }
  if (accept->verb != "ACCEPT" || !accept->Get("token")) {
    return MakeError(ErrorCode::kRefused, "refused: unexpected answer " + Quote(accept->verb));
  }
  std::string token = *accept->Get("token");

  auto payload = Payload::Create(o.block, up ? o.mode : SendMode::kCopy);
  if (!payload.ok()) return Unexpected{payload.error()};
  std::string iface = InterfaceForAddress(LocalAddress(control.fd()));
  // Before the streams connect: their segment size is agreed under this MTU.
  const int64_t mtu_start = ReadInterfaceMtu(ctx.root, iface);
  std::vector<int> cpus = ChooseCpus(o, ctx.root, iface);
  std::vector<StreamSpec> specs;
  std::vector<bool> send;
  for (uint32_t i = 0; i < req.total(); ++i) {
    auto fd = Dial(o.peer, o.bind_address, o.connect_timeout, o.rcvbuf, o.sndbuf,
                   /*nodelay=*/false, ctx.stop);
    if (!fd.ok()) return Unexpected{fd.error()};
    Message data;
    data.verb = "DATA";
    data.Set("token", token).Set("index", static_cast<uint64_t>(i));
    if (auto s = WriteAll(fd->get(), FormatMessage(data), idle(), ctx.stop); !s.ok()) {
      return Unexpected{s.error()};
    }
    StreamSpec spec;
    spec.fd = std::move(*fd);
    spec.send = i < req.up;
    spec.cpu = cpus.empty() ? -1 : cpus[i % cpus.size()];
    send.push_back(spec.send);
    specs.push_back(std::move(spec));
  }
  auto ready = control.Read(idle());
  if (!ready.ok() && ready.error().code == ErrorCode::kInterrupted) {
    return Unexpected{ready.error()};
  }
  if (!ready.ok() || ready->verb != "READY") {
    return MakeError(ErrorCode::kRefused,
                     "refused: responder did not start the streams" +
                         (ready.ok() ? " (" + ready->verb + ")" : ": " + ready.error().message));
  }
  StreamSet streams(*payload, o.mode, 0, recv_block, unsent_limit);
  streams.CountInto(ctx.moved_bytes);
  if (auto s = streams.Start(std::move(specs)); !s.ok()) return Unexpected{s.error()};

  // Returning destroys the StreamSet, which shuts its sockets and joins.
  if (!ctx.stop.SleepFor(o.warmup)) {
    return MakeError(ErrorCode::kInterrupted, "interrupted: during the warm-up");
  }
  Message mark;
  mark.verb = "MARK";
  mark.Set("phase", "start");
  if (auto s = control.Write(mark, idle()); !s.ok()) return Unexpected{s.error()};
  WindowEdge a = SampleEdge(streams, ctx.root, iface);
  if (!ctx.stop.SleepFor(o.duration)) {
    return MakeError(ErrorCode::kInterrupted, "interrupted: during the window");
  }
  mark.Set("phase", "end");
  if (auto s = control.Write(mark, idle()); !s.ok()) return Unexpected{s.error()};
  WindowEdge b = SampleEdge(streams, ctx.root, iface);
  const int64_t mtu_end = ReadInterfaceMtu(ctx.root, iface);
  streams.StopSending();
  streams.Join(std::chrono::milliseconds(3000));

  auto remote_msg = control.Read(idle());
  if (!remote_msg.ok()) {
    const Error& why = remote_msg.error();
    if (why.code == ErrorCode::kInterrupted) return Unexpected{why};
    // The responder went away (its connection closed or reset), or went silent.
    const bool aborted = why.code == ErrorCode::kAborted;
    return MakeError(aborted ? ErrorCode::kAborted : ErrorCode::kTimeout,
                     std::string(aborted ? "aborted" : "timeout") +
                         ": no RESULT from responder: " + why.message);
  }
  auto remote = SideReportFromMessage(*remote_msg);
  if (!remote.ok()) return Unexpected{remote.error()};
  Message bye;
  bye.verb = "BYE";
  (void)control.Write(bye, idle());
  WaitForClose(control);

  SideReport local = DiffEdges(a, b, send);
  local.iface = iface;
  local.mtu_start = mtu_start;
  local.mtu_end = mtu_end;
  // Segments sized for the old MTU are dropped (no ICMP comes back from a frame too large for
  // the receiving link), so the window measured a black hole, not the path: no result, a
  // reason, and the next round measures the new setting. The MTU alerts name the change.
  for (const SideReport* side : {&local, &*remote}) {
    if (std::string change = MtuChange(*side); !change.empty()) {
      return MakeError(ErrorCode::kConfigChanged,
                       std::string("config_changed: ") + (side == &local ? "" : "responder's ") +
                           change + "; the result measures neither setting");
    }
  }
  // The send direction is counted at the responder, over its own window.
  if (up) {
    if (auto s = CheckResponderWindow(local.window_seconds, remote->window_seconds); !s.ok()) {
      return Unexpected{s.error()};
    }
  }
  if (remote->streams.size() != local.streams.size()) {
    return MakeError("responder reported a different stream count");
  }
  TcpProbeResult r;
  r.peer = PeerText(o.peer);
  r.streams = o.streams;
  r.direction = std::string(DirectionName(o.direction));
  r.mode = std::string(SendModeName(o.mode));
  r.block = o.block;
  r.recv_block = recv_block;
  r.duration_seconds = std::chrono::duration<double>(o.duration).count();
  r.warmup_seconds = std::chrono::duration<double>(o.warmup).count();
  if (up) r.directions.push_back(Combine(Direction::kSend, *remote, local, 0, req.up));
  if (down) r.directions.push_back(Combine(Direction::kReceive, local, *remote, req.up, req.down));
  for (const auto& d : r.directions) {
    r.bytes += d.bytes;
    r.bytes_per_second += d.bytes_per_second;
  }
  r.local_cpu = CpuOf(local);
  r.remote_cpu = CpuOf(*remote);
  r.iface = iface;
  r.link_bits_per_second = ReadLinkSpeedBps(ctx.root.sysfs(), iface);
  r.responder_link_bits_per_second = remote->link_bps;
  // Headers per MSS-sized segment plus one ACK per two segments each way.
  uint64_t mss = 1448;
  for (const auto& d : r.directions) mss = d.mss ? std::min<uint64_t>(mss, d.mss) : mss;
  auto explained = [&](const SideReport& side) {
    uint64_t payload = 0;
    for (const auto& s : side.streams) payload += s.bytes;
    double per_byte = 1.0 + (66.0 + 33.0) / static_cast<double>(mss);
    double expected = static_cast<double>(payload) * per_byte;
    // Loopback counts every byte once as sent and once as received.
    if (side.iface == "lo") expected *= 2;
    return static_cast<uint64_t>(expected);
  };
  if (local.nic_valid) {
    r.nic_valid = true;
    r.nic_bytes = local.nic_rx_bytes + local.nic_tx_bytes;
    r.expected_nic_bytes = explained(local);
  }
  r.responder_iface = remote->iface;
  if (remote->nic_valid) {
    r.responder_nic_valid = true;
    r.responder_nic_bytes = remote->nic_rx_bytes + remote->nic_tx_bytes;
    r.responder_expected_nic_bytes = explained(*remote);
  }
  EvaluateSelfChecks(r);
  if (auto err = streams.FirstError(); !err.empty())
    r.checks.notes.push_back("stream error: " + err);
  return r;
}

}  // namespace

Result<TcpProbeResult> RunTcpProbe(const TcpProbeOptions& options, const ProbeContext& context) {
  if (options.streams == 0) return MakeError(ErrorCode::kUsage, "streams must be at least 1");
  if (options.secret.empty()) return MakeError(ErrorCode::kUsage, "no shared secret");
  static thread_local std::mt19937 rng{std::random_device{}()};
  for (int attempt = 0;; ++attempt) {
    uint64_t retry_ms = 0;
    auto r = RunOnce(options, context, &retry_ms);
    if (r.ok() || r.error().code != ErrorCode::kBusy || attempt >= options.busy_retries) {
      return r;
    }
    // Back off with jitter so requesters behind one responder spread out.
    if (!context.stop.SleepFor(milliseconds(retry_ms + rng() % (retry_ms / 2 + 1)))) {
      return MakeError(ErrorCode::kInterrupted, "interrupted: waiting for a busy responder");
    }
  }
}

Result<SweepResult> RunTcpSweep(const TcpProbeOptions& options,
                                const std::vector<uint32_t>& stream_counts,
                                const ProbeContext& context) {
  SweepResult sweep;
  for (uint32_t n : stream_counts) {
    TcpProbeOptions o = options;
    o.streams = n;
    auto r = RunTcpProbe(o, context);
    if (!r.ok()) return Unexpected{r.error()};
    sweep.runs.push_back(std::move(*r));
  }
  AnalyzeSweep(sweep);
  return sweep;
}

}  // namespace fabric::probe
