#include "exporter/collectors/netdev_ethtool.h"

#include <string>
#include <tuple>
#include <utility>

namespace fabric {
namespace {

void EmitLimits(const EthtoolLimits& limits, const LabelPairs& dev, const char* label,
                const char* metric, const char* help, MetricSink& sink) {
  for (const auto& l : limits) {
    for (auto [bound, value] : {std::pair{"current", l.current}, std::pair{"max", l.max}}) {
      if (!value) continue;
      LabelPairs labels = dev;
      labels.emplace_back(label, l.kind);
      labels.emplace_back("bound", bound);
      sink.Gauge(metric, help, labels, static_cast<double>(*value));
    }
  }
}

constexpr char kFecHelpTail[] =
    " from the kernel's FEC statistics (ethtool netlink ETHTOOL_A_FEC_STATS, driver-neutral). "
    "rate() against the line rate is the pre-FEC error rate (instance_device:"
    "fabric_netdev_pre_fec_ber:rate5m).";

struct FecCounter {
  const EthtoolFecCounter& counter;
  const char* port_metric;
  const char* lane_metric;
  const char* what;
};

}  // namespace

void EmitPause(const EthtoolPause& pause, const LabelPairs& dev, MetricSink& sink) {
  if (pause.autoneg) {
    sink.Gauge("fabric_netdev_pause_autoneg_enabled",
               "1 when pause (flow control) settings are autonegotiated with the link partner.",
               dev, *pause.autoneg ? 1 : 0);
  }
  const char* kEnabledHelp =
      "1 when link-level pause is enabled in this direction: rx honours the partner's pause "
      "frames, tx sends pause frames when the host falls behind.";
  const char* kFramesHelp =
      "Pause frames sent and received, from the kernel's standard pause statistics (ethtool "
      "netlink, IEEE 802.3 PAUSE MAC control frames). direction=tx counts this host asking "
      "its switch to stop: its receive path is the bottleneck.";
  for (auto [direction, enabled, frames] :
       {std::tuple{"rx", pause.rx, pause.rx_frames}, {"tx", pause.tx, pause.tx_frames}}) {
    LabelPairs labels = dev;
    labels.emplace_back("direction", direction);
    if (enabled) sink.Gauge("fabric_netdev_pause_enabled", kEnabledHelp, labels, *enabled);
    if (frames) {
      sink.Counter("fabric_netdev_pause_frames_total", kFramesHelp, labels,
                   static_cast<double>(*frames));
    }
  }
}

void EmitChannels(const EthtoolLimits& channels, const LabelPairs& dev, MetricSink& sink) {
  EmitLimits(channels, dev, "kind", "fabric_netdev_channels",
             "NIC channels (queue sets, each served by one interrupt and usually one CPU) by "
             "kind: current setting and the driver's maximum. Fewer channels than busy CPUs "
             "concentrates receive work.",
             sink);
}

void EmitRings(const EthtoolLimits& rings, const LabelPairs& dev, MetricSink& sink) {
  EmitLimits(rings, dev, "ring", "fabric_netdev_ring_entries",
             "NIC descriptor ring sizes in entries: current setting and the driver's maximum. "
             "Small receive rings overflow (out_of_buffer, missed) during bursts.",
             sink);
}

void EmitFec(const EthtoolFec& fec, const LabelPairs& with_role, MetricSink& sink) {
  if (!fec.active.empty()) {
    LabelPairs labels = with_role;
    labels.emplace_back("active", fec.active);
    sink.Info("fabric_netdev_fec_info",
              "The interface's active forward error correction: off, rs (Reed-Solomon, "
              "RS(528,514) or RS(544,514)), baser (Fire code), llrs, or none (no FEC mode "
              "reported). Peers on one cable must agree.",
              std::move(labels));
  }
  const FecCounter counters[] = {
      {fec.corrected_blocks, "fabric_netdev_fec_corrected_blocks_total",
       "fabric_netdev_fec_lane_corrected_blocks_total",
       "FEC codewords with errors that FEC corrected"},
      {fec.uncorrectable_blocks, "fabric_netdev_fec_uncorrectable_blocks_total",
       "fabric_netdev_fec_lane_uncorrectable_blocks_total",
       "FEC codewords FEC could not correct (each a lost frame)"},
      {fec.corrected_bits, "fabric_netdev_fec_corrected_bits_total",
       "fabric_netdev_fec_lane_corrected_bits_total", "Bits FEC corrected"},
  };
  for (const FecCounter& c : counters) {
    if (c.counter.total) {
      sink.Counter(c.port_metric, std::string(c.what) + " on the port" + kFecHelpTail, with_role,
                   static_cast<double>(*c.counter.total));
    }
    for (size_t lane = 0; lane < c.counter.lanes.size() && lane < kMaxFecLanes; ++lane) {
      LabelPairs labels = with_role;
      labels.emplace_back("lane", std::to_string(lane));
      sink.Counter(c.lane_metric,
                   std::string(c.what) +
                       ", per physical lane where the driver counts per lane "
                       "(FC-FEC; RS-FEC crosses lanes and has totals only): one lane far above its "
                       "siblings is a bad lane of the cable or optic. At most 8 lanes.",
                   std::move(labels), static_cast<double>(c.counter.lanes[lane]));
    }
  }
}

void EmitCoalesce(const EthtoolCoalesce& c, const LabelPairs& with_role, MetricSink& sink) {
  for (auto [direction, usecs, frames, adaptive] :
       {std::tuple{"rx", c.rx_usecs, c.rx_frames, c.adaptive_rx},
        {"tx", c.tx_usecs, c.tx_frames, c.adaptive_tx}}) {
    LabelPairs labels = with_role;
    labels.emplace_back("direction", direction);
    if (usecs) {
      sink.Gauge("fabric_netdev_coalesce_usecs",
                 "Interrupt coalescing delay (ethtool -c rx-usecs/tx-usecs): how long the NIC "
                 "waits after a packet before it interrupts the host. A receive path that "
                 "differs from its peers' here is a first suspect for uneven receive latency.",
                 labels, static_cast<double>(*usecs));
    }
    if (frames) {
      sink.Gauge("fabric_netdev_coalesce_frames",
                 "Interrupt coalescing frame count (ethtool -c rx-frames/tx-frames): packets "
                 "the NIC gathers before it interrupts the host.",
                 labels, static_cast<double>(*frames));
    }
    if (adaptive) {
      sink.Gauge("fabric_netdev_coalesce_adaptive",
                 "1 when adaptive interrupt moderation (DIM) chooses the coalescing values "
                 "itself in this direction (ethtool -c Adaptive RX/TX).",
                 labels, *adaptive ? 1 : 0);
    }
  }
}

void EmitFeatures(const EthtoolFeatures& f, const LabelPairs& with_role, MetricSink& sink) {
  for (auto [offload, enabled] :
       {std::pair{"gro", f.gro}, {"lro", f.lro}, {"tso", f.tso}, {"gso", f.gso}}) {
    if (!enabled) continue;
    LabelPairs labels = with_role;
    labels.emplace_back("offload", offload);
    sink.Gauge("fabric_netdev_offload_enabled",
               "1 when the offload is on (ethtool -k): gro and lro merge received segments "
               "(fewer, larger packets up the stack), tso and gso send large segments. A fabric "
               "NIC with gro off receives several times more packets per byte than its peers.",
               std::move(labels), *enabled ? 1 : 0);
  }
}

}  // namespace fabric
