#include "exporter/scheduled_probes/bisection.h"

#include <algorithm>

namespace fabric {

std::string_view SuspectName(Suspect suspect) {
  switch (suspect) {
    case Suspect::kSelf:
      return "self";
    case Suspect::kPeer:
      return "peer";
    case Suspect::kPath:
      return "path";
  }
  return "path";
}

Bisection::Bisection(std::vector<std::string> racks, size_t self, double line_bytes_per_second,
                     BisectionSettings settings)
    : racks_(std::move(racks)), self_(self), line_(line_bytes_per_second), settings_(settings) {}

bool Bisection::Low(const SendResult& result) const {
  const double line =
      result.path_line_bytes_per_second > 0 ? result.path_line_bytes_per_second : line_;
  return result.bytes_per_second <= 0 ||
         (line > 0 && result.bytes_per_second < settings_.low_fraction * line);
}

void Bisection::Conclude(size_t target, Suspect suspect, double now) {
  blames_[target] = {suspect, now};
  while (blames_.size() > settings_.max_suspects) {
    auto oldest = std::min_element(
        blames_.begin(), blames_.end(),
        [](const auto& a, const auto& b) { return a.second.since < b.second.since; });
    blames_.erase(oldest);
  }
}

void Bisection::Observe(size_t peer, const SendResult& result, double now, bool retest) {
  const bool low = Low(result);
  if (low) {
    low_at_[peer] = now;
    good_since_.erase(peer);
  } else {
    good_since_[peer] = now;
    low_at_.erase(peer);
  }
  if (retest) {
    for (auto it = cases_.begin(); it != cases_.end(); ++it) {
      if (it->retest_peer != peer) continue;
      if (it->stage == 0 && !low) {
        Conclude(it->target, Suspect::kPeer, now);
      } else if (it->stage == 0) {
        it->stage = 1;
        it->retest_peer.reset();
        return;
      } else {
        Conclude(it->target, low ? Suspect::kSelf : Suspect::kPath, now);
      }
      cases_.erase(it);
      return;
    }
    return;
  }
  if (!low) {
    blames_.erase(peer);  // The pair is fine again.
    return;
  }
  const bool blaming_self = std::any_of(blames_.begin(), blames_.end(), [&](const auto& b) {
    return b.second.suspect == Suspect::kSelf &&
           now - b.second.since < settings_.suspect_hold_seconds;
  });
  const bool open =
      std::any_of(cases_.begin(), cases_.end(), [&](const Case& c) { return c.target == peer; });
  if (blaming_self || open || cases_.size() >= settings_.max_open) return;
  cases_.push_back({peer, 0, std::nullopt});
}

std::optional<size_t> Bisection::KnownGood(const std::string& rack, size_t avoid,
                                           double now) const {
  // The most recently good peer of `rack`: a fresh result is the best evidence.
  std::optional<size_t> best;
  double best_time = 0;
  for (const auto& [peer, since] : good_since_) {
    if (peer == avoid || peer == self_ || racks_[peer] != rack) continue;
    if (now - since > settings_.suspect_hold_seconds) continue;
    if (!best || since > best_time) {
      best = peer;
      best_time = since;
    }
  }
  if (best) return best;
  // None known yet: any member of the rack not seen low, spread by the time so
  // that retesters do not all pick the same one.
  std::vector<size_t> candidates;
  for (size_t i = 0; i < racks_.size(); ++i) {
    if (i != avoid && i != self_ && racks_[i] == rack && !low_at_.count(i)) candidates.push_back(i);
  }
  if (candidates.empty()) return std::nullopt;
  return candidates[(static_cast<uint64_t>(now) + self_) % candidates.size()];
}

std::optional<size_t> Bisection::NextRetest(double now) {
  while (!retests_.empty() && now - retests_.front() >= 3600) retests_.pop_front();
  if (retests_.size() >= settings_.max_retests_per_hour) return std::nullopt;
  for (auto it = cases_.begin(); it != cases_.end();) {
    if (it->retest_peer) {
      // Asked and never answered (the retest could not run): ask again.
      it->retest_peer.reset();
    }
    const std::string& rack = it->stage == 0 ? racks_[it->target] : racks_[self_];
    auto peer = KnownGood(rack, it->target, now);
    if (!peer) {
      // Nobody to compare with in that rack: the case cannot be decided.
      it = cases_.erase(it);
      continue;
    }
    it->retest_peer = peer;
    retests_.push_back(now);
    return peer;
  }
  return std::nullopt;
}

std::map<size_t, Suspect> Bisection::Suspects(double now) const {
  std::map<size_t, Suspect> out;
  for (const auto& [target, blame] : blames_) {
    if (now - blame.since < settings_.suspect_hold_seconds) out[target] = blame.suspect;
  }
  return out;
}

std::vector<size_t> Bisection::Involved(double now) const {
  std::vector<size_t> out;
  for (const auto& c : cases_) {
    out.push_back(c.target);
    if (c.retest_peer) out.push_back(*c.retest_peer);
  }
  for (const auto& [target, suspect] : Suspects(now)) out.push_back(target);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace fabric
