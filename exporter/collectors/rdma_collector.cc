#include "exporter/collectors/rdma_collector.h"

#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "common/kernel/infiniband.h"
#include "common/kernel/rdma_resources.h"
#include "common/log.h"
#include "common/parse/ip_address.h"
#include "common/read/file_reader.h"
#include "common/strings.h"
#include "exporter/collectors/device_errors.h"
#include "exporter/collectors/rdma_resource_groups.h"

namespace fabric {
namespace {

struct RdmaCounter {
  const char* file;
  const char* metric;
  const char* help;
  const char* label = nullptr;  // Extra label name (direction, op, side) ...
  const char* value = nullptr;  // ... and its value.
  double scale = 1;
};

constexpr char kBytesHelp[] =
    "Data bytes sent/received on the RDMA port (counters/port_{xmit,rcv}_data, which count "
    "4-octet words, times 4). Covers RDMA traffic the netdev byte counters may not see.";
constexpr char kPacketsHelp[] = "Packets sent/received on the RDMA port.";
constexpr char kUnicastHelp[] = "Unicast packets sent/received on the RDMA port.";
constexpr char kMulticastHelp[] = "Multicast packets sent/received on the RDMA port.";
constexpr char kConstraintHelp[] =
    "Packets dropped by the port's partition-key or raw-packet constraints.";
constexpr char kRequestsHelp[] =
    "RDMA requests this port's responder received, by operation (hw_counters rx_*_requests).";
constexpr char kCqeHelp[] =
    "Work completions with an error, by side (requester: this host initiated; responder: a peer "
    "did). hw_counters req_cqe_error / resp_cqe_error.";
constexpr char kFlushHelp[] =
    "Work requests completed with flush error because their queue pair went to error, by side.";
constexpr char kAccessHelp[] =
    "Remote access errors (bad rkey, permissions, bounds), by side that detected them.";

// clang-format off
constexpr RdmaCounter kPortCounters[] = {
  {"port_xmit_data", "fabric_rdma_port_bytes_total", kBytesHelp, "direction", "tx", 4},
  {"port_rcv_data", "fabric_rdma_port_bytes_total", kBytesHelp, "direction", "rx", 4},
  {"port_xmit_packets", "fabric_rdma_port_packets_total", kPacketsHelp, "direction", "tx"},
  {"port_rcv_packets", "fabric_rdma_port_packets_total", kPacketsHelp, "direction", "rx"},
  {"unicast_xmit_packets", "fabric_rdma_port_unicast_packets_total", kUnicastHelp, "direction",
   "tx"},
  {"unicast_rcv_packets", "fabric_rdma_port_unicast_packets_total", kUnicastHelp, "direction",
   "rx"},
  {"multicast_xmit_packets", "fabric_rdma_port_multicast_packets_total", kMulticastHelp,
   "direction", "tx"},
  {"multicast_rcv_packets", "fabric_rdma_port_multicast_packets_total", kMulticastHelp,
   "direction", "rx"},
  {"port_rcv_errors", "fabric_rdma_port_receive_errors_total",
   "Packets received with errors on the RDMA port (counters/port_rcv_errors)."},
  {"port_xmit_discards", "fabric_rdma_port_transmit_discards_total",
   "Outbound packets discarded because the port was down or congested "
   "(counters/port_xmit_discards)."},
  {"port_xmit_wait", "fabric_rdma_port_transmit_wait_ticks_total",
   "Ticks during which the port had data to send but no flow-control credits "
   "(counters/port_xmit_wait): back-pressure from the fabric. Tick length is device-specific."},
  {"symbol_error", "fabric_rdma_port_symbol_errors_total",
   "Minor link errors detected on the physical lanes (counters/symbol_error)."},
  {"link_downed", "fabric_rdma_port_link_downed_total",
   "Times the link training failed and the link went down (counters/link_downed)."},
  {"link_error_recovery", "fabric_rdma_port_link_error_recoveries_total",
   "Successful link error recoveries (counters/link_error_recovery): a marginal link."},
  {"local_link_integrity_errors", "fabric_rdma_port_local_link_integrity_errors_total",
   "Local physical errors over the threshold (counters/local_link_integrity_errors)."},
  {"excessive_buffer_overrun_errors", "fabric_rdma_port_buffer_overrun_errors_total",
   "Consecutive flow-control update periods with buffer overrun "
   "(counters/excessive_buffer_overrun_errors)."},
  {"port_rcv_remote_physical_errors", "fabric_rdma_port_receive_remote_physical_errors_total",
   "Packets received marked bad by a remote hop (counters/port_rcv_remote_physical_errors)."},
  {"port_rcv_switch_relay_errors", "fabric_rdma_port_receive_switch_relay_errors_total",
   "Packets discarded because they could not be forwarded (counters/port_rcv_switch_relay_errors)."},
  {"port_rcv_constraint_errors", "fabric_rdma_port_constraint_errors_total", kConstraintHelp,
   "direction", "rx"},
  {"port_xmit_constraint_errors", "fabric_rdma_port_constraint_errors_total", kConstraintHelp,
   "direction", "tx"},
  {"VL15_dropped", "fabric_rdma_port_vl15_dropped_total",
   "Subnet-management packets dropped for lack of buffers (counters/VL15_dropped)."},
};

constexpr RdmaCounter kHwCounters[] = {
  {"np_cnp_sent", "fabric_rdma_cnp_sent_total",
   "Congestion notification packets this port sent as notification point (hw_counters/"
   "np_cnp_sent): ECN-marked RoCE packets arrived here, the fabric is congested toward this host."},
  {"rp_cnp_handled", "fabric_rdma_cnp_handled_total",
   "Congestion notification packets this port handled as reaction point (hw_counters/"
   "rp_cnp_handled): DCQCN slowed this host's senders."},
  {"rp_cnp_ignored", "fabric_rdma_cnp_ignored_total",
   "Congestion notification packets received and ignored (hw_counters/rp_cnp_ignored)."},
  {"np_ecn_marked_roce_packets", "fabric_rdma_ecn_marked_packets_total",
   "RoCE packets received with ECN congestion marks (hw_counters/np_ecn_marked_roce_packets)."},
  {"out_of_buffer", "fabric_rdma_out_of_buffer_drops_total",
   "Packets dropped because no receive WQE was posted (hw_counters/out_of_buffer): the "
   "application posts receives too slowly."},
  {"out_of_sequence", "fabric_rdma_out_of_sequence_total",
   "Out-of-sequence packets received (hw_counters/out_of_sequence): packet loss on the path."},
  {"packet_seq_err", "fabric_rdma_packet_sequence_errors_total",
   "Packet sequence error NAKs received (hw_counters/packet_seq_err): the peer saw loss."},
  {"local_ack_timeout_err", "fabric_rdma_local_ack_timeouts_total",
   "Times the requester's ACK timer expired (hw_counters/local_ack_timeout_err): lost packets or "
   "an unresponsive peer; each costs a full timeout."},
  {"rnr_nak_retry_err", "fabric_rdma_rnr_nak_retry_errors_total",
   "Receiver-not-ready NAK retries exceeded (hw_counters/rnr_nak_retry_err)."},
  {"implied_nak_seq_err", "fabric_rdma_implied_nak_sequence_errors_total",
   "Implied NAK sequence errors (hw_counters/implied_nak_seq_err)."},
  {"duplicate_request", "fabric_rdma_duplicate_requests_total",
   "Duplicate requests received (hw_counters/duplicate_request): the peer retransmitted."},
  {"roce_adp_retrans", "fabric_rdma_adaptive_retransmits_total",
   "RoCE adaptive retransmissions (hw_counters/roce_adp_retrans)."},
  {"roce_adp_retrans_to", "fabric_rdma_adaptive_retransmit_timeouts_total",
   "RoCE adaptive retransmission timeouts (hw_counters/roce_adp_retrans_to)."},
  {"roce_slow_restart", "fabric_rdma_slow_restarts_total",
   "RoCE slow restarts after retransmission (hw_counters/roce_slow_restart)."},
  {"roce_slow_restart_cnps", "fabric_rdma_slow_restart_cnps_total",
   "CNPs generated by slow restart (hw_counters/roce_slow_restart_cnps)."},
  {"roce_slow_restart_trans", "fabric_rdma_slow_restart_transitions_total",
   "Transitions out of slow restart (hw_counters/roce_slow_restart_trans)."},
  {"rx_read_requests", "fabric_rdma_received_requests_total", kRequestsHelp, "op", "read"},
  {"rx_write_requests", "fabric_rdma_received_requests_total", kRequestsHelp, "op", "write"},
  {"rx_atomic_requests", "fabric_rdma_received_requests_total", kRequestsHelp, "op", "atomic"},
  {"req_cqe_error", "fabric_rdma_cqe_errors_total", kCqeHelp, "side", "requester"},
  {"resp_cqe_error", "fabric_rdma_cqe_errors_total", kCqeHelp, "side", "responder"},
  {"req_cqe_flush_error", "fabric_rdma_cqe_flush_errors_total", kFlushHelp, "side", "requester"},
  {"resp_cqe_flush_error", "fabric_rdma_cqe_flush_errors_total", kFlushHelp, "side",
   "responder"},
  {"req_remote_access_errors", "fabric_rdma_remote_access_errors_total", kAccessHelp, "side",
   "requester"},
  {"resp_remote_access_errors", "fabric_rdma_remote_access_errors_total", kAccessHelp, "side",
   "responder"},
  {"req_remote_invalid_request", "fabric_rdma_remote_invalid_requests_total",
   "Remote invalid request NAKs received (hw_counters/req_remote_invalid_request)."},
  {"resp_local_length_error", "fabric_rdma_local_length_errors_total",
   "Responder local length errors: a message longer than the posted receive "
   "(hw_counters/resp_local_length_error)."},
  {"rx_icrc_encapsulated", "fabric_rdma_icrc_errors_total",
   "RoCE packets received with a bad ICRC (hw_counters/rx_icrc_encapsulated)."},
  {"rx_dct_connect", "fabric_rdma_dct_connects_total",
   "DC transport connect requests received (hw_counters/rx_dct_connect)."},
};
// clang-format on

// Where the kernel's RDMA resource tracking comes from: the kernel over
// RDMA netlink, a recorded dump (fixture trees), or nowhere (a fixture tree
// without one, or collectors.rdma.restrack: false).
using RestrackSource = std::function<Result<RdmaResources>()>;

struct RestrackSettings {
  RestrackSource source;
  size_t max_series = 200;
  std::map<std::string, std::string> peers;  // Fleet node names by address.
};

// A device or port whose attributes cannot be read loses only its own
// families: sources "device" (identity), "port" (state, rate, link layer),
// "counters" and "hw_counters", the port ones recorded as device "mlx5_0/1";
// a failed resource dump only the restrack families (device "netlink",
// source "restrack").
class RdmaCollector : public Collector {
 public:
  RdmaCollector(SysRoot root, RestrackSettings restrack)
      : root_(std::move(root)), restrack_(std::move(restrack)) {}

  Status Collect(MetricSink& sink) override {
    auto devices = ListIbDevices(root_);
    if (devices.absent()) return OkStatus();  // No RDMA devices on this host.
    if (!devices.ok()) return Unexpected{devices.error()};
    errors_.BeginScrape();
    for (const auto& dev : *devices) CollectDevice(dev, sink);
    if (restrack_.source) CollectResources(sink);
    errors_.Emit(sink);
    return OkStatus();
  }

 private:
  void CollectResources(MetricSink& sink) {
    auto resources = restrack_.source();
    if (!errors_.Check("netlink", "restrack", resources)) return;
    RdmaResourceNaming naming;
    naming.peers = restrack_.peers;
    naming.command_of = [this](uint32_t pid) {
      auto comm = ReadAttribute(root_.Proc(std::to_string(pid) + "/comm"));
      return comm.ok() ? std::string(TrimSpace(*comm)) : std::string();
    };
    const RdmaResourceReport report = GroupRdmaResources(*resources, naming, restrack_.max_series);
    for (const RdmaResourceGroup& g : report.qps) {
      sink.Gauge("fabric_rdma_queue_pairs",
                 "Queue pairs the kernel tracks (RDMA netlink resource tracking, `rdma resource "
                 "show qp`), by owning process (command: its comm, [module] for a kernel user "
                 "such as rpcrdma or nvme_rdma; pid), QP type, state and peer (the fleet node or "
                 "address of the QP's rdma_cm id; unknown for QPs connected without rdma_cm). "
                 "Objects, not traffic: the kernel keeps no per-QP byte counts here.",
                 GroupLabels(g, "type"), static_cast<double>(g.count));
    }
    for (const RdmaResourceGroup& g : report.cm_ids) {
      sink.Gauge("fabric_rdma_cm_ids",
                 "rdma_cm ids the kernel tracks (`rdma resource show cm_id`), by owning process, "
                 "port space (TCP, UDP, IB, IPOIB), connection state and peer (the destination's "
                 "fleet node or address; none for listeners).",
                 GroupLabels(g, "port_space"), static_cast<double>(g.count));
    }
    const std::pair<const char*, size_t> folded[] = {{"queue_pairs", report.folded_qp_groups},
                                                     {"cm_ids", report.folded_cm_id_groups}};
    for (const auto& [family, n] : folded) {
      sink.Gauge("fabric_rdma_resource_groups_folded",
                 "Process and peer groups of the family beyond collectors.rdma.max_series, "
                 "counted under command=\"other\", peer=\"other\" instead.",
                 {{"family", family}}, static_cast<double>(n));
    }
  }

  static LabelPairs GroupLabels(const RdmaResourceGroup& g, const char* type_label) {
    LabelPairs labels = {
        {"device", g.device}, {"port", std::to_string(g.port)}, {"command", g.command}};
    if (!g.pid.empty()) labels.emplace_back("pid", g.pid);
    labels.emplace_back(type_label, g.type);
    labels.emplace_back("state", g.state);
    labels.emplace_back("peer", g.peer);
    return labels;
  }

  Status EmitDeviceInfo(const std::string& dev, const std::string& pci, MetricSink& sink) {
    LabelPairs info = {{"device", dev}, {"pci_address", pci}};
    const AttributeDir device_dir(IbDevicePath(root_, dev));
    for (auto [file, label] : {std::pair{"hca_type", "hca_type"},
                               {"fw_ver", "firmware_version"},
                               {"board_id", "board_id"},
                               {"node_guid", "node_guid"}}) {
      auto v = ReadIbWord(device_dir, file);
      if (!v.ok()) return Unexpected{v.error()};
      info.emplace_back(label, *v);
    }
    sink.Info("fabric_rdma_device_info",
              "RDMA device identity: HCA type, firmware, board, node GUID and the PCI function "
              "(joins to the pcie and netdev collectors on pci_address).",
              info);
    return OkStatus();
  }

  void CollectDevice(const std::string& dev, MetricSink& sink) {
    const std::string pci = IbDevicePciAddress(root_, dev);
    errors_.Check(dev, "device", EmitDeviceInfo(dev, pci, sink));
    auto ports = ListIbPorts(root_, dev);
    if (!errors_.Check(dev, "device", ports)) return;
    for (const auto& port : *ports) CollectPort(dev, port, pci, sink);
  }

  // The netdev a port carries (RoCE) or is carried by (IPoIB): the GID
  // table's first entry names it; else the device's net/ directory.
  Result<std::string> PortNetdev(const std::string& dev, const AttributeDir& port_dir) {
    auto ndev = ReadIbGidNetdev(port_dir, 0);
    if (!ndev.ok() || !ndev->empty()) return ndev;
    auto nets = ListIbDeviceNetdevs(root_, dev);
    if (nets.ok() && nets->size() == 1) return nets->front();
    return std::string();
  }

  struct PortFacts {
    std::string link_layer, netdev;
    std::optional<IbStateValue> state, phys_state;
    std::optional<double> rate;
  };

  Result<PortFacts> ReadPort(const std::string& dev, const AttributeDir& dir) {
    PortFacts f;
    auto link_layer = ReadIbWord(dir, "link_layer");
    if (!link_layer.ok()) return Unexpected{link_layer.error()};
    f.link_layer = *link_layer;
    auto netdev = PortNetdev(dev, dir);
    if (!netdev.ok()) return Unexpected{netdev.error()};
    f.netdev = *netdev;
    for (auto [file, out] : {std::pair{"state", &f.state}, {"phys_state", &f.phys_state}}) {
      auto state = ReadIbState(dir, file);
      if (!state.ok()) return Unexpected{state.error()};
      *out = *state;
    }
    auto rate = ReadIbRateBytes(dir);
    if (!rate.ok()) return Unexpected{rate.error()};
    f.rate = *rate;
    return f;
  }

  void CollectPort(const std::string& dev, const std::string& port, const std::string& pci,
                   MetricSink& sink) {
    const AttributeDir dir(IbPortPath(root_, dev, port));
    const LabelPairs labels = {{"device", dev}, {"port", port}};
    const std::string where = dev + "/" + port;
    if (auto f = ReadPort(dev, dir); errors_.Check(where, "port", f)) {
      sink.Info("fabric_rdma_port_info",
                "RDMA port identity: link layer (InfiniBand or Ethernet for RoCE), the netdev it "
                "maps to and the PCI function, joining RDMA, netdev and pcie series.",
                {{"device", dev},
                 {"port", port},
                 {"link_layer", f->link_layer},
                 {"netdev", f->netdev},
                 {"pci_address", pci}});
      if (f->state) {
        sink.Gauge("fabric_rdma_port_state",
                   "Logical port state code (ports/N/state): 1 DOWN, 2 INIT, 3 ARMED, 4 "
                   "ACTIVE, 5 ACTIVE_DEFER. Only 4 carries traffic.",
                   labels, static_cast<double>(f->state->code));
      }
      if (f->phys_state) {
        sink.Gauge("fabric_rdma_port_physical_state",
                   "Physical port state code (ports/N/phys_state): 2 Polling, 3 Disabled, 4 "
                   "PortConfigurationTraining, 5 LinkUp, 6 LinkErrorRecovery, 7 Phy Test.",
                   labels, static_cast<double>(f->phys_state->code));
      }
      if (f->rate) {
        sink.Gauge("fabric_rdma_port_rate_bytes",
                   "Port data rate in bytes per second (ports/N/rate: width x lane speed).", labels,
                   *f->rate);
      }
    }
    Counters(where, "counters", IbCounterDir(root_, dev, port, IbCounterSet::kPort), kPortCounters,
             labels, sink);
    Counters(where, "hw_counters", IbCounterDir(root_, dev, port, IbCounterSet::kHw), kHwCounters,
             labels, sink);
  }

  // Reads the whole table before writing any of it.
  template <size_t N>
  void Counters(const std::string& where, const char* source, const AttributeDir& dir,
                const RdmaCounter (&table)[N], const LabelPairs& labels, MetricSink& sink) {
    std::vector<std::pair<const RdmaCounter*, uint64_t>> values;
    for (const auto& c : table) {
      auto v = ReadIbCounter(dir, c.file);
      if (!v.ok()) {
        errors_.Record(where, source, v.error());
        return;
      }
      if (*v) values.emplace_back(&c, **v);
    }
    for (const auto& [c, value] : values) {
      LabelPairs l = labels;
      if (c->label != nullptr) l.emplace_back(c->label, c->value);
      sink.Counter(c->metric, c->help, l, static_cast<double>(value) * c->scale);
    }
  }

  SysRoot root_;
  RestrackSettings restrack_;
  DeviceErrors errors_{"rdma"};
};

}  // namespace

std::unique_ptr<Collector> MakeRdmaCollector(const CollectorContext& context) {
  const ConfigNode& node = context.settings;
  RestrackSettings restrack;
  if (auto max = node.Int("max_series", 1, 100000)) restrack.max_series = static_cast<size_t>(*max);
  const bool enabled = node.Bool("restrack").value_or(true);
  if (auto path = node.String("restrack_recording"); path && enabled) {
    std::filesystem::path p(*path);
    if (p.is_relative() && !node.file().empty()) {
      p = std::filesystem::path(node.file()).parent_path() / p;
    }
    // Read every scrape, as the kernel is asked every scrape: a broken
    // recording fails the restrack part alone, like a failing dump.
    restrack.source = [dir = p.string()] { return LoadRdmaResourceRecording(dir); };
  } else if (enabled) {
    if (IsProcfsMount(context.root.procfs())) {
      restrack.source = &DumpRdmaResources;
    } else {
      log::Info(
          "rdma: --path.procfs is not a live procfs (a fixture tree?) and no "
          "collectors.rdma.restrack_recording is set: no RDMA resources are reported",
          {{"procfs", context.root.procfs()}});
    }
  }
  if (context.fleet != nullptr) {
    for (const FleetNode& peer : context.fleet->nodes) {
      if (peer.name == context.fleet->self) continue;
      auto address = ParseIpAddress(peer.address);
      if (address.ok()) restrack.peers.emplace(address->ToString(), peer.name);
    }
  }
  return std::make_unique<RdmaCollector>(context.root, std::move(restrack));
}

}  // namespace fabric
