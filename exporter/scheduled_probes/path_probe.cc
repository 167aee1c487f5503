#include "exporter/scheduled_probes/path_probe.h"

#include <algorithm>

#include "active-probes/path/jumbo_check.h"
#include "active-probes/path/route_lookup.h"

namespace fabric {

ProbeRecord RunPathProbe(const FleetNode& self, const FleetNode& peer,
                         std::chrono::milliseconds echo_timeout, const std::atomic<bool>* stop) {
  ProbeRecord record;
  record.key = {"path", peer.name, ""};
  auto route = LookupRoute(peer.address);
  if (!route.ok()) {
    record.failure_reason = "no_route";
    record.failure_detail = route.error().message;
    return record;
  }
  record.success = true;
  record.info["egress_interface"] = route->interface;
  record.info["source_address"] = route->source_address;
  record.info["gateway"] = route->gateway;
  record.values["route_mtu_bytes"] = route->mtu;
  if (!self.interface.empty()) {
    record.info["expected_interface"] = self.interface;
    record.values["egress_matches_expected"] = route->interface == self.interface ? 1 : 0;
  }
  const int path_mtu =
      self.mtu > 0 && peer.mtu > 0 ? std::min(self.mtu, peer.mtu) : std::max(self.mtu, peer.mtu);
  if (path_mtu > 0) {
    auto echo = JumboEcho(peer.address, path_mtu, echo_timeout, stop);
    if (echo.ok()) {
      record.values["jumbo_frames_pass"] = *echo ? 1 : 0;
      record.values["jumbo_frame_bytes"] = path_mtu;
    } else {
      // The route part stands; the missing value says the check did not run.
      record.failure_detail = echo.error().message;
    }
  }
  return record;
}

}  // namespace fabric
