#include "exporter/collectors/nfs_collector.h"

#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "common/parse/fstab_parse.h"
#include "common/parse/mountstats_parse.h"
#include "common/read/file_reader.h"
#include "common/strings.h"
#include "exporter/collectors/device_errors.h"

namespace fabric {
namespace {

constexpr double kMillisecond = 1e-3;

// The RPC-over-RDMA transport's counters as series, in the kernel's order.
template <typename Member>
struct RdmaMetric {
  const char* name;
  const char* help;
  Member NfsRdmaStats::*member;
};
constexpr RdmaMetric<uint64_t> kRdmaMetrics[] = {
    {"fabric_nfs_rdma_read_chunks_total",
     "Read chunks marshalled: payload the server pulls with RDMA Read (WRITE data).",
     &NfsRdmaStats::read_chunks},
    {"fabric_nfs_rdma_write_chunks_total",
     "Write chunks marshalled: buffers the server fills with RDMA Write (READ data).",
     &NfsRdmaStats::write_chunks},
    {"fabric_nfs_rdma_reply_chunks_total",
     "Reply chunks marshalled: replies too large to arrive inline.", &NfsRdmaStats::reply_chunks},
    {"fabric_nfs_rdma_request_chunk_bytes_total",
     "Bytes registered in read chunks (total_rdma_request): payload moved by RDMA, not copied.",
     &NfsRdmaStats::request_chunk_bytes},
    {"fabric_nfs_rdma_reply_chunk_bytes_total",
     "Bytes registered in write and reply chunks (total_rdma_reply).",
     &NfsRdmaStats::reply_chunk_bytes},
    {"fabric_nfs_rdma_pullup_copy_bytes_total",
     "Bytes the CPU copied into inline sends (pullup): payload too small or too fragmented for "
     "a chunk.",
     &NfsRdmaStats::pullup_copy_bytes},
    {"fabric_nfs_rdma_fixup_copy_bytes_total",
     "Bytes the CPU copied out of inline replies (fixup).", &NfsRdmaStats::fixup_copy_bytes},
    {"fabric_nfs_rdma_hardway_register_bytes_total",
     "Bytes of buffers registered outside the pre-registered pool.",
     &NfsRdmaStats::hardway_register_bytes},
    {"fabric_nfs_rdma_failed_marshal_total", "Requests that could not be marshalled.",
     &NfsRdmaStats::failed_marshal},
    {"fabric_nfs_rdma_bad_replies_total", "Replies with a bad RPC-over-RDMA header.",
     &NfsRdmaStats::bad_reply},
};
constexpr RdmaMetric<std::optional<uint64_t>> kLaterRdmaMetrics[] = {
    {"fabric_nfs_rdma_nomsg_calls_total",
     "Calls sent as RDMA_NOMSG (the whole call in a read chunk).", &NfsRdmaStats::nomsg_calls},
    {"fabric_nfs_rdma_mrs_recovered_total",
     "Memory regions recovered after a flushed registration.", &NfsRdmaStats::mrs_recovered},
    {"fabric_nfs_rdma_mrs_orphaned_total", "Memory regions lost to failed recovery.",
     &NfsRdmaStats::mrs_orphaned},
    {"fabric_nfs_rdma_mrs_allocated_total", "Memory regions allocated.",
     &NfsRdmaStats::mrs_allocated},
    {"fabric_nfs_rdma_local_invalidations_total",
     "Replies whose memory regions the client had to invalidate itself (the server did not Send "
     "With Invalidate).",
     &NfsRdmaStats::local_inv_needed},
    {"fabric_nfs_rdma_empty_sendctx_queue_total",
     "Times a send waited for a free send context: the send queue was full.",
     &NfsRdmaStats::empty_sendctx_q},
    {"fabric_nfs_rdma_reply_waits_for_send_total",
     "Replies that arrived before their send completed.", &NfsRdmaStats::reply_waits_for_send},
};

// "tcp", "udp" or "rdma": the first transport line's protocol, else the proto
// option without its address family ("rdma6" is rdma).
std::string TransportOf(const NfsMount& m) {
  if (!m.transports.empty()) return m.transports.front().protocol;
  std::string proto = m.Option("proto").value_or("");
  if (!proto.empty() && proto.back() == '6') proto.pop_back();
  return proto;
}

// Two mount points of one superblock (the same export mounted twice with the
// same options, or a bind mount) print the same counters: only the first
// carries them, so a sum over mounts counts each byte once. The key is what
// two superblocks never share all of.
std::string SuperblockKey(const NfsMount& m) {
  std::string key = m.device + " " + std::to_string(m.age_seconds.value_or(0));
  if (m.bytes) {
    key += " " + std::to_string(m.bytes->server_read) + " " +
           std::to_string(m.bytes->server_write) + " " + std::to_string(m.bytes->normal_read) +
           " " + std::to_string(m.bytes->normal_write);
  }
  for (const auto& t : m.transports) key += " " + std::to_string(t.sends);
  return key;
}

std::optional<double> SizeOption(const MountOptions& options, std::string_view key) {
  auto value = FindMountOption(options, key);
  if (!value) return std::nullopt;
  auto n = ParseUint64(*value);
  if (!n) return std::nullopt;
  return static_cast<double>(*n);
}

class NfsCollector : public Collector {
 public:
  NfsCollector(const SysRoot& root, std::string requested_file,
               std::map<std::string, std::string> peers)
      : path_(root.Proc("self/mountstats")),
        requested_file_(std::move(requested_file)),
        peers_(std::move(peers)) {}

  Status Collect(MetricSink& sink) override {
    errors_.BeginScrape();
    auto text = ReadTable(path_);
    if (text.absent()) return OkStatus();
    if (!text.ok()) return Unexpected{text.error()};
    auto mounts = ParseMountStats(*text, path_);
    if (!mounts.ok()) return Unexpected{mounts.error()};
    std::vector<FstabEntry> requested;
    if (!requested_file_.empty() && !mounts->empty()) {
      auto fstab = ReadTable(requested_file_);
      Result<std::vector<FstabEntry>> parsed =
          fstab.ok() ? ParseFstab(*fstab, requested_file_)
                     : Result<std::vector<FstabEntry>>(Unexpected{fstab.error()});
      if (errors_.Check(requested_file_, "requested_options", parsed)) requested = *parsed;
    }
    std::set<std::string> seen;
    for (const NfsMount& m : *mounts) {
      LabelPairs labels = {
          {"mountpoint", m.mount_point}, {"server", m.server}, {"transport", TransportOf(m)}};
      WriteMount(sink, m, labels, requested);
      if (!seen.insert(SuperblockKey(m)).second) continue;
      WriteTransfers(sink, m, labels);
    }
    errors_.Emit(sink);
    return OkStatus();
  }

 private:
  static LabelPairs With(LabelPairs labels, std::string key, std::string value) {
    labels.emplace_back(std::move(key), std::move(value));
    return labels;
  }

  void WriteMount(MetricSink& sink, const NfsMount& m, const LabelPairs& labels,
                  const std::vector<FstabEntry>& requested) {
    LabelPairs info = labels;
    info.emplace_back("export", m.export_path);
    info.emplace_back("version", m.Option("vers").value_or(m.fstype == "nfs4" ? "4" : "3"));
    info.emplace_back("statvers", m.stat_version);
    auto peer = peers_.find(m.server);
    info.emplace_back("peer", peer == peers_.end() ? "" : peer->second);
    sink.Info("fabric_nfs_mount_info",
              "An NFS mount of this client (/proc/self/mountstats): its server, export, NFS "
              "version, RPC transport (tcp, udp or rdma) and the fleet node the server is "
              "(peer, by name or address; empty when it is none).",
              info);
    if (m.age_seconds) {
      sink.Gauge("fabric_nfs_mount_age_seconds", "Seconds since the NFS mount was made.", labels,
                 static_cast<double>(*m.age_seconds));
    }
    sink.Gauge("fabric_nfs_transport_connections",
               "RPC transports (connections) of the mount: one per xprt line, nconnect of them "
               "on 5.3 and later kernels.",
               labels, static_cast<double>(m.transports.size()));
    if (auto rsize = SizeOption(m.options, "rsize")) {
      sink.Gauge("fabric_nfs_mount_rsize_bytes",
                 "The READ size the kernel negotiated (mountstats opts: the smallest of what "
                 "was asked, the server's maximum and the transport's; NFS over RDMA caps it "
                 "at its largest chunk).",
                 labels, *rsize);
    }
    if (auto wsize = SizeOption(m.options, "wsize")) {
      sink.Gauge("fabric_nfs_mount_wsize_bytes",
                 "The WRITE size the kernel negotiated (mountstats opts).", labels, *wsize);
    }
    for (const FstabEntry& e : requested) {
      if (e.mount_point != m.mount_point) continue;
      if (auto rsize = SizeOption(e.options, "rsize")) {
        sink.Gauge("fabric_nfs_mount_requested_rsize_bytes",
                   "The READ size asked for in collectors.nfs.requested_options_file (fstab "
                   "format) for this mount point; absent when it asks for none.",
                   labels, *rsize);
      }
      if (auto wsize = SizeOption(e.options, "wsize")) {
        sink.Gauge("fabric_nfs_mount_requested_wsize_bytes",
                   "The WRITE size asked for in collectors.nfs.requested_options_file for this "
                   "mount point; absent when it asks for none.",
                   labels, *wsize);
      }
    }
  }

  void WriteTransfers(MetricSink& sink, const NfsMount& m, const LabelPairs& labels) {
    if (m.bytes) {
      sink.Counter("fabric_nfs_read_bytes_total",
                   "Bytes the client read from the server in READ replies (mountstats bytes "
                   "field 5): what crossed the fabric, page-cache hits left out.",
                   labels, static_cast<double>(m.bytes->server_read));
      sink.Counter("fabric_nfs_write_bytes_total",
                   "Bytes the client wrote to the server in WRITE calls (mountstats bytes "
                   "field 6).",
                   labels, static_cast<double>(m.bytes->server_write));
    }
    WriteTransports(sink, m, labels);
    for (const NfsOperationStats& op : m.operations) {
      if (op.operations == 0) continue;  // Some 60 NFSv4 operations are never used.
      LabelPairs l = With(labels, "operation", op.name);
      sink.Counter("fabric_nfs_rpc_operations_total", "RPC operations of this kind completed.", l,
                   static_cast<double>(op.operations));
      sink.Counter("fabric_nfs_rpc_retransmissions_total",
                   "Transmissions beyond the first of each operation: retransmitted RPCs.", l,
                   static_cast<double>(
                       op.transmissions > op.operations ? op.transmissions - op.operations : 0));
      sink.Counter("fabric_nfs_rpc_major_timeouts_total", "Operations that timed out (major).", l,
                   static_cast<double>(op.major_timeouts));
      sink.Counter("fabric_nfs_rpc_sent_bytes_total",
                   "Bytes sent for these operations, RPC headers included.", l,
                   static_cast<double>(op.bytes_sent));
      sink.Counter("fabric_nfs_rpc_received_bytes_total",
                   "Bytes received for these operations, RPC headers included.", l,
                   static_cast<double>(op.bytes_received));
      sink.Counter("fabric_nfs_rpc_queue_seconds_total",
                   "Time the operations waited to be sent, summed.", l,
                   static_cast<double>(op.queue_ms) * kMillisecond);
      sink.Counter("fabric_nfs_rpc_rtt_seconds_total",
                   "Round-trip time from send to reply, summed; divided by the operations' "
                   "rate it is the mean RTT.",
                   l, static_cast<double>(op.rtt_ms) * kMillisecond);
      sink.Counter("fabric_nfs_rpc_execute_seconds_total",
                   "Time from queueing to completion, summed.", l,
                   static_cast<double>(op.execute_ms) * kMillisecond);
      if (op.errors) {
        sink.Counter("fabric_nfs_rpc_errors_total",
                     "Operations that completed with an error (5.x and later kernels).", l,
                     static_cast<double>(*op.errors));
      }
    }
  }

  // Summed over the mount's transports (nconnect).
  void WriteTransports(MetricSink& sink, const NfsMount& m, const LabelPairs& labels) {
    if (m.transports.empty()) return;
    NfsTransportStats sum;
    std::optional<NfsRdmaStats> rdma;
    auto add = [](std::optional<uint64_t>& to, const std::optional<uint64_t>& from) {
      if (from) to = to.value_or(0) + *from;
    };
    for (const auto& t : m.transports) {
      sum.connect_count += t.connect_count;
      sum.sends += t.sends;
      sum.receives += t.receives;
      sum.bad_xids += t.bad_xids;
      sum.backlog_sum += t.backlog_sum;
      if (!t.rdma) continue;
      if (!rdma) {
        rdma = *t.rdma;
        continue;
      }
      for (auto member : kNfsRdmaCounters) (*rdma).*member += (*t.rdma).*member;
      for (auto member : kNfsRdmaLaterCounters) add((*rdma).*member, (*t.rdma).*member);
    }
    auto counter = [&](std::string_view name, std::string_view help, double value) {
      sink.Counter(name, help, labels, value);
    };
    counter("fabric_nfs_transport_connects_total",
            "Times the RPC transports (re)connected to the server.",
            static_cast<double>(sum.connect_count));
    counter("fabric_nfs_transport_sends_total", "RPC requests the transports sent.",
            static_cast<double>(sum.sends));
    counter("fabric_nfs_transport_receives_total", "RPC replies the transports received.",
            static_cast<double>(sum.receives));
    counter("fabric_nfs_transport_bad_xids_total",
            "Replies whose transaction id matched no request (late replies to retransmitted "
            "requests).",
            static_cast<double>(sum.bad_xids));
    counter("fabric_nfs_transport_backlog_sum_total",
            "The backlog queue length summed at every send (bklog_u); its rate over the sends' "
            "is the mean backlog: requests waiting for a transport slot.",
            static_cast<double>(sum.backlog_sum));
    if (!rdma) return;
    for (const auto& c : kRdmaMetrics)
      counter(c.name, c.help, static_cast<double>((*rdma).*c.member));
    for (const auto& c : kLaterRdmaMetrics) {
      if (auto value = (*rdma).*c.member) counter(c.name, c.help, static_cast<double>(*value));
    }
  }

  std::string path_;
  std::string requested_file_;
  const std::map<std::string, std::string> peers_;  // Fleet name or address -> name.
  DeviceErrors errors_{"nfs"};
};

}  // namespace

std::unique_ptr<Collector> MakeNfsCollector(const CollectorContext& context) {
  const ConfigNode& node = context.settings;
  std::string requested;
  if (auto path = node.String("requested_options_file")) {
    std::filesystem::path p(*path);
    if (p.is_relative() && !node.file().empty()) {
      p = std::filesystem::path(node.file()).parent_path() / p;
    }
    requested = p.string();
  }
  // The server of a mount is as it was mounted: a fleet node's name or address.
  std::map<std::string, std::string> peers;
  if (context.fleet != nullptr) {
    for (const FleetNode& peer : context.fleet->nodes) {
      peers.emplace(peer.name, peer.name);
      peers.emplace(peer.address, peer.name);
    }
  }
  return std::make_unique<NfsCollector>(context.root, std::move(requested), std::move(peers));
}

}  // namespace fabric
