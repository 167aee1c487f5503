#include "exporter/collectors/netdev_sysfs.h"

#include "common/kernel/net_class.h"

namespace fabric {
namespace {

struct InterfaceCounter {
  const char* file;  // Under class/net/<if>/statistics/.
  const char* metric;
  const char* help;
  const char* direction;  // nullptr for receive-only counters without the label.
};

// clang-format off
constexpr InterfaceCounter kInterfaceCounters[] = {
  {"rx_bytes", "fabric_netdev_bytes_total", "Bytes received/transmitted by the interface.", "rx"},
  {"tx_bytes", "fabric_netdev_bytes_total", "Bytes received/transmitted by the interface.", "tx"},
  {"rx_packets", "fabric_netdev_packets_total", "Packets received/transmitted by the interface.",
   "rx"},
  {"tx_packets", "fabric_netdev_packets_total", "Packets received/transmitted by the interface.",
   "tx"},
  {"rx_errors", "fabric_netdev_errors_total",
   "Receive/transmit errors the driver counted (the sum of its specific error counters).", "rx"},
  {"tx_errors", "fabric_netdev_errors_total",
   "Receive/transmit errors the driver counted (the sum of its specific error counters).", "tx"},
  {"rx_dropped", "fabric_netdev_dropped_total",
   "Packets dropped by the interface or its driver without an error (no buffer, filtered).",
   "rx"},
  {"tx_dropped", "fabric_netdev_dropped_total",
   "Packets dropped by the interface or its driver without an error (no buffer, filtered).",
   "tx"},
  {"rx_fifo_errors", "fabric_netdev_fifo_errors_total",
   "Receive/transmit FIFO overruns/underruns in the NIC.", "rx"},
  {"tx_fifo_errors", "fabric_netdev_fifo_errors_total",
   "Receive/transmit FIFO overruns/underruns in the NIC.", "tx"},
  {"rx_missed_errors", "fabric_netdev_missed_errors_total",
   "Packets the NIC missed because the host did not provide receive buffers in time.", nullptr},
  {"rx_crc_errors", "fabric_netdev_crc_errors_total",
   "Frames received with a bad CRC: a physical-link problem.", nullptr},
  {"rx_frame_errors", "fabric_netdev_frame_errors_total",
   "Frames received with alignment/framing errors.", nullptr},
  {"rx_length_errors", "fabric_netdev_length_errors_total",
   "Frames received with a bad length (runts, giants).", nullptr},
  {"rx_over_errors", "fabric_netdev_over_errors_total",
   "Receive ring buffer overflows reported by the driver.", nullptr},
  {"tx_carrier_errors", "fabric_netdev_carrier_errors_total",
   "Transmissions lost to carrier problems.", nullptr},
  {"multicast", "fabric_netdev_multicast_packets_total", "Multicast packets received.", nullptr},
};
// clang-format on

enum class EthtoolSource { kKernel, kFixture, kNone };

}  // namespace

Result<NetdevLink> ReadNetdevLink(const AttributeDir& dir) {
  NetdevLink link;
  for (auto [file, out] : {std::pair{"mtu", &link.mtu},
                           {"speed", &link.speed},
                           {"carrier_changes", &link.carrier_changes},
                           {"carrier", &link.carrier},
                           {"carrier_up_count", &link.carrier_up},
                           {"carrier_down_count", &link.carrier_down}}) {
    auto v = ReadNetInt(dir, file);
    if (!v.ok()) return Unexpected{v.error()};
    *out = *v;
  }
  for (auto [file, out] : {std::pair{"duplex", &link.duplex}, {"operstate", &link.operstate}}) {
    auto v = ReadNetWord(dir, file);
    if (!v.ok()) return Unexpected{v.error()};
    *out = *v;
  }
  return link;
}

void EmitNetdevLink(const NetdevLink& link, const LabelPairs& dev, const LabelPairs& with_role,
                    MetricSink& sink) {
  if (link.mtu) {
    sink.Gauge("fabric_netdev_mtu_bytes",
               "Interface MTU. A mismatch between the ends of a path breaks jumbo frames.", dev,
               static_cast<double>(*link.mtu));
  }
  // -1 (SPEED_UNKNOWN) when the driver does not know it: no series.
  if (link.speed && *link.speed > 0) {
    sink.Gauge("fabric_netdev_speed_bytes",
               "Negotiated link speed in bytes per second (sysfs speed, Mb/s x 125000): the top "
               "rung of the ladder this node's throughput is measured against.",
               dev, static_cast<double>(*link.speed) * 125000.0);
  }
  if (link.carrier_changes) {
    sink.Counter("fabric_netdev_carrier_changes_total",
                 "Times the link went up or down: a flapping link or a renegotiating port.", dev,
                 static_cast<double>(*link.carrier_changes));
  }
  for (auto [transition, count] :
       {std::pair{"up", link.carrier_up}, std::pair{"down", link.carrier_down}}) {
    if (!count) continue;
    LabelPairs labels = with_role;
    labels.emplace_back("transition", transition);
    sink.Counter("fabric_netdev_carrier_transitions_total",
                 "Times the interface's carrier came up or went down (sysfs carrier_up_count, "
                 "carrier_down_count, Linux 4.15+): down counts are link flaps. Rules judge them "
                 "over a window (FabricLinkFlapping), never a single increment.",
                 std::move(labels), static_cast<double>(*count));
  }
  if (link.carrier) {
    sink.Gauge("fabric_netdev_carrier", "1 when the interface has a link (carrier), else 0.", dev,
               static_cast<double>(*link.carrier));
  }
  if (link.duplex && (*link.duplex == "full" || *link.duplex == "half")) {
    sink.Gauge("fabric_netdev_full_duplex", "1 for a full-duplex link, 0 for half duplex.", dev,
               *link.duplex == "full" ? 1 : 0);
  }
  if (link.operstate) {
    sink.Gauge("fabric_netdev_up", "1 when the interface's operational state (RFC 2863) is up.",
               dev, *link.operstate == "up" ? 1 : 0);
    LabelPairs labels = dev;
    labels.emplace_back("operstate", *link.operstate);
    sink.Info("fabric_netdev_operstate_info",
              "The interface's operational state (RFC 2863): up, down, lowerlayerdown, dormant, "
              "notpresent, testing or unknown.",
              labels);
  }
}

Result<NetdevStatistics> ReadNetdevStatistics(const AttributeDir& dir) {
  const AttributeDir statistics = NetStatisticsDir(dir);
  NetdevStatistics out;
  for (size_t i = 0; i < std::size(kInterfaceCounters); ++i) {
    auto v = ReadNetInt(statistics, kInterfaceCounters[i].file);
    if (!v.ok()) return Unexpected{v.error()};
    if (*v) out.emplace_back(i, **v);
  }
  return out;
}

void EmitNetdevStatistics(const NetdevStatistics& statistics, const LabelPairs& dev,
                          MetricSink& sink) {
  for (const auto& [i, value] : statistics) {
    const InterfaceCounter& c = kInterfaceCounters[i];
    LabelPairs labels = dev;
    if (c.direction != nullptr) labels.emplace_back("direction", c.direction);
    sink.Counter(c.metric, c.help, labels, static_cast<double>(value));
  }
}

}  // namespace fabric
