// Bisection: which end of a low or failed pair is to blame. A plan round's
// result below `low_fraction` of the path's line rate (the slower end's, as
// the probe read it; this node's where the probe could not) or a failure
// opens a case; the node then retests, in the next retest slots, against known-good
// peers (peers whose last result was good):
//   1. a peer in the target's rack: good -> the target's end ("peer");
//   2. else a peer in this node's own rack: low -> this node ("self"),
//      good -> the way between the racks ("path").
// Everything is local to the node (its own results, the membership), so no
// coordinator is needed; the far end's retest is a probe of its rack from
// here. Retests are bounded: one case open at a time per target, at most
// `max_open` cases and `max_retests_per_hour` retests, and no new case while
// this node already blames itself.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace fabric {

enum class Suspect { kSelf, kPeer, kPath };
std::string_view SuspectName(Suspect suspect);

// A send result to a peer: its throughput (0 when the run failed) and the line
// rate of the path it ran on, the slower of the two ends (0 when unknown: an
// end reported no speed).
struct SendResult {
  double bytes_per_second = 0;
  double path_line_bytes_per_second = 0;
};

struct BisectionSettings {
  double low_fraction = 0.6;  // Of the path's line rate.
  size_t max_open = 4;        // Cases under way at once.
  size_t max_retests_per_hour = 4;
  double suspect_hold_seconds = 7200;  // A blame not confirmed again expires.
  size_t max_suspects = 16;
};

class Bisection {
 public:
  // `racks[i]`: member i's rack (membership order); `self` indexes it.
  // `line_bytes_per_second`: this node's line rate, what a result without the
  // path's is judged against (0: only failures are low).
  Bisection(std::vector<std::string> racks, size_t self, double line_bytes_per_second,
            BisectionSettings settings = {});

  // A result against `peer` at Unix time `now`. `retest`: it was a retest
  // this object asked for.
  void Observe(size_t peer, const SendResult& result, double now, bool retest);
  // The peer to retest against now, if a case needs one (and the budget
  // allows); the caller runs it and reports it through Observe(retest=true).
  std::optional<size_t> NextRetest(double now);

  // The current blames: target -> which end.
  std::map<size_t, Suspect> Suspects(double now) const;
  // Targets this node has detail on besides its plan peers: open cases,
  // their retest peers, blamed targets.
  std::vector<size_t> Involved(double now) const;
  // A 200 GbE node's healthy result to a 25 GbE peer is low against its own
  // line, not against the path's: judged against the path's line rate.
  bool Low(const SendResult& result) const;

 private:
  struct Case {
    size_t target = 0;
    int stage = 0;                      // 0: test the target's rack; 1: test this node's rack.
    std::optional<size_t> retest_peer;  // Asked, awaiting its result.
  };
  struct Blame {
    Suspect suspect;
    double since;
  };
  std::optional<size_t> KnownGood(const std::string& rack, size_t avoid, double now) const;
  void Conclude(size_t target, Suspect suspect, double now);

  std::vector<std::string> racks_;
  size_t self_;
  double line_;
  BisectionSettings settings_;
  std::map<size_t, double> good_since_;  // Peer -> time of its last good result.
  std::map<size_t, double> low_at_;      // Peer -> time of its last low result.
  std::deque<Case> cases_;
  std::deque<double> retests_;  // When recent retests were handed out.
  std::map<size_t, Blame> blames_;
};

}  // namespace fabric
