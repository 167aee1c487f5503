#include "exporter/collectors/pcie_link_health.h"

#include <tuple>

namespace fabric {

void EmitLinkCounts(const std::map<std::string, PcieLinkCounts>& counts, MetricSink& sink) {
  for (const auto& [address, c] : counts) {
    sink.Counter("fabric_pcie_link_samples_total",
                 "Times the link sampler read this device's current link speed and width "
                 "(collectors.pcie.link_sample_interval_seconds apart, or a recorded trace over "
                 "a fixture tree).",
                 {{"address", address}}, static_cast<double>(c.samples));
    for (auto [dimension, transitions, below] :
         {std::tuple{"speed", c.speed_transitions, c.below_speed_seconds},
          {"width", c.width_transitions, c.below_width_seconds}}) {
      LabelPairs labels = {{"address", address}, {"dimension", dimension}};
      sink.Counter("fabric_pcie_link_transitions_total",
                   "Changes of the device's current link speed or width the sampler saw between "
                   "consecutive samples: retraining a scrape misses (a link that drops to x8 and "
                   "back between two scrapes reads x16 at both). GPUs change speed with load; "
                   "NICs and NVMe drives should not.",
                   labels, static_cast<double>(transitions));
      sink.Counter("fabric_pcie_link_below_capable_seconds_total",
                   "Time the device's link ran below the speed or width it can train to "
                   "(min of its own and its upstream port's maximum), by the sampler's clock. "
                   "rate() of it is the fraction of time the link was degraded.",
                   std::move(labels), below);
    }
  }
}

void EmitLinkAspm(const std::string& address, const std::vector<std::pair<std::string, bool>>& aspm,
                  MetricSink& sink) {
  for (const auto& [state, enabled] : aspm) {
    sink.Gauge("fabric_pcie_link_aspm_enabled",
               "1 when the ASPM power state is enabled on the link above this device (sysfs "
               "link/<state>_aspm): l0s, l1, l1_1, l1_2. Entering and leaving them costs "
               "microseconds of latency; peers of one role should agree.",
               {{"address", address}, {"state", state}}, enabled ? 1 : 0);
  }
}

void EmitAspmPolicy(const std::string& policy, MetricSink& sink) {
  static const char* const kPolicies[] = {"default", "performance", "powersave", "powersupersave"};
  int code = 4;  // Unknown to this build.
  for (size_t i = 0; i < std::size(kPolicies); ++i) {
    if (policy == kPolicies[i]) code = static_cast<int>(i);
  }
  sink.Gauge("fabric_pcie_aspm_policy",
             "The kernel's PCIe ASPM policy (/sys/module/pcie_aspm/parameters/policy) as a "
             "code: 0 default (firmware's settings), 1 performance (ASPM off), 2 powersave, 3 "
             "powersupersave, 4 other; the name is the policy label.",
             {{"policy", policy}}, code);
}

}  // namespace fabric
