#include "exporter/collectors/flow_tracker.h"

#include <algorithm>
#include <set>
#include <utility>

namespace fabric {
namespace {

constexpr std::string_view kOther = "other";
constexpr std::string_view kProbe = "fabric_probe";

void MergeInto(ActiveAggregate& into, const ActiveAggregate& from) {
  into.bulk_flows += from.bulk_flows;
  into.goodput += from.goodput;
  if (from.best.goodput > into.best.goodput) into.best = from.best;
}

// Counters that went backwards belong to a different socket that reused the
// cookie's slot in our map (or a kernel bug): restart the baseline.
bool Delta(uint64_t now, uint64_t before, double& out) {
  if (now < before) return false;
  out = static_cast<double>(now - before);
  return true;
}

// Each limiter's share of an interval into the counters' flow-seconds.
void AddLimitedSeconds(const LimiterShares& shares, TransferCounters& counters) {
  for (const auto& [limiter, us] : shares) {
    if (us > 0) counters.limited_seconds[std::string(LimiterName(limiter))] += us / 1e6;
  }
}

}  // namespace

std::vector<Application> DefaultApplications(uint16_t probe_port) {
  return {
      {"ssh", {{22, 22}}},
      {"rsync", {{873, 873}}},
      {"nfs", {{2049, 2049}}},
      {"smb", {{445, 445}}},
      {"iscsi", {{3260, 3260}}},
      {"iperf3", {{5201, 5201}}},
      {std::string(kProbe), {{probe_port, probe_port}}},
      {"ceph", {{6789, 6789}, {6800, 7300}}},
  };
}

std::string_view ClassifyApplication(const std::vector<Application>& apps, uint16_t local_port,
                                     uint16_t remote_port) {
  auto lookup = [&](uint16_t port) -> const Application* {
    for (const auto& app : apps) {
      for (const auto& range : app.ports) {
        if (port >= range.first && port <= range.last) return &app;
      }
    }
    return nullptr;
  };
  const uint16_t low = std::min(local_port, remote_port);
  const uint16_t high = std::max(local_port, remote_port);
  if (const auto* app = lookup(low)) return app->name;
  if (const auto* app = lookup(high)) return app->name;
  return kOther;
}

std::optional<std::string_view> ApplicationOfProcess(std::string_view comm) {
  // comm is the basename the program was started by (at most 15 bytes), so
  // Debian's alternatives for netcat appear under each of their names.
  static constexpr std::pair<std::string_view, std::string_view> kProcesses[] = {
      {"socat", "socat"},     {"nc", "netcat"},         {"ncat", "netcat"},
      {"netcat", "netcat"},   {"nc.openbsd", "netcat"}, {"nc.traditional", "netcat"},
      {"mbuffer", "mbuffer"}, {"rsync", "rsync"},       {"ssh", "ssh"},
      {"sshd", "ssh"},        {"scp", "ssh"},           {"sftp-server", "ssh"},
  };
  for (const auto& [name, application] : kProcesses) {
    if (comm == name) return application;
  }
  return std::nullopt;
}

std::string_view LimiterName(Limiter limiter) {
  switch (limiter) {
    case Limiter::kReceiverWindow:
      return "receiver_window";
    case Limiter::kSendBuffer:
      return "send_buffer";
    case Limiter::kNetwork:
      return "network";
    case Limiter::kApplication:
      return "application";
    case Limiter::kRemoteSender:
      return "remote_sender";
    case Limiter::kNotReading:
      return "not_reading";
    case Limiter::kUnknown:
      return "unknown";
  }
  return "unknown";
}

LimiterShares ShareLimiters(const LimiterTimes& t) {
  // The chronographs tick in jiffies, so busy can slightly exceed the
  // interval measured on CLOCK_MONOTONIC.
  const double interval = std::max(t.interval_us, t.busy_us);
  const double rwnd = std::max(0.0, t.rwnd_limited_us);
  const double sndbuf = std::max(0.0, t.sndbuf_limited_us);
  const double network = std::max(0.0, t.busy_us - rwnd - sndbuf);
  const double idle = std::max(0.0, interval - t.busy_us);
  return {{
      {t.peer_stopped_reading ? Limiter::kApplication : Limiter::kReceiverWindow,
       t.peer_stopped_reading ? 0.0 : rwnd},
      {Limiter::kSendBuffer, sndbuf},
      {Limiter::kNetwork, network},
      {Limiter::kApplication, idle + (t.peer_stopped_reading ? rwnd : 0.0)},
  }};
}

Limiter ClassifyLimiter(const LimiterTimes& t) {
  const LimiterShares shares = ShareLimiters(t);
  auto best = shares[0];
  for (const auto& share : shares) {
    if (share.second > best.second) best = share;
  }
  return best.first;
}

bool PeerStoppedReading(double window_now, double peak_window, double mss) {
  return mss > 0 && peak_window >= kOpenWindowBytes && window_now < 4 * mss;
}

bool WindowOutgrewFlow(double peak_window, double srtt_seconds, double moved_bytes,
                       double busy_seconds) {
  if (peak_window < kOpenWindowBytes || srtt_seconds <= 0 || busy_seconds <= 0) return false;
  return peak_window / srtt_seconds >= kWindowOutgrewFlowFactor * moved_bytes / busy_seconds;
}

bool ReceiverNotReading(std::optional<uint32_t> rmem_alloc, std::optional<uint32_t> rcvbuf) {
  return rmem_alloc && rcvbuf && *rcvbuf > 0 && *rmem_alloc >= kUnreadQueueShare * *rcvbuf;
}

bool ReceiverNeverWaited(double busiest_thread_runnable_share, std::optional<uint32_t> rmem_alloc) {
  return busiest_thread_runnable_share >= kNeverWaitedShare && rmem_alloc && *rmem_alloc > 0;
}

std::map<FlowTracker::ThreadId, uint64_t> FlowTracker::ReadReceiverThreads(
    const std::unordered_map<uint64_t, SocketState>& sockets) const {
  std::map<ThreadId, uint64_t> threads;
  if (!runnable_) return threads;
  std::set<uint32_t> pids;
  for (const auto& [cookie, state] : sockets) {
    if (state.bulk_received) pids.insert(state.owner_pids.begin(), state.owner_pids.end());
  }
  for (uint32_t pid : pids) {
    for (const auto& [tid, ns] : runnable_(pid)) threads[{pid, tid}] = ns;
  }
  return threads;
}

std::optional<double> FlowTracker::BusiestThreadShare(const std::vector<uint32_t>& pids,
                                                      const std::map<ThreadId, uint64_t>& now,
                                                      double seconds) const {
  if (seconds <= 0) return std::nullopt;
  std::optional<double> busiest;
  for (uint32_t pid : pids) {
    for (auto it = now.lower_bound({pid, 0}); it != now.end() && it->first.first == pid; ++it) {
      auto before = runnable_ns_.find(it->first);
      double ns = 0;
      if (before == runnable_ns_.end() || !Delta(it->second, before->second, ns)) continue;
      busiest = std::max(busiest.value_or(0), ns / 1e9 / seconds);
    }
  }
  return busiest;
}

std::vector<IpAddress> FlowTracker::LocalAddresses(const FlowSnapshot& snapshot) const {
  std::vector<IpAddress> out;
  const bool defaults = settings_.interfaces.empty() && settings_.local_prefixes.empty();
  for (const auto& a : snapshot.addresses) {
    bool wanted = defaults ? !a.address.IsLoopback()
                           : std::find(settings_.interfaces.begin(), settings_.interfaces.end(),
                                       a.interface) != settings_.interfaces.end();
    if (wanted) out.push_back(a.address);
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool FlowTracker::OnFabric(const IpAddress& local, const std::vector<IpAddress>& addresses) const {
  if (std::binary_search(addresses.begin(), addresses.end(), local)) return true;
  for (const auto& prefix : settings_.local_prefixes) {
    if (prefix.Contains(local)) return true;
  }
  return false;
}

TransferCounters& FlowTracker::CountersFor(const TransferKey& key) {
  if (auto it = counters_.find(key); it != counters_.end()) return it->second;
  if (counters_.size() < settings_.max_series) return counters_[key];
  return counters_[{std::string(kOther), key.application, key.direction}];
}

void FlowTracker::CountClosed(const FlowSnapshot& snapshot, const std::vector<IpAddress>& addresses,
                              std::optional<double> last_dump,
                              std::unordered_map<uint64_t, SocketState>& next) {
  const double now = snapshot.monotonic_seconds;
  for (const auto& s : snapshot.closed) {
    if (!s.info || !s.info->bytes_acked || !s.info->bytes_received) continue;
    if (!OnFabric(s.local, addresses)) continue;
    // What the last dump that saw it counted (this one, or the one before), else nothing: it
    // opened and closed between two dumps. Before the exporter's first look, a baseline only.
    SocketState seen;
    bool in_this_dump = false;
    if (auto it = next.find(s.cookie); it != next.end()) {
      seen = it->second;
      in_this_dump = true;
      next.erase(it);
    } else if (auto before = sockets_.find(s.cookie); before != sockets_.end()) {
      seen = before->second;
    } else if (last_dump) {
      seen.time = *last_dump;
    } else {
      continue;
    }
    const TcpInfo& info = *s.info;
    double sent = 0, received = 0;
    if (!Delta(*info.bytes_acked, seen.acked, sent) ||
        !Delta(*info.bytes_received, seen.received, received)) {
      continue;
    }
    const bool sending = sent >= received;
    const double moved = sending ? sent : received;
    // Bulk as the live sockets are: one in this dump by its interval there (what it moved
    // after the dump is a tail of it), any other by its rate since it was last seen (at
    // least what it moved in its life). An interactive session that closes stays out.
    const double dt = now - seen.time;
    if (moved <= 0 ||
        (in_this_dump ? !seen.bulk
                      : dt <= 0 || moved / dt < settings_.bulk_threshold_bytes_per_second)) {
      continue;
    }
    std::string_view application =
        ClassifyApplication(settings_.applications, s.local_port, s.remote_port);
    if (application == kOther && seen.owner) {
      application = ApplicationOfProcess(*seen.owner).value_or(kOther);
    }
    TransferCounters& counters =
        CountersFor({s.remote.ToString(), std::string(application), sending ? "send" : "receive"});
    counters.bytes += moved;
    if (info.total_retrans >= seen.retrans)
      counters.retransmits += info.total_retrans - seen.retrans;
    // What held it while busy (when it closed is not known, so no idle time is counted).
    LimiterTimes times;
    if (sending && info.busy_us && Delta(*info.busy_us, seen.busy_us, times.busy_us) &&
        Delta(info.rwnd_limited_us.value_or(0), seen.rwnd_us, times.rwnd_limited_us) &&
        Delta(info.sndbuf_limited_us.value_or(0), seen.sndbuf_us, times.sndbuf_limited_us)) {
      times.interval_us = times.busy_us;
      AddLimitedSeconds(ShareLimiters(times), counters);
    }
    counters.last_update = now;
  }
}

FlowReport FlowTracker::Update(const FlowSnapshot& snapshot) {
  const double now = snapshot.monotonic_seconds;
  std::erase_if(counters_, [&](const auto& entry) {
    return now - entry.second.last_update > settings_.counter_expiry_seconds;
  });
  const std::optional<double> last_dump = std::exchange(last_dump_, now);

  // A bulk flow of this interval; its application is settled once the
  // owners of the sockets no port names are looked up, all in one walk.
  struct Interval {
    const SocketRecord* socket;
    double moved;
    double retransmits;
    Limiter limiter;
    LimiterShares shares;
    double dt;
    std::string_view application;
    bool sending;
  };
  std::vector<Interval> intervals;
  std::set<uint64_t> lookups;

  FlowReport report;
  const auto addresses = LocalAddresses(snapshot);
  std::unordered_map<uint64_t, SocketState> next;
  next.reserve(sockets_.size() + 16);
  for (const auto& s : snapshot.sockets) {
    if (!s.info || !s.info->bytes_acked || !s.info->bytes_received) continue;
    if (!OnFabric(s.local, addresses)) continue;
    ++report.sockets;
    const TcpInfo& info = *s.info;
    SocketState state;
    state.time = now;
    state.acked = *info.bytes_acked;
    state.received = *info.bytes_received;
    state.busy_us = info.busy_us.value_or(0);
    state.rwnd_us = info.rwnd_limited_us.value_or(0);
    state.sndbuf_us = info.sndbuf_limited_us.value_or(0);
    state.retrans = info.total_retrans;
    SocketState prev;
    if (auto prev_it = sockets_.find(s.cookie); prev_it != sockets_.end()) {
      prev = prev_it->second;
    } else if (last_dump) {
      // Opened since the last dump: its counters started at zero then.
      prev.time = *last_dump;
    } else {
      prev.time = now;  // Here before the exporter looked: baseline only.
    }
    const double window = info.snd_wnd.value_or(0);
    state.peak_window = std::max(prev.peak_window, window);
    state.owner = prev.owner;
    state.owner_pids = prev.owner_pids;
    state.owner_looked_up = prev.owner_looked_up;
    state.bulk_received = prev.bulk_received;
    SocketState& kept = next[s.cookie] = std::move(state);
    const double dt = now - prev.time;
    double sent = 0, received = 0;
    if (dt <= 0 || !Delta(kept.acked, prev.acked, sent) ||
        !Delta(kept.received, prev.received, received)) {
      continue;
    }
    const bool sending = sent >= received;
    const double moved = sending ? sent : received;
    if (moved / dt < settings_.bulk_threshold_bytes_per_second) continue;
    kept.bulk = true;

    Interval interval{&s, moved, 0, Limiter::kRemoteSender, {}, dt, kOther, sending};
    interval.shares.fill({Limiter::kRemoteSender, 0});
    interval.shares[0].second = dt * 1e6;
    // A received flow is the remote sender's to judge, unless this end's own process leaves
    // its receive queue full, at the dump here or (below, once its threads' run times are
    // read) over the interval (the flow's gauge still says remote_sender: it is received).
    if (!sending && ReceiverNotReading(s.rmem_alloc, s.rcvbuf)) {
      interval.shares[0].first = Limiter::kNotReading;
    }
    if (sending) {
      LimiterTimes times;
      times.interval_us = dt * 1e6;
      times.peer_stopped_reading =
          info.snd_wnd && PeerStoppedReading(window, kept.peak_window, info.snd_mss);
      if (info.busy_us && Delta(kept.busy_us, prev.busy_us, times.busy_us) &&
          Delta(kept.rwnd_us, prev.rwnd_us, times.rwnd_limited_us) &&
          Delta(kept.sndbuf_us, prev.sndbuf_us, times.sndbuf_limited_us)) {
        times.peer_stopped_reading =
            times.peer_stopped_reading ||
            (info.snd_wnd &&
             WindowOutgrewFlow(kept.peak_window, info.rtt_us * 1e-6, moved, times.busy_us * 1e-6));
        interval.limiter = ClassifyLimiter(times);
        interval.shares = ShareLimiters(times);
      } else {
        interval.limiter = Limiter::kUnknown;
        interval.shares[0].first = Limiter::kUnknown;
      }
    }
    if (kept.retrans >= prev.retrans) interval.retransmits = kept.retrans - prev.retrans;
    interval.application = ClassifyApplication(settings_.applications, s.local_port, s.remote_port);
    kept.bulk_received = kept.bulk_received || (!sending && interval.application != kProbe);
    // Its processes: to name a flow no port names, and to read a received flow's run times.
    if ((interval.application == kOther || kept.bulk_received) && !kept.owner_looked_up &&
        s.inode != 0) {
      lookups.insert(s.inode);
    }
    intervals.push_back(interval);
  }

  std::map<uint64_t, SocketOwner> owners;
  if (owners_ && !lookups.empty()) owners = owners_(lookups);
  for (Interval& interval : intervals) {
    const SocketRecord& s = *interval.socket;
    SocketState& state = next[s.cookie];
    if (lookups.contains(s.inode)) {
      state.owner_looked_up = true;
      if (auto owner = owners.find(s.inode); owner != owners.end()) {
        state.owner = owner->second.comm;
        state.owner_pids = owner->second.pids;
      }
    }
    if (interval.application == kOther && state.owner) {
      interval.application = ApplicationOfProcess(*state.owner).value_or(kOther);
    }
  }

  std::map<ThreadId, uint64_t> threads = ReadReceiverThreads(next);
  for (Interval& interval : intervals) {
    const SocketRecord& s = *interval.socket;
    const SocketState& state = next[s.cookie];
    if (!interval.sending && interval.shares[0].first == Limiter::kRemoteSender) {
      auto busiest = BusiestThreadShare(state.owner_pids, threads, interval.dt);
      if (busiest && ReceiverNeverWaited(*busiest, s.rmem_alloc)) {
        interval.shares[0].first = Limiter::kNotReading;
      }
    }
    const TcpInfo& info = *s.info;
    AggregateKey key{s.remote.ToString(), std::string(interval.application),
                     std::string(LimiterName(interval.limiter))};
    ActiveAggregate flow;
    flow.bulk_flows = 1;
    flow.goodput = interval.moved / interval.dt;
    flow.best.goodput = flow.goodput;
    flow.best.rtt_seconds = info.rtt_us * 1e-6;
    if (info.delivery_rate) flow.best.delivery_rate = static_cast<double>(*info.delivery_rate);
    if (info.snd_mss > 0) {
      flow.best.congestion_window_bytes = static_cast<double>(info.snd_cwnd) * info.snd_mss;
    }
    if (info.snd_wnd) flow.best.peer_receive_window_bytes = *info.snd_wnd;
    if (info.rcv_space > 0) flow.best.receive_space_bytes = info.rcv_space;
    if (s.sndbuf) flow.best.send_buffer_bytes = *s.sndbuf;
    if (s.rcvbuf) flow.best.receive_buffer_bytes = *s.rcvbuf;
    MergeInto(report.active[key], flow);

    TransferCounters& counters =
        CountersFor({key.peer, key.application, interval.sending ? "send" : "receive"});
    counters.bytes += interval.moved;
    counters.retransmits += interval.retransmits;
    AddLimitedSeconds(interval.shares, counters);
    counters.last_update = now;
  }
  CountClosed(snapshot, addresses, last_dump, next);
  sockets_ = std::move(next);
  runnable_ns_ = std::move(threads);

  if (report.active.size() > settings_.max_series) {
    std::vector<std::pair<AggregateKey, ActiveAggregate>> ranked(report.active.begin(),
                                                                 report.active.end());
    std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
      return a.second.goodput > b.second.goodput;
    });
    report.active.clear();
    for (size_t i = 0; i < ranked.size(); ++i) {
      AggregateKey key = ranked[i].first;
      if (i >= settings_.max_series) key.peer = kOther;
      MergeInto(report.active[key], ranked[i].second);
    }
  }
  report.counters = &counters_;
  return report;
}

}  // namespace fabric
