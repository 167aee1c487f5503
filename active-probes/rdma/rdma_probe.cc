#include "active-probes/rdma/rdma_probe.h"

#include <random>
#include <thread>

#include "active-probes/control/cidr.h"
#include "active-probes/control/client_session.h"
#include "active-probes/rdma/backend.h"
#include "active-probes/rdma/rdma_messages.h"
#include "active-probes/rdma/rdma_self_checks.h"
#include "active-probes/tcp/host_stats.h"
#include "common/strings.h"

namespace fabric::probe {
namespace {

int64_t ToNs(std::chrono::milliseconds d) { return static_cast<int64_t>(d.count()) * 1000000; }

Result<RdmaProbeResult> RunOnce(const RdmaProbeOptions& o, const ProbeContext& ctx,
                                RdmaBackend& backend, const std::vector<RdmaPortInfo>& ports,
                                uint64_t* retry_ms) {
  // A backend that cannot run here (a build without rdma-core) says so
  // before the responder is involved.
  auto initiator = backend.NewInitiator();
  if (!initiator.ok()) return Unexpected{initiator.error()};
  ClientSessionOptions c;
  c.peer = o.peer;
  c.bind_address = o.bind_address;
  c.secret = o.secret;
  c.timeout = o.connect_timeout;
  c.probe = "rdma";
  c.stop = ctx.stop;
  c.fleet_digest = ctx.fleet_digest;
  c.on_peer_fleet = ctx.on_peer_fleet;
  auto session = OpenClientSession(c, retry_ms);
  if (!session.ok()) return Unexpected{session.error()};
  LineConn& control = *session;
  auto idle = [&] { return SteadyClock::now() + o.connect_timeout; };

  // Our RDMA port is the one behind the address the control connection left
  // from: rdma_cm will resolve the same route.
  sockaddr_storage local = LocalAddress(control.fd());
  std::string netdev = InterfaceForAddress(local);
  auto port = SelectRdmaPort(ports, o.device, netdev);
  if (!port.ok()) return Unexpected{port.error()};

  RdmaRequest req;
  req.qps = o.qps;
  req.size = o.size;
  req.tx_depth = o.tx_depth;
  req.duration_ms = static_cast<uint64_t>(o.duration.count());
  req.warmup_ms = static_cast<uint64_t>(o.warmup.count());
  if (auto s = control.Write(RdmaRequestToMessage(req), idle()); !s.ok()) {
    return Unexpected{s.error()};
  }
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
    std::string reason = accept->Get("reason").value_or("unknown");
    // The responder's port down is the same fault as ours: no active port on
    // the path (exit 10, the rung's no_active_port), not a policy rejection.
    if (reason == kRejectNoActivePort) {
      return MakeError(ErrorCode::kNoActivePort,
                       "no-port: " + RdmaRejectText(reason) + " (" + PeerText(o.peer) + ")");
    }
    // A responder without the RDMA kind treats RDMA_TEST as a bad TCP request.
    return MakeError(ErrorCode::kRejected,
                     "rejected: " + RdmaRejectText(reason) + " (" + reason + ")");
  }
  auto offer = RdmaAcceptFromMessage(*accept);
  if (!offer.ok()) return MakeError(ErrorCode::kRefused, "refused: " + offer.error().message);
  const auto& [region, token] = *offer;
  if (region.length < req.region_bytes()) {
    return MakeError(ErrorCode::kRefused,
                     "refused: responder registered " + std::to_string(region.length) +
                         " bytes, the test needs " + std::to_string(req.region_bytes()));
  }

  RdmaInitiatorRequest ireq;
  ireq.local = local;
  ireq.peer = PeerAddress(control.fd());
  ireq.token = token;
  ireq.qps = o.qps;
  ireq.size = o.size;
  ireq.tx_depth = o.tx_depth;
  ireq.remote = region;
  ireq.timeout = o.connect_timeout;
  ireq.stop = ctx.stop;
  auto info = (*initiator)->Connect(ireq);
  if (!info.ok()) return Unexpected{info.error()};
  auto ready = control.Read(idle());
  if (!ready.ok() && ready.error().code == ErrorCode::kInterrupted) {
    return Unexpected{ready.error()};
  }
  if (!ready.ok() || ready->verb != "READY") {
    return MakeError(ErrorCode::kRefused,
                     "refused: responder did not accept the queue pairs" +
                         (ready.ok() ? " (" + ready->verb + ")" : ": " + ready.error().message));
  }

  const SysRoot& root = ctx.root;
  PortCounters before, after;
  ProcessCpu cpu_a, cpu_b;
  Status mark_status = OkStatus();
  auto edge = [&](bool end) {
    Message mark;
    mark.verb = "MARK";
    mark.Set("phase", end ? "end" : "start");
    if (auto s = control.Write(mark, idle()); !s.ok()) mark_status = s;
    (end ? after : before) = ReadPortCounters(root, info->device, info->port);
    (end ? cpu_b : cpu_a) = SampleProcessCpu();
  };
  int64_t start_ns = MonotonicNs() + ToNs(o.warmup);
  int64_t end_ns = start_ns + ToNs(o.duration);
  WindowCounter counter(o.qps, start_ns, end_ns);
  auto stats = (*initiator)->Run(counter, start_ns, end_ns, edge);
  if (!stats.ok()) return Unexpected{stats.error()};
  if (!mark_status.ok()) return Unexpected{mark_status.error()};
  auto totals = counter.Finish(o.size);
  if (!totals.ok()) return Unexpected{totals.error()};

  auto remote_msg = control.Read(idle());
  if (!remote_msg.ok() && remote_msg.error().code == ErrorCode::kInterrupted) {
    return Unexpected{remote_msg.error()};
  }
  if (!remote_msg.ok()) {
    return MakeError(ErrorCode::kTimeout,
                     "timeout: no RDMA_RESULT from responder: " + remote_msg.error().message);
  }
  auto remote = RdmaSideReportFromMessage(*remote_msg);
  if (!remote.ok()) return Unexpected{remote.error()};
  Message bye;
  bye.verb = "BYE";
  (void)control.Write(bye, idle());
  initiator->reset();
  WaitForClose(control);

  RdmaProbeResult r;
  r.peer = PeerText(o.peer);
  r.device = info->device.empty() ? port->device : info->device;
  r.port = info->port != 0 ? info->port : port->port;
  r.netdev = netdev;
  r.link_layer = port->link_layer;
  r.link_bits_per_second = port->rate_bits_per_second;
  r.remote_device = region.device;
  r.remote_port = region.port;
  r.qps = o.qps;
  r.size = o.size;
  r.tx_depth = o.tx_depth;
  r.local_active_mtu = info->active_mtu;
  r.remote_active_mtu = region.active_mtu;
  r.mtu = info->path_mtu;
  r.duration_seconds = std::chrono::duration<double>(o.duration).count();
  r.warmup_seconds = std::chrono::duration<double>(o.warmup).count();
  r.window_seconds = totals->window_seconds;
  r.bytes = totals->bytes;
  r.total_bytes = totals->all_bytes;
  r.messages = totals->messages;
  r.bytes_per_second = totals->bytes_per_second;
  r.messages_per_second = totals->messages_per_second;
  for (size_t i = 0; i < totals->qp_messages.size(); ++i) {
    RdmaQpResult q;
    q.messages = totals->qp_messages[i];
    q.bytes = q.messages * o.size;
    q.bytes_per_second = totals->qp_bytes_per_second[i];
    r.per_qp.push_back(q);
  }
  r.qp_min_bytes_per_second = totals->qp_min_bytes_per_second;
  r.qp_max_bytes_per_second = totals->qp_max_bytes_per_second;
  r.local_counters = DiffPortCounters(before, after);
  r.local_counters_before = before;
  r.local_counters_after = after;
  r.remote_counters = remote->counters;
  r.local_cpu.user_seconds = cpu_b.user_seconds - cpu_a.user_seconds;
  r.local_cpu.system_seconds = cpu_b.system_seconds - cpu_a.system_seconds;
  if (r.window_seconds > 0) {
    r.local_cpu.poll_thread_core_fraction = stats->poll_thread_cpu_seconds / r.window_seconds;
  }
  r.remote_cpu.user_seconds = remote->user_seconds;
  r.remote_cpu.system_seconds = remote->system_seconds;
  EvaluateRdmaSelfChecks(r, stats->mean_outstanding_fraction);
  return r;
}

}  // namespace

Status ValidateRdmaOptions(const RdmaProbeOptions& o) {
  auto usage = [](std::string message) { return MakeError(ErrorCode::kUsage, std::move(message)); };
  if (o.peer.host.empty()) return usage("--peer is required");
  if (o.secret.empty()) return usage("no shared secret (--secret-file)");
  if (o.qps == 0 || o.qps > kMaxRdmaQps) {
    return usage("--qps: from 1 to " + std::to_string(kMaxRdmaQps));
  }
  if (o.size == 0 || o.size > kMaxRdmaMessage) return usage("--size: from 1 byte to 1G");
  if (o.tx_depth == 0 || o.tx_depth > kMaxRdmaTxDepth) {
    return usage("--tx-depth: from 1 to " + std::to_string(kMaxRdmaTxDepth));
  }
  if (o.duration.count() < 100) return usage("--duration: at least 100ms");
  if (o.warmup.count() < 0) return usage("--warmup: must not be negative");
  if (static_cast<uint64_t>(o.qps) * o.size > (16ull << 30)) {
    return usage("--qps x --size: the memory region would exceed 16 GiB");
  }
  return OkStatus();
}

Result<RdmaProbeResult> RunRdmaProbe(const RdmaProbeOptions& options, const ProbeContext& context) {
  return RunRdmaProbe(options, context, DefaultRdmaBackend());
}

Result<RdmaProbeResult> RunRdmaProbe(const RdmaProbeOptions& options, const ProbeContext& context,
                                     RdmaBackend& backend) {
  FABRIC_RETURN_IF_ERROR(ValidateRdmaOptions(options));
  // Without a local RDMA port there is nothing to measure: say so before
  // involving the responder.
  auto ports = ListRdmaPorts(context.root);
  if (!ports.ok()) return MakeError(ErrorCode::kNoDevice, "no-device: " + ports.error().message);
  if (ports->empty()) {
    return MakeError(ErrorCode::kNoDevice, "no-device: no RDMA device (" + context.root.sysfs() +
                                               "/class/infiniband is missing or empty)");
  }
  if (!options.device.empty()) {
    auto port = SelectRdmaPort(*ports, options.device, "");
    if (!port.ok()) return Unexpected{port.error()};
  }
  static thread_local std::mt19937 rng{std::random_device{}()};
  for (int attempt = 0;; ++attempt) {
    uint64_t retry_ms = 0;
    auto r = RunOnce(options, context, backend, *ports, &retry_ms);
    if (r.ok() || r.error().code != ErrorCode::kBusy || attempt >= options.busy_retries) {
      return r;
    }
    if (!context.stop.SleepFor(std::chrono::milliseconds(retry_ms + rng() % (retry_ms / 2 + 1)))) {
      return MakeError(ErrorCode::kInterrupted, "interrupted: waiting for a busy responder");
    }
  }
}

}  // namespace fabric::probe
