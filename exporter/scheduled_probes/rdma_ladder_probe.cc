#include "exporter/scheduled_probes/rdma_ladder_probe.h"

#include <chrono>
#include <utility>

#include "active-probes/rdma/backend.h"
#include "exporter/scheduled_probes/probe_adapter.h"

namespace fabric {

using probe::ProbeValue;
using probe::Rung;
using probe::Verdict;

const probe::ProbeDeclaration& RdmaRungDeclaration() {
  static const probe::ProbeDeclaration declaration{
      "rdma",
      {Rung::kRdma},
      {ProbeValue::kThroughput, ProbeValue::kBytes, ProbeValue::kWindow, ProbeValue::kStreams,
       ProbeValue::kStreamMin, ProbeValue::kStreamMax},
      {Verdict::kCpuBound, Verdict::kContended, Verdict::kStreamLimited, Verdict::kCongested},
  };
  return declaration;
}

probe::Measurement RdmaMeasurement(const probe::RdmaProbeResult& result) {
  probe::Measurement m;
  m.direction = probe::Direction::kSend;
  auto& v = m.values;
  v[ProbeValue::kThroughput] = result.bytes_per_second;
  v[ProbeValue::kBytes] = static_cast<double>(result.bytes);
  v[ProbeValue::kWindow] = result.window_seconds;
  v[ProbeValue::kStreams] = result.qps;
  v[ProbeValue::kStreamMin] = result.qp_min_bytes_per_second;
  v[ProbeValue::kStreamMax] = result.qp_max_bytes_per_second;
  m.verdicts = {{Verdict::kCpuBound, result.cpu_bound},
                {Verdict::kContended, result.contended},
                {Verdict::kStreamLimited, result.qp_limited},
                {Verdict::kCongested, result.congested}};
  m.info["device"] = result.device;
  m.info["link_layer"] = result.link_layer;
  // Whether the port's own byte counter agrees with the completions (not a
  // verdict: true is the good state).
  m.info["counters_consistent"] = result.counters_consistent ? "true" : "false";
  return m;
}

RdmaRungProbe::RdmaRungProbe(const RdmaLadderSettings& settings, const std::string& secret,
                             uint16_t port, const FleetNode& self, const FleetNode& peer,
                             probe::RdmaBackend* backend, RdmaResultObserver observer)
    : settings_(settings),
      secret_(secret),
      port_(port),
      self_(self),
      peer_(peer),
      backend_(backend),
      observer_(std::move(observer)) {}

Result<std::vector<probe::Measurement>> RdmaRungProbe::Run(const probe::ProbeContext& context) {
  probe::RdmaProbeOptions options;
  options.peer = {peer_.address, port_};
  options.bind_address = self_.address;
  options.secret = secret_;
  options.device = settings_.device;
  options.qps = settings_.qps;
  options.size = settings_.size;
  options.tx_depth = settings_.tx_depth;
  options.duration =
      std::chrono::milliseconds(static_cast<int64_t>(settings_.duration_seconds * 1000));
  options.warmup = std::chrono::milliseconds(static_cast<int64_t>(settings_.warmup_seconds * 1000));
  options.busy_retries = 2;
  auto result = probe::RunRdmaProbe(options, context,
                                    backend_ != nullptr ? *backend_ : probe::DefaultRdmaBackend());
  if (!result.ok()) return Unexpected{result.error()};
  if (observer_) observer_(*result);
  return std::vector<probe::Measurement>{RdmaMeasurement(*result)};
}

std::vector<ProbeKey> RdmaLadderKeys(const std::string& peer) { return KeysOf(Rung::kRdma, peer); }

ProbeOutcome RunRdmaLadder(const RdmaLadderSettings& settings, const std::string& secret,
                           uint16_t port, const FleetNode& self, const FleetNode& peer,
                           const probe::ProbeContext& context, ResultStore& store,
                           RdmaResultObserver observer) {
  RdmaRungProbe probe(settings, secret, port, self, peer, nullptr, std::move(observer));
  return RunAndRecord(probe, context, store);
}

}  // namespace fabric
