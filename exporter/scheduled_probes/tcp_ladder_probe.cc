#include "exporter/scheduled_probes/tcp_ladder_probe.h"

#include "active-probes/tcp/report.h"
#include "active-probes/tcp/tcp_probe.h"
#include "common/log.h"

namespace fabric {
namespace {

using probe::ProbeErrorKind;

double WallSeconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

ProbeOutcome RunTcpRung(const std::string& rung, const TcpLadderSettings& settings,
                        const FleetNode& self, const FleetNode& peer, const std::string& procfs,
                        const std::string& sysfs, const std::atomic<bool>* stop,
                        ResultStore& store) {
  const uint32_t streams = rung == "tcp_single" ? 1 : settings.streams;
  probe::TcpProbeOptions options;
  options.peer = {peer.address, settings.port};
  options.bind_address = self.address;
  options.secret = settings.secret;
  options.streams = streams;
  options.duration =
      std::chrono::milliseconds(static_cast<int64_t>(settings.duration_seconds * 1000));
  options.warmup = std::chrono::milliseconds(static_cast<int64_t>(settings.warmup_seconds * 1000));
  options.direction = probe::Direction::kBoth;
  options.busy_retries = 2;
  options.pin = false;  // The exporter shares the host; let the scheduler place threads.
  options.procfs = procfs;
  options.sysfs = sysfs;
  options.stop = stop;
  const auto start = std::chrono::steady_clock::now();
  auto result = probe::RunTcpProbe(options);
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!result.ok()) {
    auto kind = probe::ErrorKindOf(result.error());
    if (kind == ProbeErrorKind::kInterrupted) {
      // Shutdown: a cut-short run is no result and no failure of the peer.
      log::Info("tcp probe interrupted", {{"probe", rung}, {"peer", peer.name}});
      return ProbeOutcome::kFailure;
    }
    log::Warn("tcp probe failed",
              {{"probe", rung}, {"peer", peer.name}, {"err", result.error().message}});
    for (const char* direction : {"send", "receive"}) {
      ProbeRecord record;
      record.key = {rung, peer.name, direction};
      record.timestamp_seconds = WallSeconds();
      record.duration_seconds = elapsed;
      record.failure_reason = std::string(probe::ErrorKindName(kind));
      record.failure_detail = result.error().message;
      store.Record(std::move(record));
    }
    return kind == ProbeErrorKind::kBusy ? ProbeOutcome::kBusy : ProbeOutcome::kFailure;
  }
  for (const auto& d : result->directions) {
    ProbeRecord record;
    record.key = {rung, peer.name, d.direction};
    record.timestamp_seconds = WallSeconds();
    record.duration_seconds = elapsed;
    record.success = true;
    auto& v = record.values;
    v["throughput_bytes_per_second"] = d.bytes_per_second;
    v["bytes"] = static_cast<double>(d.bytes);
    v["window_seconds"] = d.window_seconds;
    v["streams"] = d.streams;
    v["stream_min_bytes_per_second"] = d.per_stream.min;
    v["stream_median_bytes_per_second"] = d.per_stream.median;
    v["stream_max_bytes_per_second"] = d.per_stream.max;
    v["retransmits"] = static_cast<double>(d.retransmits);
    v["rtt_seconds"] = d.rtt_seconds;
    v["cwnd_bytes"] = static_cast<double>(d.cwnd_segments * d.mss);
    v["rwnd_limited_ratio"] = d.rwnd_limited_fraction;
    v["sndbuf_limited_ratio"] = d.sndbuf_limited_fraction;
    v["mss_bytes"] = static_cast<double>(d.mss);
    v["local_cpu_ratio"] = result->local_cpu.max_thread_cpu;
    v["remote_cpu_ratio"] = result->remote_cpu.max_thread_cpu;
    const auto& c = result->checks;
    record.verdicts = {{"cpu_bound", c.cpu_bound},
                       {"contended", c.contended},
                       {"stream_limited", c.stream_limited},
                       {"receiver_window_limited", c.receiver_window_limited},
                       {"send_buffer_limited", c.send_buffer_limited}};
    if (!result->iface.empty()) record.info["interface"] = result->iface;
    store.Record(std::move(record));
  }
  return ProbeOutcome::kSuccess;
}

std::vector<ProbeKey> TcpLadderKeys(const TcpLadderSettings& settings, const std::string& peer) {
  std::vector<ProbeKey> keys;
  for (const char* direction : {"send", "receive"}) {
    keys.push_back({"tcp_multi", peer, direction});
    if (settings.single_stream) keys.push_back({"tcp_single", peer, direction});
  }
  return keys;
}

ProbeOutcome RunTcpLadder(const TcpLadderSettings& settings, const FleetNode& self,
                          const FleetNode& peer, const std::string& procfs,
                          const std::string& sysfs, const std::atomic<bool>* stop,
                          ResultStore& store) {
  ProbeOutcome multi = RunTcpRung("tcp_multi", settings, self, peer, procfs, sysfs, stop, store);
  if (multi != ProbeOutcome::kSuccess || !settings.single_stream) return multi;
  return RunTcpRung("tcp_single", settings, self, peer, procfs, sysfs, stop, store);
}

}  // namespace fabric
