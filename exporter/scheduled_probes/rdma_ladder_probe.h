// The scheduled RDMA rung, the top of the ladder: RDMA WRITE bandwidth to the
// peer of the plan round (probe=rdma, direction=send), with the RDMA probe's
// self-checks, recorded through the probe seam. Hosts without an RDMA device
// record the reason (no_device), a port that is down, ours or the
// responder's, no_active_port; never a number.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "active-probes/probe/probe.h"
#include "active-probes/rdma/rdma_probe.h"
#include "exporter/config/fleet.h"
#include "exporter/scheduled_probes/result_store.h"
#include "exporter/scheduled_probes/scheduler.h"

namespace fabric {

struct RdmaLadderSettings {
  bool enabled = false;
  uint32_t qps = 4;
  uint32_t size = 65536;
  uint32_t tx_depth = 128;
  double duration_seconds = 5;
  double warmup_seconds = 1;
  std::string device;                      // Empty: the device holding the source address.
  uint64_t max_region_bytes = 1ull << 30;  // Largest region a peer's session may register here.
};

// What the RDMA rung produces.
const probe::ProbeDeclaration& RdmaRungDeclaration();
// A run's record (pure).
probe::Measurement RdmaMeasurement(const probe::RdmaProbeResult& result);

// Called with every run that produced a result: the runtime counts the RDMA
// bytes the probe put through its local port (fabric_probe_spent_rdma_bytes_total).
using RdmaResultObserver = std::function<void(const probe::RdmaProbeResult&)>;

class RdmaRungProbe : public probe::Probe {
 public:
  // `backend`: the data path; the build's (verbs, or "no RDMA device") when null.
  RdmaRungProbe(const RdmaLadderSettings& settings, const std::string& secret, uint16_t port,
                const FleetNode& self, const FleetNode& peer, probe::RdmaBackend* backend = nullptr,
                RdmaResultObserver observer = nullptr);
  const probe::ProbeDeclaration& declaration() const override { return RdmaRungDeclaration(); }
  probe::Rung rung() const override { return probe::Rung::kRdma; }
  std::string target() const override { return peer_.name; }
  Result<std::vector<probe::Measurement>> Run(const probe::ProbeContext& context) override;

 private:
  RdmaLadderSettings settings_;
  std::string secret_;
  uint16_t port_;
  FleetNode self_;
  FleetNode peer_;
  probe::RdmaBackend* backend_;
  RdmaResultObserver observer_;
};

std::vector<ProbeKey> RdmaLadderKeys(const std::string& peer);

// The context's stop request ends the run within ~50 ms; an interrupted run
// records nothing.
ProbeOutcome RunRdmaLadder(const RdmaLadderSettings& settings, const std::string& secret,
                           uint16_t port, const FleetNode& self, const FleetNode& peer,
                           const probe::ProbeContext& context, ResultStore& store,
                           RdmaResultObserver observer = nullptr);

}  // namespace fabric
