// The ladder model shared by the exporter's page at "/" and `fabric_probe ladder`: from the
// passive facts of a node (line rate, PCIe path, real transfers) and its probe results, one
// ladder per path with each layer's ceiling, its fraction of line rate, the binding layer, the
// self-check verdicts and the bottleneck shapes in words. Pure: no I/O, no clock.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "active-probes/probe/rungs.h"
#include "exporter/scheduled_probes/result_store.h"

namespace fabric::ladder {

// An NFS mount of this node on a fleet peer (the nfs collector): its transport and the
// transfer sizes negotiated and, where the config names it, asked for. Bytes.
struct NfsMountFact {
  std::string mount_point;
  std::string transport;  // "tcp", "rdma", ...
  std::optional<double> rsize;
  std::optional<double> wsize;
  std::optional<double> requested_rsize;
  std::optional<double> requested_wsize;
};

// A collective's best bus bandwidth (the collective collector: NCCL Inspector, nccl-tests), one
// series of fabric_collective_bus_bandwidth_bytes_per_second. Bytes per second.
struct CollectiveFact {
  std::string collective;    // "AllReduce", ...
  std::string message_size;  // The collector's bucket: "256MiB-4GiB", "4GiB+", ...
  std::string scope;         // "inter_node", "intra_node", "unknown".
  std::string source;        // "nccl_inspector", "nccl_tests".
  double bytes_per_second = 0;
};

// Bytes/s by peer name, direction ("send", "receive") and application.
using ApplicationRates =
    std::map<std::string, std::map<std::string, std::map<std::string, double>>>;

// What the node's collectors know, independent of any probe.
struct PassiveFacts {
  std::string interface;               // The fabric interface; empty when unknown.
  std::optional<double> line_rate;     // Bytes/s; nullopt when the interface has no speed.
  std::string pcie_address;            // The interface's PCI function, when it has one.
  std::optional<double> pcie_current;  // Bytes/s through the narrowest trained hop.
  std::optional<double> pcie_capable;  // Bytes/s the path could carry at full training.
  int pcie_width = 0;                  // Trained lanes of the narrowest hop (0: unknown).
  int pcie_capable_width = 0;          // Lanes the device itself supports.
  bool pcie_slot_limited = false;      // A hop upstream is narrower than the card can train.
  int pcie_downtrained_hops = 0;       // Hops trained below what both ends support.
  // Real bulk transfers with each peer (by peer name), bytes/s summed over the bulk flows in
  // each direction ("send", "receive"; a flow the remote sender limits is received), the
  // probe's own flows left out: what the transfers recording rule sums.
  std::map<std::string, std::map<std::string, double>> transfers;
  // The same flows by peer name, direction and application (the flows collector's
  // `application`: a port's or the socket owner's name), so the page names who moves them.
  ApplicationRates applications;
  // The same two over the rules' transferWindow (`collectors.flows.window`): bytes/s averaged
  // over the scrapes of the window since each application started moving, as
  // instance_target_direction:fabric_transfers_bytes:rate has them from the counters. What
  // the page's transfer shapes judge while transfers move now, so a program between two
  // connections (a per-file loop, a mover's next run) is not judged on the one scrape that
  // caught the gap. `fabric_probe ladder`, one look, judges what it sees now
  // (window_seconds 0).
  struct WindowedTransfers {
    double window_seconds = 0;
    std::map<std::string, std::map<std::string, double>> transfers;
    ApplicationRates applications;
  } windowed;
  // The socket-buffer maxima by sysctl name (net.core.rmem_max, net.core.wmem_max,
  // net.ipv4.tcp_rmem, net.ipv4.tcp_wmem: the largest buffer each lets a socket have), bytes.
  std::map<std::string, double> socket_buffer_max;
  // NFS mounts by the fleet peer their server is (fabric_nfs_mount_info{peer}).
  std::map<std::string, std::vector<NfsMountFact>> nfs_mounts;
  // NCCL collectives of this node, whatever peer: the collective rung is the node's.
  std::vector<CollectiveFact> collectives;
  // Queue pairs ready to send (RTS), by peer (the rdma collector's: a fleet node, an address,
  // "unknown" for QPs connected without rdma_cm) and owning process ("[rpcrdma]", "python3").
  std::map<std::string, std::map<std::string, double>> rdma_queue_pairs;
};

struct LadderInput {
  std::string node;
  std::string peer;  // The path's far end (a fleet node name, or "loopback").
  bool loopback = false;
  PassiveFacts facts;
  // Every probe result of the node; the ladder takes those of `peer` and the storage rungs.
  std::vector<ProbeRecord> records;
  double now_seconds = 0;  // Unix time, for the age of each result.
  // Said for a rung no record covers, e.g. "not run (no --storage)"; default "not configured".
  std::map<probe::Rung, std::string> absent_reasons;
  // Said for the real-transfers layer without a flow; default "no bulk flow to this peer now".
  std::string transfers_absent_reason;
  // When the real-transfers layer's flows were seen; default "bulk flows now".
  std::string transfers_seen;
};

struct Layer {
  std::string id;     // line, pcie, rdma, tcp_multi, tcp_single, storage_read, storage_write,
                      // transfers: the `layer` label of the recording rules; nfs (shown
                      // only for a peer this node mounts) and rdma_users (only where the
                      // kernel tracks RDMA queue pairs): no recording rule, a fact;
                      // collective (NCCL bus bandwidth, the node's: usage, never binds).
  std::string title;  // "NIC line rate", "N-stream TCP", ...
  // Counts for the binding layer. 1-stream TCP is what one stream moved in the probe's mode
  // (the detail names it) and real transfers are usage, not capacity, as in the recording rules.
  bool ceiling = true;
  std::optional<double> bytes_per_second;  // The worse direction when both were measured.
  std::optional<double> line_fraction;     // Of the line rate, when it is known.
  std::string detail;                      // Directions, streams, latency...
  std::string status;                      // Why there is no number.
  std::vector<std::string> verdicts;       // Raised self-checks, by name.
  bool self_checked = false;               // A probe ran its self-checks on this layer.
  double age_seconds = -1;                 // Since the newest result; -1: none or unknown.
};

// A bottleneck shape the ladder names. The id is stable (the page's data-shape, the JSON's
// shape_ids): tests/rules/ladder_agreement_test.py maps each id to the alerts of
// rules/fabric-ladder.rules.yml that name it on the same evidence
// (docs/probes/scheduled.md#the-ladder-page).
struct Shape {
  std::string id;
  std::string words;
  bool operator==(const Shape&) const = default;
};

struct Ladder {
  std::string node;
  std::string peer;
  bool loopback = false;
  std::string interface;
  std::optional<double> line_rate;
  double scale_bytes_per_second = 0;  // The full width of a bar.
  std::string scale_note;             // What the bars are scaled to, in words.
  std::vector<Layer> layers;
  int binding = -1;           // Index into layers; -1 when nothing is measured.
  int network_binding = -1;   // The lowest network ceiling (storage left out).
  std::string binding_text;   // The binding layer in one sentence.
  std::vector<Shape> shapes;  // Detected bottleneck shapes.
};

Ladder BuildLadder(const LadderInput& input);

// "92.1 Gbit/s", "850 Mbit/s": the ladder compares layers in bits per second like NIC speeds.
std::string FormatRate(double bytes_per_second);
// An application of the flows collector in the words of the shape the rules name it by:
// "ssh (SSH encryption on a trusted path: ...)", "rsync (its per-file protocol)",
// "socat (a userspace copy pipeline: ...)"; any other name as it is.
std::string ApplicationWords(const std::string& application);
// ": ssh (...) 1.2 Gbit/s; rsync (...) 800 Mbit/s" for a peer's flows in one direction, the
// busiest first; "" without any.
std::string ApplicationsWords(const ApplicationRates& facts, const std::string& peer,
                              const std::string& direction);
// " by ssh, rsync": the same applications by name only, for the real-transfers layer.
std::string ApplicationNames(const ApplicationRates& facts, const std::string& peer,
                             const std::string& direction);
// "92%", "4.8%".
std::string FormatPercent(double fraction);
// "40 s ago", "12 min ago", "3 h ago", "5 days ago"; "" for a negative age (no clock).
std::string FormatAge(double seconds);
// The self-check verdicts of the ladder in one sentence.
std::string VerdictSummary(const Ladder& ladder);
// One raised self-check in words, e.g. "CPU-bound: a harness ceiling, not the fabric".
std::string VerdictWords(const std::string& verdict);

}  // namespace fabric::ladder
