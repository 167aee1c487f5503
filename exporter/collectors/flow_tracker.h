// The flows collector's arithmetic, free of I/O: which sockets are on the
// fabric, which application and limiter each belongs to, goodput from deltas
// between two dumps, and the bounded aggregation by peer x application x
// limiter that is exported (never one series per socket).
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/kernel/socket_owners.h"
#include "common/parse/flow_types.h"
#include "common/parse/ip_address.h"

namespace fabric {

struct PortRange {
  uint16_t first = 0;
  uint16_t last = 0;
};

struct Application {
  std::string name;
  std::vector<PortRange> ports;
};

// ssh 22, rsync 873, nfs 2049, smb 445, iscsi 3260, iperf3 5201, the fabric
// probe's `probe_port` (its responder; probes.tcp.port), ceph 6789 and
// 6800-7300.
std::vector<Application> DefaultApplications(uint16_t probe_port = 9878);

// The application of a connection from its well-known port: whichever of
// the two ports is in the table (the lower one when both are, since servers
// listen on the low port); "other" when neither is.
std::string_view ClassifyApplication(const std::vector<Application>& apps, uint16_t local_port,
                                     uint16_t remote_port);

// The application of a bulk flow no port names, from the process that holds
// its socket (/proc/PID/comm): the tools that move a stream through
// userspace read()/write() buffers by construction (socat, the netcat
// family, mbuffer), and rsync and ssh on ports of their own. nullopt for any
// other process.
std::optional<std::string_view> ApplicationOfProcess(std::string_view comm);

enum class Limiter {
  kReceiverWindow,  // The peer's advertised window ran out (tcpi_rwnd_limited)
                    // while small: the receive buffer is the cap.
  kSendBuffer,      // Everything in the send buffer was in flight (tcpi_sndbuf_limited).
  kNetwork,         // Busy, limited by neither: the congestion window / path.
  kApplication,     // Not busy: the application gave TCP nothing to send; or
                    // rwnd-limited behind a window the peer had opened wide
                    // and now keeps closed: the receiving process is not
                    // reading, its buffer is not the cap.
  kRemoteSender,    // The flow mostly receives here: the limit is decided at the peer.
  kNotReading,      // The flow receives here and this end's process left its receive queue
                    // full (ReceiverNotReading): time counters only, the flow's gauge says
                    // remote_sender.
  kUnknown,         // This kernel's tcp_info has no busy/rwnd/sndbuf chronographs.
};
std::string_view LimiterName(Limiter limiter);

// Chronograph deltas over one interval, microseconds. busy includes the
// rwnd- and sndbuf-limited time (the kernel's tcpi_busy_time is their sum
// with plain busy time).
struct LimiterTimes {
  double interval_us = 0;
  double busy_us = 0;
  double rwnd_limited_us = 0;
  double sndbuf_limited_us = 0;
  // The peer's window is closed after having been wide open, or opened far wider than
  // the flow used (PeerStoppedReading, WindowOutgrewFlow): rwnd-limited time is the
  // receiving application's.
  bool peer_stopped_reading = false;
};
// How long each limiter held the flow in the interval, microseconds.
using LimiterShares = std::array<std::pair<Limiter, double>, 4>;
LimiterShares ShareLimiters(const LimiterTimes& t);
// The limiter that held the flow longest in the interval.
Limiter ClassifyLimiter(const LimiterTimes& t);

// A receiver that stopped reading, seen from the sender: the window it
// advertises now is under four segments while it once advertised
// kOpenWindowBytes or more on this connection. A receive buffer that small
// (SO_RCVBUF, rmem_max) never opens that wide; a large buffer that its
// process does not drain closes. Judged per dump, so the collector's
// limited-seconds counters, not one scrape, carry the verdict.
inline constexpr double kOpenWindowBytes = 256 * 1024;
bool PeerStoppedReading(double window_now, double peak_window, double mss);

// The same receiver judged over an interval rather than at one dump: its window, at the
// widest it opened on this connection, carries at least kWindowOutgrewFlowFactor times what
// the flow moved while busy (peak window / smoothed RTT against bytes / busy time). A window
// that small buffers bound (SO_RCVBUF, tcp_rmem) sits at its peak while the sender waits on
// it, so the flow moves about window / RTT; a flow far below that was held by a window its
// receiving process left closed most of the time. One dump sees the window open or shut by
// chance (a CPU-bound receiver drains in bursts); this holds for every dump of such a flow.
inline constexpr double kWindowOutgrewFlowFactor = 2;
bool WindowOutgrewFlow(double peak_window, double srtt_seconds, double moved_bytes,
                       double busy_seconds);

// The same receiver seen from its own end: its receive queue holds at least this share of the
// buffer (SK_MEMINFO_RMEM_ALLOC against RCVBUF) at a dump, data its process has not read. A
// process that reads keeps the queue near empty, whatever the rate; one that does not read
// fills it, and then the kernel drops, shrinks the window or holds back its ACKs, which the
// sender can take for a slow network. Counted on the receiving end as `not_reading` time of
// the received flow (fabric_flows_limited_seconds_total{limiter="not_reading"}); the rules
// join it to the sender's share.
inline constexpr double kUnreadQueueShare = 0.5;
bool ReceiverNotReading(std::optional<uint32_t> rmem_alloc, std::optional<uint32_t> rcvbuf);

// The same receiver judged over the interval rather than at one dump: a thread of the process
// holding the socket was runnable (on a CPU, or ready and waiting for one: a busy run queue, a
// cgroup's quota used up) for at least kNeverWaitedShare of it, and data still waited unread
// at the dump. A thread that waits for data sleeps in recv(), so one that never slept was not
// waiting for the network: its own work, or the CPU it could not get, paced the flow. One dump
// of the queue alone sees a receiver that drains in bursts (a CPU-capped rsync reads once per
// CFS period) half full or not by chance; its run time holds for the whole interval. The
// queue at the dump keeps out a thread that spins without reading (busy polling) and a busy
// thread of a process that reads in another.
inline constexpr double kNeverWaitedShare = 0.9;
bool ReceiverNeverWaited(double busiest_thread_runnable_share, std::optional<uint32_t> rmem_alloc);

struct FlowsSettings {
  // A socket is on the fabric when its local address is in one of these
  // prefixes or belongs to one of these interfaces; with both empty, any
  // non-loopback address of the host.
  std::vector<IpPrefix> local_prefixes;
  std::vector<std::string> interfaces;
  double bulk_threshold_bytes_per_second = 1e6;
  std::vector<Application> applications = DefaultApplications();
  // Aggregates beyond this many (by goodput) fold into peer="other".
  size_t max_series = 100;
  // A counter series nothing has added to for this long is forgotten.
  double counter_expiry_seconds = 900;
};

struct AggregateKey {
  std::string peer;
  std::string application;
  std::string limiter;
  auto operator<=>(const AggregateKey&) const = default;
};

// The fastest flow of an aggregate, with the sizes that decide its ceiling:
// goodput <= window / RTT for each window.
struct BestFlow {
  double goodput = 0;
  double rtt_seconds = 0;
  std::optional<double> delivery_rate;
  std::optional<double> congestion_window_bytes;
  std::optional<double> peer_receive_window_bytes;
  std::optional<double> receive_space_bytes;
  std::optional<double> send_buffer_bytes;
  std::optional<double> receive_buffer_bytes;
};

struct ActiveAggregate {
  int bulk_flows = 0;
  double goodput = 0;  // Bytes per second, summed over the flows.
  BestFlow best;
};

// A transfer over time: everything one application moved with one peer,
// across its connections (a per-file scp or rsync loop opens one per file)
// and whatever limited each interval, so the series neither vanish between
// connections nor split when the limiter flips.
struct TransferKey {
  std::string peer;
  std::string application;
  std::string direction;  // "send" or "receive": which end of the flows this is.
  auto operator<=>(const TransferKey&) const = default;
};

struct TransferCounters {
  double bytes = 0;
  double retransmits = 0;
  // Flow-seconds each limiter held the bulk flows (by LimiterName): the
  // tcpi_busy_time / rwnd_limited / sndbuf_limited chronographs summed, so a
  // limiter that alternates between scrapes is judged by its share of time.
  std::map<std::string, double> limited_seconds;
  double last_update = 0;  // Monotonic seconds.
};

struct FlowReport {
  size_t sockets = 0;  // On-fabric sockets in this dump, bulk or not.
  std::map<AggregateKey, ActiveAggregate> active;
  const std::map<TransferKey, TransferCounters>* counters = nullptr;
};

// The processes holding socket inodes (common/kernel/socket_owners.h); the
// tracker asks, once per socket, for bulk flows no port names and for bulk
// flows received here.
using OwnerLookup = std::function<std::map<uint64_t, SocketOwner>(const std::set<uint64_t>&)>;
// Nanoseconds each thread of a process has been runnable, by thread id
// (common/kernel/thread_run_times.h); read at every dump for the owners of
// received bulk flows.
using RunnableLookup = std::function<std::map<uint32_t, uint64_t>(uint32_t pid)>;

class FlowTracker {
 public:
  explicit FlowTracker(FlowsSettings settings, OwnerLookup owners = nullptr,
                       RunnableLookup runnable = nullptr)
      : settings_(std::move(settings)),
        owners_(std::move(owners)),
        runnable_(std::move(runnable)) {}

  // Compares `snapshot` with the previous one. Sockets in the first snapshot
  // only set their baseline (what they moved before the exporter looked is
  // not this interval's); a socket that appears later opened since the last
  // dump, so its whole tcpi_bytes_acked / bytes_received counts, from its
  // first byte. Sockets gone from the dump are forgotten.
  FlowReport Update(const FlowSnapshot& snapshot);

  size_t tracked_sockets() const { return sockets_.size(); }

 private:
  struct SocketState {
    double time = 0;
    uint64_t acked = 0;
    uint64_t received = 0;
    uint64_t busy_us = 0;
    uint64_t rwnd_us = 0;
    uint64_t sndbuf_us = 0;
    uint32_t retrans = 0;
    double peak_window = 0;            // The largest window the peer advertised.
    std::optional<std::string> owner;  // The process, once looked up.
    std::vector<uint32_t> owner_pids;  // Every process holding it, once looked up.
    bool owner_looked_up = false;      // Found or not: a kernel socket (nfsd) has no owner.
    bool bulk = false;                 // Its last interval moved at the bulk threshold or more.
    bool bulk_received = false;        // A bulk interval of it was received here.
  };
  // A thread by (pid, tid).
  using ThreadId = std::pair<uint32_t, uint32_t>;

  std::vector<IpAddress> LocalAddresses(const FlowSnapshot& snapshot) const;
  bool OnFabric(const IpAddress& local, const std::vector<IpAddress>& addresses) const;
  TransferCounters& CountersFor(const TransferKey& key);
  // Adds to the counters what each socket of snapshot.closed moved since the dump that last
  // saw it, and forgets it (from `next`, this dump's sockets).
  void CountClosed(const FlowSnapshot& snapshot, const std::vector<IpAddress>& addresses,
                   std::optional<double> last_dump,
                   std::unordered_map<uint64_t, SocketState>& next);
  // This dump's run times of the threads of every process that holds a received flow's socket.
  std::map<ThreadId, uint64_t> ReadReceiverThreads(
      const std::unordered_map<uint64_t, SocketState>& sockets) const;
  // The largest share of `seconds` any thread of `pids` was runnable, between the last dump's
  // run times and `now`; nullopt when no thread of them was read at both.
  std::optional<double> BusiestThreadShare(const std::vector<uint32_t>& pids,
                                           const std::map<ThreadId, uint64_t>& now,
                                           double seconds) const;

  FlowsSettings settings_;
  OwnerLookup owners_;
  RunnableLookup runnable_;
  std::unordered_map<uint64_t, SocketState> sockets_;
  std::map<ThreadId, uint64_t> runnable_ns_;  // At the previous dump.
  std::map<TransferKey, TransferCounters> counters_;
  std::optional<double> last_dump_;  // Monotonic seconds of the previous snapshot.
};

}  // namespace fabric
