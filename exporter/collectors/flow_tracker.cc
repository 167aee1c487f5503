#include "exporter/collectors/flow_tracker.h"

#include <algorithm>
#include <utility>

namespace fabric {
namespace {

constexpr std::string_view kOther = "other";

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

}  // namespace

std::vector<Application> DefaultApplications(uint16_t probe_port) {
  return {
      {"ssh", {{22, 22}}},
      {"rsync", {{873, 873}}},
      {"nfs", {{2049, 2049}}},
      {"smb", {{445, 445}}},
      {"iscsi", {{3260, 3260}}},
      {"iperf3", {{5201, 5201}}},
      {"fabric_probe", {{probe_port, probe_port}}},
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
    case Limiter::kUnknown:
      return "unknown";
  }
  return "unknown";
}

Limiter ClassifyLimiter(const LimiterTimes& t) {
  // The chronographs tick in jiffies, so busy can slightly exceed the
  // interval measured on CLOCK_MONOTONIC.
  const double interval = std::max(t.interval_us, t.busy_us);
  const double rwnd = std::max(0.0, t.rwnd_limited_us);
  const double sndbuf = std::max(0.0, t.sndbuf_limited_us);
  const double network = std::max(0.0, t.busy_us - rwnd - sndbuf);
  const double application = std::max(0.0, interval - t.busy_us);
  std::pair<double, Limiter> candidates[] = {
      {rwnd, Limiter::kReceiverWindow},
      {sndbuf, Limiter::kSendBuffer},
      {network, Limiter::kNetwork},
      {application, Limiter::kApplication},
  };
  auto best = candidates[0];
  for (const auto& c : candidates) {
    if (c.first > best.first) best = c;
  }
  return best.second;
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

AggregateCounters& FlowTracker::CountersFor(const AggregateKey& key) {
  if (auto it = counters_.find(key); it != counters_.end()) return it->second;
  if (counters_.size() < settings_.max_series) return counters_[key];
  return counters_[{std::string(kOther), key.application, key.limiter}];
}

FlowReport FlowTracker::Update(const FlowSnapshot& snapshot) {
  const double now = snapshot.monotonic_seconds;
  std::erase_if(counters_, [&](const auto& entry) {
    return now - entry.second.last_update > settings_.counter_expiry_seconds;
  });

  FlowReport report;
  const auto addresses = LocalAddresses(snapshot);
  std::unordered_map<uint64_t, SocketState> next;
  next.reserve(sockets_.size() + 16);
  for (const auto& s : snapshot.sockets) {
    if (!s.info || !s.info->bytes_acked || !s.info->bytes_received) continue;
    if (!OnFabric(s.local, addresses)) continue;
    ++report.sockets;
    const TcpInfo& info = *s.info;
    SocketState state{now,
                      *info.bytes_acked,
                      *info.bytes_received,
                      info.busy_us.value_or(0),
                      info.rwnd_limited_us.value_or(0),
                      info.sndbuf_limited_us.value_or(0),
                      info.total_retrans};
    auto prev_it = sockets_.find(s.cookie);
    next[s.cookie] = state;
    if (prev_it == sockets_.end()) continue;  // First sight: baseline only.
    const SocketState& prev = prev_it->second;
    const double dt = now - prev.time;
    double sent = 0, received = 0;
    if (dt <= 0 || !Delta(state.acked, prev.acked, sent) ||
        !Delta(state.received, prev.received, received)) {
      continue;
    }
    const bool sending = sent >= received;
    const double moved = sending ? sent : received;
    const double goodput = moved / dt;
    if (goodput < settings_.bulk_threshold_bytes_per_second) continue;

    Limiter limiter = Limiter::kRemoteSender;
    if (sending) {
      LimiterTimes times{dt * 1e6, 0, 0, 0};
      if (info.busy_us && Delta(state.busy_us, prev.busy_us, times.busy_us) &&
          Delta(state.rwnd_us, prev.rwnd_us, times.rwnd_limited_us) &&
          Delta(state.sndbuf_us, prev.sndbuf_us, times.sndbuf_limited_us)) {
        limiter = ClassifyLimiter(times);
      } else {
        limiter = Limiter::kUnknown;
      }
    }
    AggregateKey key{
        s.remote.ToString(),
        std::string(ClassifyApplication(settings_.applications, s.local_port, s.remote_port)),
        std::string(LimiterName(limiter))};
    ActiveAggregate flow;
    flow.bulk_flows = 1;
    flow.goodput = goodput;
    flow.best.goodput = goodput;
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

    AggregateCounters& counters = CountersFor(key);
    counters.bytes += moved;
    if (state.retrans >= prev.retrans) counters.retransmits += state.retrans - prev.retrans;
    counters.last_update = now;
  }
  sockets_ = std::move(next);

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
