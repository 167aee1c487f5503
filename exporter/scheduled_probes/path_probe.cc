#include "exporter/scheduled_probes/path_probe.h"

#include <algorithm>

#include "active-probes/path/jumbo_check.h"
#include "common/kernel/net_class.h"

namespace fabric {

using probe::ProbeValue;

const probe::ProbeDeclaration& PathProbeDeclaration() {
  static const probe::ProbeDeclaration declaration{
      "path",
      {probe::Rung::kPath},
      {ProbeValue::kRouteMtu, ProbeValue::kEgressMatchesExpected, ProbeValue::kJumboFramesPass,
       ProbeValue::kJumboFrameBytes},
      {},
  };
  return declaration;
}

int ExpectedPathMtu(const FleetNode& self, const FleetNode& peer) {
  return self.mtu > 0 && peer.mtu > 0 ? std::min(self.mtu, peer.mtu) : std::max(self.mtu, peer.mtu);
}

probe::Measurement PathMeasurement(const FleetNode& self, const RouteInfo& route, int path_mtu,
                                   const std::optional<Result<bool>>& echo) {
  probe::Measurement m;
  m.info["egress_interface"] = route.interface;
  m.info["source_address"] = route.source_address;
  m.info["gateway"] = route.gateway;
  m.values[ProbeValue::kRouteMtu] = route.mtu;
  if (!self.interface.empty()) {
    m.info["expected_interface"] = self.interface;
    m.values[ProbeValue::kEgressMatchesExpected] = route.interface == self.interface ? 1 : 0;
  }
  if (echo && echo->ok()) {
    m.values[ProbeValue::kJumboFramesPass] = **echo ? 1 : 0;
    m.values[ProbeValue::kJumboFrameBytes] = path_mtu;
  } else if (echo) {
    // The route part stands; the missing value says the check did not run.
    m.note = echo->error().message;
  }
  return m;
}

PathProbe::PathProbe(const FleetNode& self, const FleetNode& peer,
                     std::chrono::milliseconds echo_timeout, std::optional<double> saturated)
    : self_(self), peer_(peer), echo_timeout_(echo_timeout), saturated_(saturated) {}

Result<std::vector<probe::Measurement>> PathProbe::Run(const probe::ProbeContext& context) {
  auto route = LookupRoute(peer_.address);
  if (!route.ok()) return Unexpected{route.error()};
  const int path_mtu = ExpectedPathMtu(self_, peer_);
  std::optional<Result<bool>> echo;
  if (path_mtu > 0) {
    // The egress counters only matter when a proven rate says what a full path carries.
    const auto before =
        saturated_ ? ReadNetByteCounters(context.root, route->interface) : std::nullopt;
    const auto started = std::chrono::steady_clock::now();
    for (int attempt = 0; attempt < kJumboEchoAttempts; ++attempt) {
      echo = JumboEcho(peer_.address, path_mtu, echo_timeout_, context.stop);
      if (!echo->ok() || **echo) break;
    }
    const auto after = before ? ReadNetByteCounters(context.root, route->interface) : std::nullopt;
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (echo->ok() && !**echo && saturated_ && before && after && seconds > 0) {
      const double carried = static_cast<double>(std::max(after->tx_bytes - before->tx_bytes,
                                                          after->rx_bytes - before->rx_bytes)) /
                             seconds;
      if (carried >= *saturated_) {
        echo = MakeError("no jumbo echo came back while " + route->interface + " carried " +
                         std::to_string(static_cast<int64_t>(carried)) +
                         " B/s, at least half of what the path proved: lost to a full "
                         "queue, not judged");
      }
    }
    if (!echo->ok() && echo->error().code == ErrorCode::kInterrupted) {
      return Unexpected{echo->error()};
    }
  }
  return std::vector<probe::Measurement>{PathMeasurement(self_, *route, path_mtu, echo)};
}

}  // namespace fabric
