// Parser for /proc/self/mountstats (fs/nfs/super.c nfs_show_stats and
// net/sunrpc/stats.c rpc_clnt_show_stats): one "device ... mounted on ...
// with fstype ..." line per mount; NFS mounts (statvers=) follow it with
// indented lines: opts, age, bytes, events, one "xprt:" line per transport
// (nconnect gives several), and the per-op statistics. The formats by kernel:
//
//   statvers=1.0 (before 2.6.18): xprt tcp 10 numbers, udp 7
//   statvers=1.1: xprt tcp 13 numbers, udp 10 (max_slots, sending_u and
//                 pending_u added)
//   xprt rdma (net/sunrpc/xprtrdma, its own print_stats): the 10 generic
//                 numbers and 10 RPC-over-RDMA ones in the 3.x and early 4.x
//                 kernels (RHEL 7's 3.10), then nomsg_call_count, 4 MR
//                 counters, empty_sendctx_q and reply_waits_for_send, one
//                 release at a time: 27 numbers in the 5.x and 6.x kernels
//   per-op lines: 8 numbers, 9 (errors, om_error_status) in 5.x and 6.x
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/parse/mount_options.h"
#include "common/result.h"

namespace fabric {

// The RPC-over-RDMA transport's own counters (struct rpcrdma_stats). Those a
// kernel does not print are nullopt.
struct NfsRdmaStats {
  uint64_t read_chunks = 0;   // Read chunks marshalled (the server RDMA-reads them).
  uint64_t write_chunks = 0;  // Write chunks (the server RDMA-writes into them).
  uint64_t reply_chunks = 0;
  uint64_t request_chunk_bytes = 0;  // total_rdma_request: bytes in read chunks.
  uint64_t reply_chunk_bytes = 0;    // total_rdma_reply: bytes in write and reply chunks.
  uint64_t pullup_copy_bytes = 0;    // Copied into the inline send buffer by the CPU.
  uint64_t fixup_copy_bytes = 0;     // Copied out of an inline reply by the CPU.
  uint64_t hardway_register_bytes = 0;
  uint64_t failed_marshal = 0;
  uint64_t bad_reply = 0;
  std::optional<uint64_t> nomsg_calls;
  std::optional<uint64_t> mrs_recovered;
  std::optional<uint64_t> mrs_orphaned;
  std::optional<uint64_t> mrs_allocated;
  std::optional<uint64_t> local_inv_needed;
  std::optional<uint64_t> empty_sendctx_q;
  std::optional<uint64_t> reply_waits_for_send;
};

// The counters every rdma line prints, in the kernel's order; then those later kernels
// appended, one release at a time.
inline constexpr std::array<uint64_t NfsRdmaStats::*, 10> kNfsRdmaCounters = {
    &NfsRdmaStats::read_chunks,       &NfsRdmaStats::write_chunks,
    &NfsRdmaStats::reply_chunks,      &NfsRdmaStats::request_chunk_bytes,
    &NfsRdmaStats::reply_chunk_bytes, &NfsRdmaStats::pullup_copy_bytes,
    &NfsRdmaStats::fixup_copy_bytes,  &NfsRdmaStats::hardway_register_bytes,
    &NfsRdmaStats::failed_marshal,    &NfsRdmaStats::bad_reply};
inline constexpr std::array<std::optional<uint64_t> NfsRdmaStats::*, 7> kNfsRdmaLaterCounters = {
    &NfsRdmaStats::nomsg_calls,         &NfsRdmaStats::mrs_recovered,
    &NfsRdmaStats::mrs_orphaned,        &NfsRdmaStats::mrs_allocated,
    &NfsRdmaStats::local_inv_needed,    &NfsRdmaStats::empty_sendctx_q,
    &NfsRdmaStats::reply_waits_for_send};

// One "xprt:" line: an RPC transport of the mount.
struct NfsTransportStats {
  std::string protocol;  // "tcp", "udp" or "rdma" as the kernel names it.
  uint64_t port = 0;     // Local port (0 for rdma).
  uint64_t bind_count = 0;
  uint64_t connect_count = 0;  // Absent on udp: 0.
  uint64_t connect_time = 0;   // Jiffies spent connecting (absent on udp: 0).
  uint64_t idle_seconds = 0;   // Absent on udp: 0.
  uint64_t sends = 0;
  uint64_t receives = 0;
  uint64_t bad_xids = 0;
  uint64_t request_queue_sum = 0;     // req_u: requests in flight summed at every send.
  uint64_t backlog_sum = 0;           // bklog_u: backlog length summed at every send.
  std::optional<uint64_t> max_slots;  // statvers 1.1 tcp and udp.
  std::optional<uint64_t> sending_queue_sum;
  std::optional<uint64_t> pending_queue_sum;
  std::optional<NfsRdmaStats> rdma;  // protocol "rdma".
};

// One per-op line ("READ: ..."): times in milliseconds, summed over the operations.
struct NfsOperationStats {
  std::string name;
  uint64_t operations = 0;
  uint64_t transmissions = 0;  // Above `operations` by the retransmissions.
  uint64_t major_timeouts = 0;
  uint64_t bytes_sent = 0;  // RPC headers and payload.
  uint64_t bytes_received = 0;
  uint64_t queue_ms = 0;           // Queued before being sent.
  uint64_t rtt_ms = 0;             // Sent to reply received.
  uint64_t execute_ms = 0;         // Queued to done.
  std::optional<uint64_t> errors;  // 5.3 and later.
};

// The "bytes:" line (struct nfs_iostats byte counters).
struct NfsByteCounters {
  uint64_t normal_read = 0;  // read(2) through the page cache.
  uint64_t normal_write = 0;
  uint64_t direct_read = 0;  // O_DIRECT.
  uint64_t direct_write = 0;
  uint64_t server_read = 0;  // READ payload from the server: the wire.
  uint64_t server_write = 0;
  uint64_t read_pages = 0;
  uint64_t write_pages = 0;
};

struct NfsMount {
  std::string device;  // "server:/export" as mounted (octal escapes decoded).
  std::string server;  // The part before ":" ([] stripped from an IPv6 address).
  std::string export_path;
  std::string mount_point;
  std::string fstype;        // "nfs" or "nfs4".
  std::string stat_version;  // "1.0", "1.1".
  // The "opts:" line in order: what the kernel negotiated, not what was asked.
  MountOptions options;
  std::optional<uint64_t> age_seconds;
  std::optional<NfsByteCounters> bytes;
  std::vector<NfsTransportStats> transports;
  std::vector<NfsOperationStats> operations;

  // The value of option `key` ("" for a flag such as "hard"), nullopt when absent.
  std::optional<std::string> Option(std::string_view key) const;
};

// The NFS mounts of `text`; other filesystems are skipped. `source` names the
// file in errors ("mountstats:12: ...").
Result<std::vector<NfsMount>> ParseMountStats(std::string_view text, std::string_view source);

}  // namespace fabric
