#include "common/parse/driver_stats.h"

#include <cctype>
#include <map>
#include <string>
#include <vector>

namespace fabric {
namespace {

constexpr char kPause[] = "fabric_netdev_driver_pause_frames_total";
constexpr char kPauseHelp[] =
    "Link-level (IEEE 802.3x) pause frames from the NIC's port counters (mlx5 *_pause_ctrl_phy, "
    "ice/i40e link_xoff_*, bnxt *_pause_frames). direction=tx means this host told its switch "
    "port to stop sending because its receive path could not drain the NIC: a host-side "
    "bottleneck (CPU, softirq, PCIe), not a network fault.";
constexpr char kResume[] = "fabric_netdev_driver_pause_resume_frames_total";
constexpr char kResumeHelp[] =
    "Link-level XON (resume) frames from the NIC's port counters (ice/i40e link_xon_*): each "
    "ends a pause the same direction's pause frames started.";
constexpr char kPrioPause[] = "fabric_netdev_driver_priority_pause_frames_total";
constexpr char kPrioPauseHelp[] =
    "Priority flow control (IEEE 802.1Qbb PFC) pause frames per priority from the NIC's port "
    "counters (mlx5 *_prio<N>_pause, ice/i40e *_priority_<N>_xoff, bnxt *_pfc_ena_frames_pri<N>). "
    "On a lossless RoCE priority, rising tx counts mean this host is back-pressuring the fabric.";
constexpr char kPrioResume[] = "fabric_netdev_driver_priority_pause_resume_frames_total";
constexpr char kPrioResumeHelp[] =
    "PFC XON (resume) frames per priority from the NIC's port counters (ice/i40e "
    "*_priority_<N>_xon).";
constexpr char kPauseDuration[] = "fabric_netdev_driver_pause_duration_seconds_total";
constexpr char kPauseDurationHelp[] =
    "Time the port spent paused by link-level (global) pause, from the NIC's port counters "
    "(mlx5 *_global_pause_duration, microseconds converted to seconds). rate() of it is the "
    "fraction of time the link was stopped.";
constexpr char kPrioPauseDuration[] = "fabric_netdev_driver_priority_pause_duration_seconds_total";
constexpr char kPrioPauseDurationHelp[] =
    "Time each priority spent paused by PFC, from the NIC's port counters (mlx5 "
    "*_prio<N>_pause_duration, microseconds converted to seconds).";
constexpr char kStorm[] = "fabric_netdev_pause_storm_events_total";
constexpr char kStormHelp[] =
    "Pause-storm events the NIC detected (mlx5 tx_pause_storm_{warning,error}_events): the host "
    "sent pause continuously for the warning or error threshold; on error the NIC stops sending "
    "pause to protect the fabric.";
constexpr char kPhyDiscards[] = "fabric_netdev_phy_discards_total";
constexpr char kPhyDiscardsHelp[] =
    "Packets the NIC's physical port discarded for lack of device buffers (mlx5 *_discards_phy, "
    "ice rx_dropped.nic, i40e port.rx_dropped, bnxt *_stat_discard): the port received faster "
    "than the NIC could move data to the host.";
constexpr char kOutOfBuffer[] = "fabric_netdev_out_of_buffer_drops_total";
constexpr char kOutOfBufferHelp[] =
    "Packets dropped because a receive queue had no software buffer posted (mlx5 "
    "rx_out_of_buffer): the host's receive path (CPU, NAPI budget, ring size) fell behind.";
constexpr char kPciSignal[] = "fabric_netdev_pci_signal_integrity_events_total";
constexpr char kPciSignalHelp[] =
    "PCIe physical-layer signal integrity events of the NIC's PCIe link (mlx5 "
    "*_pci_signal_integrity: link recoveries after framing/CRC errors). Rising counts point at "
    "the slot, riser or card: reseat or move it.";
constexpr char kPciOverflow[] = "fabric_netdev_pci_buffer_overflow_drops_total";
constexpr char kPciOverflowHelp[] =
    "Packets the NIC dropped because its PCIe outbound buffer overflowed (mlx5 "
    "outbound_pci_buffer_overflow): received traffic exceeded what the PCIe link delivered.";
constexpr char kPhyCrc[] = "fabric_netdev_phy_crc_errors_total";
constexpr char kPhyCrcHelp[] =
    "Frames received with a bad FCS/CRC at the physical port (mlx5 rx_crc_errors_phy, ice "
    "rx_crc_errors.nic, i40e port.rx_crc_errors, bnxt rx_fcs_err_frames): cable, optic or "
    "switch port problems. Zero here rules the physical link out.";
constexpr char kPhySymbol[] = "fabric_netdev_phy_symbol_errors_total";
constexpr char kPhySymbolHelp[] =
    "Symbol errors at the physical port (mlx5 rx_symbol_err_phy, bnxt rx_pcs_symbol_err): "
    "uncorrectable line coding errors, a physical-link quality signal.";
constexpr char kPhyCorrected[] = "fabric_netdev_phy_corrected_bit_errors_total";
constexpr char kPhyCorrectedHelp[] =
    "Bits corrected by forward error correction at the physical port (mlx5 "
    "rx_corrected_bits_phy, bnxt rx_corrected_bits). A rising rate is a link degrading before "
    "it starts losing frames.";
constexpr char kPhyLaneErrors[] = "fabric_netdev_phy_lane_bit_errors_total";
constexpr char kPhyLaneErrorsHelp[] =
    "Bit errors the physical port detected per lane (mlx5 rx_err_lane_<N>_phy; with FEC on, the "
    "bits FEC corrected on that lane). The pre-FEC error counter where the kernel's FEC "
    "statistics are absent: one lane far above its siblings is a bad lane of the cable or optic.";
constexpr char kPhyLinkDown[] = "fabric_netdev_phy_link_down_events_total";
constexpr char kPhyLinkDownHelp[] =
    "Times the physical port's link went down, counted by the NIC (mlx5 link_down_events_phy): "
    "flaps the port saw even when the interface's carrier counters missed them.";
constexpr char kQueuePackets[] = "fabric_netdev_queue_packets_total";
constexpr char kQueuePacketsHelp[] =
    "Packets per NIC queue from the driver (mlx5 rx<N>_packets, ice/virtio rx_queue_<N>_packets, "
    "i40e rx-<N>.rx_packets). Shows whether traffic spreads over queues (and so CPUs). Opt-in: "
    "collectors.netdev.queue_stats.";
constexpr char kQueueBytes[] = "fabric_netdev_queue_bytes_total";
constexpr char kQueueBytesHelp[] =
    "Bytes per NIC queue from the driver (mlx5 rx<N>_bytes, ice/virtio rx_queue_<N>_bytes, i40e "
    "rx-<N>.rx_bytes). Opt-in: collectors.netdev.queue_stats.";
constexpr char kQueueDrops[] = "fabric_netdev_queue_drops_total";
constexpr char kQueueDropsHelp[] =
    "Packets dropped per receive queue by the driver (virtio_net/veth rx_queue_<N>_drops, "
    "rx<N>_drops). Opt-in: collectors.netdev.queue_stats.";

constexpr char kRdmaUnicastBytes[] = "fabric_netdev_rdma_unicast_bytes_total";
constexpr char kRdmaUnicastBytesHelp[] =
    "RoCE unicast bytes the NIC's vport moved for the RDMA function (mlx5 "
    "{rx,tx}_vport_rdma_unicast_bytes): RDMA traffic by the Ethernet side's count, beside "
    "fabric_rdma_port_bytes_total (the RDMA port's own counter).";

enum class Number { kNone, kPriority, kQueue, kLane };

struct Rule {
  const char* drivers;  // Space-separated driver names.
  const char* pattern;  // '%' stands for a decimal number (priority or queue).
  const char* metric;
  const char* help;
  const char* direction;  // Value of the `direction` label, or nullptr.
  Number number = Number::kNone;
  double scale = 1;
  const char* severity = nullptr;
};

constexpr char kMlx5[] = "mlx5_core";
constexpr char kIce[] = "ice";
constexpr char kI40e[] = "i40e";
constexpr char kBnxt[] = "bnxt_en";
constexpr char kVirtioVeth[] = "virtio_net veth";
constexpr char kIceVirtio[] = "ice virtio_net";

// clang-format off
constexpr Rule kRules[] = {
  // mlx5: names from the kernel's Documentation/networking/device_drivers/
  // ethernet/mellanox/mlx5/counters.rst.
  {kMlx5, "rx_pause_ctrl_phy", kPause, kPauseHelp, "rx"},
  {kMlx5, "tx_pause_ctrl_phy", kPause, kPauseHelp, "tx"},
  {kMlx5, "rx_prio%_pause", kPrioPause, kPrioPauseHelp, "rx", Number::kPriority},
  {kMlx5, "tx_prio%_pause", kPrioPause, kPrioPauseHelp, "tx", Number::kPriority},
  {kMlx5, "rx_global_pause_duration", kPauseDuration, kPauseDurationHelp, "rx", Number::kNone,
   1e-6},
  {kMlx5, "tx_global_pause_duration", kPauseDuration, kPauseDurationHelp, "tx", Number::kNone,
   1e-6},
  {kMlx5, "rx_prio%_pause_duration", kPrioPauseDuration, kPrioPauseDurationHelp, "rx",
   Number::kPriority, 1e-6},
  {kMlx5, "tx_prio%_pause_duration", kPrioPauseDuration, kPrioPauseDurationHelp, "tx",
   Number::kPriority, 1e-6},
  {kMlx5, "tx_pause_storm_warning_events", kStorm, kStormHelp, nullptr, Number::kNone, 1,
   "warning"},
  {kMlx5, "tx_pause_storm_error_events", kStorm, kStormHelp, nullptr, Number::kNone, 1, "error"},
  {kMlx5, "rx_discards_phy", kPhyDiscards, kPhyDiscardsHelp, "rx"},
  {kMlx5, "tx_discards_phy", kPhyDiscards, kPhyDiscardsHelp, "tx"},
  {kMlx5, "rx_out_of_buffer", kOutOfBuffer, kOutOfBufferHelp, "rx"},
  {kMlx5, "rx_pci_signal_integrity", kPciSignal, kPciSignalHelp, "rx"},
  {kMlx5, "tx_pci_signal_integrity", kPciSignal, kPciSignalHelp, "tx"},
  {kMlx5, "outbound_pci_buffer_overflow", kPciOverflow, kPciOverflowHelp, "rx"},
  {kMlx5, "rx_crc_errors_phy", kPhyCrc, kPhyCrcHelp, "rx"},
  {kMlx5, "rx_symbol_err_phy", kPhySymbol, kPhySymbolHelp, "rx"},
  {kMlx5, "rx_corrected_bits_phy", kPhyCorrected, kPhyCorrectedHelp, "rx"},
  {kMlx5, "rx_err_lane_%_phy", kPhyLaneErrors, kPhyLaneErrorsHelp, "rx", Number::kLane},
  {kMlx5, "link_down_events_phy", kPhyLinkDown, kPhyLinkDownHelp, nullptr},
  {kMlx5, "rx_vport_rdma_unicast_bytes", kRdmaUnicastBytes, kRdmaUnicastBytesHelp, "rx"},
  {kMlx5, "tx_vport_rdma_unicast_bytes", kRdmaUnicastBytes, kRdmaUnicastBytesHelp, "tx"},
  {kMlx5, "rx%_packets", kQueuePackets, kQueuePacketsHelp, "rx", Number::kQueue},
  {kMlx5, "tx%_packets", kQueuePackets, kQueuePacketsHelp, "tx", Number::kQueue},
  {kMlx5, "rx%_bytes", kQueueBytes, kQueueBytesHelp, "rx", Number::kQueue},
  {kMlx5, "tx%_bytes", kQueueBytes, kQueueBytesHelp, "tx", Number::kQueue},

  // ice: port statistics carry a ".nic" suffix.
  {kIce, "link_xoff_rx.nic", kPause, kPauseHelp, "rx"},
  {kIce, "link_xoff_tx.nic", kPause, kPauseHelp, "tx"},
  {kIce, "link_xon_rx.nic", kResume, kResumeHelp, "rx"},
  {kIce, "link_xon_tx.nic", kResume, kResumeHelp, "tx"},
  {kIce, "rx_priority_%_xoff.nic", kPrioPause, kPrioPauseHelp, "rx", Number::kPriority},
  {kIce, "tx_priority_%_xoff.nic", kPrioPause, kPrioPauseHelp, "tx", Number::kPriority},
  {kIce, "rx_priority_%_xon.nic", kPrioResume, kPrioResumeHelp, "rx", Number::kPriority},
  {kIce, "tx_priority_%_xon.nic", kPrioResume, kPrioResumeHelp, "tx", Number::kPriority},
  {kIce, "rx_dropped.nic", kPhyDiscards, kPhyDiscardsHelp, "rx"},
  {kIce, "rx_crc_errors.nic", kPhyCrc, kPhyCrcHelp, "rx"},

  // i40e: port statistics carry a "port." prefix.
  {kI40e, "port.link_xoff_rx", kPause, kPauseHelp, "rx"},
  {kI40e, "port.link_xoff_tx", kPause, kPauseHelp, "tx"},
  {kI40e, "port.link_xon_rx", kResume, kResumeHelp, "rx"},
  {kI40e, "port.link_xon_tx", kResume, kResumeHelp, "tx"},
  {kI40e, "port.rx_priority_%_xoff_rx", kPrioPause, kPrioPauseHelp, "rx", Number::kPriority},
  {kI40e, "port.tx_priority_%_xoff_tx", kPrioPause, kPrioPauseHelp, "tx", Number::kPriority},
  {kI40e, "port.rx_priority_%_xon_rx", kPrioResume, kPrioResumeHelp, "rx", Number::kPriority},
  {kI40e, "port.tx_priority_%_xon_tx", kPrioResume, kPrioResumeHelp, "tx", Number::kPriority},
  {kI40e, "port.rx_dropped", kPhyDiscards, kPhyDiscardsHelp, "rx"},
  {kI40e, "port.rx_crc_errors", kPhyCrc, kPhyCrcHelp, "rx"},
  {kI40e, "rx-%.rx_packets", kQueuePackets, kQueuePacketsHelp, "rx", Number::kQueue},
  {kI40e, "tx-%.tx_packets", kQueuePackets, kQueuePacketsHelp, "tx", Number::kQueue},
  {kI40e, "rx-%.rx_bytes", kQueueBytes, kQueueBytesHelp, "rx", Number::kQueue},
  {kI40e, "tx-%.tx_bytes", kQueueBytes, kQueueBytesHelp, "tx", Number::kQueue},

  // bnxt_en: port statistics (rx/tx_port_stats and their _ext blocks).
  {kBnxt, "rx_pause_frames", kPause, kPauseHelp, "rx"},
  {kBnxt, "tx_pause_frames", kPause, kPauseHelp, "tx"},
  {kBnxt, "rx_pfc_ena_frames_pri%", kPrioPause, kPrioPauseHelp, "rx", Number::kPriority},
  {kBnxt, "tx_pfc_ena_frames_pri%", kPrioPause, kPrioPauseHelp, "tx", Number::kPriority},
  {kBnxt, "rx_stat_discard", kPhyDiscards, kPhyDiscardsHelp, "rx"},
  {kBnxt, "tx_stat_discard", kPhyDiscards, kPhyDiscardsHelp, "tx"},
  {kBnxt, "rx_fcs_err_frames", kPhyCrc, kPhyCrcHelp, "rx"},
  {kBnxt, "rx_pcs_symbol_err", kPhySymbol, kPhySymbolHelp, "rx"},
  {kBnxt, "rx_corrected_bits", kPhyCorrected, kPhyCorrectedHelp, "rx"},

  // Per-queue counters shared by ice and virtio_net (before Linux 6.10
  // virtio_net named them rx_queue_<N>_*; later kernels report rx<N>_*
  // without packets and bytes), and veth's per-queue drops.
  {kIceVirtio, "rx_queue_%_packets", kQueuePackets, kQueuePacketsHelp, "rx", Number::kQueue},
  {kIceVirtio, "tx_queue_%_packets", kQueuePackets, kQueuePacketsHelp, "tx", Number::kQueue},
  {kIceVirtio, "rx_queue_%_bytes", kQueueBytes, kQueueBytesHelp, "rx", Number::kQueue},
  {kIceVirtio, "tx_queue_%_bytes", kQueueBytes, kQueueBytesHelp, "tx", Number::kQueue},
  {kVirtioVeth, "rx_queue_%_drops", kQueueDrops, kQueueDropsHelp, "rx", Number::kQueue},
  {kVirtioVeth, "rx%_drops", kQueueDrops, kQueueDropsHelp, "rx", Number::kQueue},
};
// clang-format on

// A rule's pattern split at '%' once, so classifying a NIC's hundreds of
// statistics does not re-measure and re-search every pattern for every name.
struct PreparedRule {
  const Rule* rule;
  std::string_view prefix;  // The whole pattern when it has no '%'.
  std::string_view suffix;
  bool numbered;
};

using RuleTable = std::map<std::string, std::vector<PreparedRule>, std::less<>>;

// The rules of each driver, in table order (the first match wins).
const RuleTable& RulesByDriver() {
  static const RuleTable* table = [] {
    auto* t = new RuleTable;
    for (const Rule& rule : kRules) {
      std::string_view pattern = rule.pattern;
      size_t pct = pattern.find('%');
      PreparedRule prepared{&rule, pattern.substr(0, pct), {}, pct != std::string_view::npos};
      if (prepared.numbered) prepared.suffix = pattern.substr(pct + 1);
      std::string_view list = rule.drivers;
      while (!list.empty()) {
        size_t space = list.find(' ');
        (*t)[std::string(list.substr(0, space))].push_back(prepared);
        if (space == std::string_view::npos) break;
        list.remove_prefix(space + 1);
      }
    }
    return t;
  }();
  return *table;
}

// Matches `name` against a rule; on success `number` holds the digits that
// stood for '%' (empty when the pattern has none).
bool Match(const PreparedRule& rule, std::string_view name, std::string_view& number) {
  if (!rule.numbered) {
    number = {};
    return rule.prefix == name;
  }
  const std::string_view prefix = rule.prefix;
  const std::string_view suffix = rule.suffix;
  if (name.size() <= prefix.size() + suffix.size()) return false;
  if (name.substr(0, prefix.size()) != prefix) return false;
  if (name.substr(name.size() - suffix.size()) != suffix) return false;
  number = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
  if (number.size() > 4) return false;  // A queue or priority, not an id.
  for (char c : number) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

}  // namespace

std::optional<TypedDriverStat> ClassifyDriverStat(std::string_view driver, std::string_view name) {
  const RuleTable& table = RulesByDriver();
  auto rules = table.find(driver);
  if (rules == table.end()) return std::nullopt;
  for (const PreparedRule& prepared : rules->second) {
    std::string_view number;
    if (!Match(prepared, name, number)) continue;
    const Rule& rule = *prepared.rule;
    TypedDriverStat typed{rule.metric, rule.help, {}, rule.scale, rule.number == Number::kQueue};
    if (rule.direction != nullptr) typed.labels.emplace_back("direction", rule.direction);
    if (rule.severity != nullptr) typed.labels.emplace_back("severity", rule.severity);
    if (rule.number != Number::kNone) {
      // "07" and "7" are the same queue: strip leading zeros for a stable label.
      size_t first = number.find_first_not_of('0');
      std::string n = first == std::string_view::npos ? "0" : std::string(number.substr(first));
      const char* label = rule.number == Number::kPriority ? "priority"
                          : rule.number == Number::kLane   ? "lane"
                                                           : "queue";
      typed.labels.emplace_back(label, n);
    }
    return typed;
  }
  return std::nullopt;
}

}  // namespace fabric
