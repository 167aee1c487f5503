#include "exporter/scheduled_probes/rdma_ladder_probe.h"

#include <chrono>

#include "active-probes/rdma/rdma_probe.h"
#include "active-probes/rdma/rdma_report.h"
#include "active-probes/tcp/report.h"
#include "active-probes/tcp/tcp_probe.h"
#include "common/log.h"

namespace fabric {
namespace {

double WallSeconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// The failure label: the RDMA probe's own kinds (rdma_report.h: "no-device:",
// "no-port:"), else the control channel's error kinds.
std::string FailureReason(const Error& error) {
  std::string kind = probe::RdmaErrorKind(error);
  if (kind == "no-device") return "no_device";
  if (kind == "no-port") return "no_active_port";
  return std::string(probe::ErrorKindName(probe::ErrorKindOf(error)));
}

}  // namespace

std::vector<ProbeKey> RdmaLadderKeys(const std::string& peer) { return {{"rdma", peer, "send"}}; }

ProbeOutcome RunRdmaLadder(const RdmaLadderSettings& settings, const std::string& secret,
                           uint16_t port, const FleetNode& self, const FleetNode& peer,
                           const std::string& procfs, const std::string& sysfs,
                           const std::atomic<bool>* stop, ResultStore& store) {
  probe::RdmaProbeOptions options;
  options.peer = {peer.address, port};
  options.bind_address = self.address;
  options.secret = secret;
  options.device = settings.device;
  options.qps = settings.qps;
  options.size = settings.size;
  options.tx_depth = settings.tx_depth;
  options.duration =
      std::chrono::milliseconds(static_cast<int64_t>(settings.duration_seconds * 1000));
  options.warmup = std::chrono::milliseconds(static_cast<int64_t>(settings.warmup_seconds * 1000));
  options.busy_retries = 2;
  options.procfs = procfs;
  options.sysfs = sysfs;
  options.stop = stop;
  const auto start = std::chrono::steady_clock::now();
  auto result = probe::RunRdmaProbe(options);
  ProbeRecord record;
  record.key = {"rdma", peer.name, "send"};
  record.timestamp_seconds = WallSeconds();
  record.duration_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!result.ok() && probe::ErrorKindOf(result.error()) == probe::ProbeErrorKind::kInterrupted) {
    // Shutdown: a cut-short run is no result and no failure of the peer.
    log::Info("rdma probe interrupted", {{"peer", peer.name}});
    return ProbeOutcome::kFailure;
  }
  if (!result.ok()) {
    record.failure_reason = FailureReason(result.error());
    record.failure_detail = result.error().message;
    log::Warn("rdma probe failed", {{"peer", peer.name}, {"err", result.error().message}});
    bool busy = record.failure_reason == "busy";
    store.Record(std::move(record));
    return busy ? ProbeOutcome::kBusy : ProbeOutcome::kFailure;
  }
  record.success = true;
  auto& v = record.values;
  v["throughput_bytes_per_second"] = result->bytes_per_second;
  v["bytes"] = static_cast<double>(result->bytes);
  v["window_seconds"] = result->window_seconds;
  v["streams"] = result->qps;
  v["stream_min_bytes_per_second"] = result->qp_min_bytes_per_second;
  v["stream_max_bytes_per_second"] = result->qp_max_bytes_per_second;
  record.verdicts = {{"cpu_bound", result->cpu_bound},
                     {"contended", result->contended},
                     {"stream_limited", result->qp_limited},
                     {"congested", result->congested}};
  record.info["device"] = result->device;
  record.info["link_layer"] = result->link_layer;
  // Whether the port's own byte counter agrees with the completions (not a
  // verdict: true is the good state).
  record.info["counters_consistent"] = result->counters_consistent ? "true" : "false";
  store.Record(std::move(record));
  return ProbeOutcome::kSuccess;
}

}  // namespace fabric
