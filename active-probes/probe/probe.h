// The probe seam: every probe kind (TCP, RDMA, storage, path) runs through
// this one interface with one context, and one generic adapter
// (exporter/scheduled_probes/probe_adapter.h) turns its measurements or its
// error into records. A kind declares the values and verdicts it produces; the
// catalogue (values.h) holds only declared ones, and the adapter publishes
// nothing a kind did not declare.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "active-probes/probe/direction.h"
#include "active-probes/probe/rungs.h"
#include "active-probes/probe/values.h"
#include "common/clock.h"
#include "common/read/sysroot.h"
#include "common/result.h"
#include "common/stop_token.h"

namespace fabric::probe {

using PeerFleetObserver =
    std::function<void(const std::string& peer_host, const std::string& digest)>;

// What every probe run gets from its owner: where procfs and sysfs are
// mounted, the stop request (a signal, the exporter's shutdown: the run ends
// within ~50 ms with an ErrorCode::kInterrupted error), and the clock.
struct ProbeContext {
  const SysRoot& root;
  StopToken stop;
  fabric::Clock& clock;
  // The bytes this node's probe traffic moved (TCP data streams, warm-up
  // included), added as each stream ends: the exporter publishes what probing
  // costs the node. Null counts nowhere.
  std::atomic<uint64_t>* moved_bytes = nullptr;
  // The fleet agreement (docs/scale.md): this node's fleet digest, sent in the
  // session's HELLO (empty: none, a probe by hand), and what receives the
  // responder's answer (`peer_host`, its digest; "" from a responder that
  // sends none). Default-initialised so {root, stop, clock} still builds one.
  std::string fleet_digest{};
  PeerFleetObserver on_peer_fleet{};
};

// One record's worth of a successful run: a direction of a TCP run, the
// RDMA run, a storage run, a path check.
struct Measurement {
  Direction direction = Direction::kNone;
  std::map<ProbeValue, double> values;
  std::map<Verdict, bool> verdicts;
  // Descriptive labels (fabric_probe_info), e.g. the interface the traffic left through.
  std::map<std::string, std::string> info;
  // Something the run could not do though it produced a result (the path
  // check's jumbo echo failing to run): logged and kept as the record's detail.
  std::string note;
};

// What a probe kind produces, for the catalogue's producer table and the
// adapter's check.
struct ProbeDeclaration {
  std::string_view kind;  // "tcp", "rdma", "storage", "path": how logs name it.
  std::vector<Rung> rungs;
  std::vector<ProbeValue> values;
  std::vector<Verdict> verdicts;
};

class Probe {
 public:
  virtual ~Probe() = default;
  virtual const ProbeDeclaration& declaration() const = 0;
  // The rung and target of the records this run makes.
  virtual Rung rung() const = 0;
  virtual std::string target() const = 0;
  // One Measurement per record (per direction of the rung), or why there is none.
  virtual Result<std::vector<Measurement>> Run(const ProbeContext& context) = 0;
};

}  // namespace fabric::probe
