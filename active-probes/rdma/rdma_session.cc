#include "active-probes/rdma/rdma_session.h"

#include "active-probes/control/auth.h"
#include "active-probes/control/cidr.h"
#include "active-probes/rdma/ib_sysfs.h"
#include "active-probes/rdma/rdma_messages.h"
#include "active-probes/rdma/rdma_probe.h"
#include "active-probes/tcp/host_stats.h"
#include "common/log.h"

namespace fabric::probe {
namespace {

SessionKindOutcome Reject(SessionContext& ctx, const std::string& reason,
                          const std::string& detail) {
  Message m;
  m.verb = "REJECT";
  m.Set("reason", reason);
  (void)ctx.control.Write(m, SteadyClock::now() + ctx.options.idle_timeout);
  log::Info("rdma probe request rejected",
            {{"peer", AddressText(ctx.peer)}, {"reason", reason}, {"detail", detail}});
  return SessionKindOutcome::kRejected;
}

// The REJECT reason for a device or port fault of ours; `otherwise` for the rest.
const char* RejectReasonFor(const Error& error, const char* otherwise) {
  switch (error.code) {
    case ErrorCode::kNoDevice:
      return kRejectNoRdmaDevice;
    case ErrorCode::kNoActivePort:
      return kRejectNoActivePort;
    default:
      return otherwise;
  }
}

SessionKindOutcome Fail(SessionContext& ctx, const std::string& why) {
  log::Info("rdma probe session ended early", {{"peer", AddressText(ctx.peer)}, {"reason", why}});
  return SessionKindOutcome::kFailed;
}

SessionKindOutcome Serve(SessionContext& ctx, RdmaBackend& backend,
                         const RdmaResponderOptions& rdma) {
  const ResponderOptions& o = ctx.options;
  auto idle = [&] { return SteadyClock::now() + o.idle_timeout; };
  auto req = RdmaRequestFromMessage(ctx.request);
  if (!req.ok()) return Reject(ctx, "bad-request", req.error().message);
  if (req->qps == 0 || req->qps > kMaxRdmaQps || req->qps > o.max_streams) {
    return Reject(ctx, "qps-over-limit:" + std::to_string(std::min(o.max_streams, kMaxRdmaQps)),
                  "");
  }
  if (req->size == 0 || req->size > kMaxRdmaMessage) return Reject(ctx, "size-out-of-range", "");
  if (req->tx_depth == 0 || req->tx_depth > kMaxRdmaTxDepth) {
    return Reject(ctx, "tx-depth-out-of-range", "");
  }
  auto asked = std::chrono::milliseconds(req->duration_ms + req->warmup_ms);
  if (req->duration_ms == 0 || asked > o.max_duration) {
    return Reject(ctx, "duration-over-limit:" + std::to_string(o.max_duration.count()) + "ms", "");
  }
  if (req->region_bytes() > rdma.max_region_bytes) {
    return Reject(ctx, "region-over-limit:" + std::to_string(rdma.max_region_bytes), "");
  }

  // The port behind the address the requester reached.
  const SysRoot& root = o.root;
  sockaddr_storage local = LocalAddress(ctx.control.fd());
  auto ports = ListRdmaPorts(root);
  if (!ports.ok()) return Reject(ctx, kRejectNoRdmaDevice, ports.error().message);
  auto port = SelectRdmaPort(*ports, rdma.device, InterfaceForAddress(local));
  if (!port.ok()) {
    return Reject(ctx, RejectReasonFor(port.error(), kRejectNoRdmaDevice), port.error().message);
  }
  // One-sided writes cannot be counted by the target as they land, so the
  // byte limit is enforced on what the port could carry in the time asked.
  if (o.max_bytes > 0 && port->rate_bits_per_second > 0) {
    double most = port->rate_bits_per_second / 8 * std::chrono::duration<double>(asked).count();
    if (most > static_cast<double>(o.max_bytes)) {
      return Reject(ctx, "bytes-over-limit:" + std::to_string(o.max_bytes), "");
    }
  }

  auto target = backend.NewTarget();
  if (!target.ok()) return Reject(ctx, kRejectNoRdmaDevice, target.error().message);
  RdmaTargetRequest treq;
  treq.local = local;
  treq.peer = ctx.peer;
  treq.qps = req->qps;
  treq.region_bytes = req->region_bytes();
  treq.token = MakeNonce();
  auto region = (*target)->Prepare(treq);
  if (!region.ok()) {
    return Reject(ctx, RejectReasonFor(region.error(), kRejectSetupFailed), region.error().message);
  }
  if (region->device.empty()) {
    region->device = port->device;
    region->port = port->port;
  }
  ctx.set_deadline(SteadyClock::now() + asked + o.idle_timeout * 3);
  if (auto s = ctx.control.Write(RdmaAcceptToMessage(*region, treq.token), idle()); !s.ok()) {
    return Fail(ctx, s.error().message);
  }
  if (auto s = (*target)->AcceptQps(idle()); !s.ok()) return Fail(ctx, s.error().message);
  Message ready;
  ready.verb = "READY";
  if (auto s = ctx.control.Write(ready, idle()); !s.ok()) return Fail(ctx, s.error().message);

  auto mark_start = ctx.control.Read(SteadyClock::now() +
                                     std::chrono::milliseconds(req->warmup_ms) + o.idle_timeout);
  if (!mark_start.ok() || mark_start->verb != "MARK") {
    return Fail(ctx, mark_start.ok() ? "expected MARK" : mark_start.error().message);
  }
  PortCounters a = ReadPortCounters(root, region->device, region->port);
  ProcessCpu cpu_a = SampleProcessCpu();
  auto mark_end = ctx.control.Read(SteadyClock::now() +
                                   std::chrono::milliseconds(req->duration_ms) + o.idle_timeout);
  if (!mark_end.ok() || mark_end->verb != "MARK") {
    return Fail(ctx, mark_end.ok() ? "expected MARK" : mark_end.error().message);
  }
  PortCounters b = ReadPortCounters(root, region->device, region->port);
  ProcessCpu cpu_b = SampleProcessCpu();
  RdmaSideReport report;
  report.counters = DiffPortCounters(a, b);
  report.user_seconds = cpu_b.user_seconds - cpu_a.user_seconds;
  report.system_seconds = cpu_b.system_seconds - cpu_a.system_seconds;
  if (auto s = ctx.control.Write(RdmaSideReportToMessage(report), idle()); !s.ok()) {
    return Fail(ctx, s.error().message);
  }
  (void)ctx.control.Read(idle());  // BYE, or the peer closing
  target->reset();                 // QPs down and the region deregistered before the slot frees
  log::Info("rdma probe session completed",
            {{"peer", AddressText(ctx.peer)},
             {"device", region->device},
             {"qps", std::to_string(req->qps)},
             {"region_bytes", std::to_string(req->region_bytes())}});
  return SessionKindOutcome::kCompleted;
}

}  // namespace

void AddRdmaSessionKind(ResponderOptions& options, RdmaBackend& backend,
                        RdmaResponderOptions rdma) {
  options.kinds[kRdmaTestVerb] = [&backend, rdma](SessionContext& ctx) {
    return Serve(ctx, backend, rdma);
  };
}

}  // namespace fabric::probe
