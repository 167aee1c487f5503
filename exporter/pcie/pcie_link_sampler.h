// PCIe link changes a scrape misses. A link that retrains (a marginal slot,
// riser or card; a GPU stepping its speed with load) can drop to a lower
// speed or width and come back between two scrapes, and the scrape sees a
// healthy link. The sampler reads the endpoints' current_link_speed and
// current_link_width (cheap sysfs reads: the kernel reads LnkSta from config
// space) every interval, well below any scrape interval, in a thread of its
// own, and counts for each device the samples, the transitions of speed and
// of width, and the time spent below what the link could train to.
//
// Over a captured tree there is no live link: each device's recorded trace
// (bus/pci/devices/ADDR/pcie_link.recorded, common/parse/pcie_link_trace_parse)
// is replayed once through the same counting instead, so the output is the
// same on every scrape.
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/parse/pcie_link_trace_parse.h"
#include "common/read/sysroot.h"

namespace fabric {

// What the link could train to: min(device max, upstream port max).
struct PcieLinkCapability {
  std::optional<double> speed_gts;
  std::optional<int> width;
};

struct PcieLinkCounts {
  uint64_t samples = 0;
  uint64_t speed_transitions = 0;
  uint64_t width_transitions = 0;
  double below_speed_seconds = 0;
  double below_width_seconds = 0;
};

// Pure counting over timestamped samples. A transition is any change of the
// value between consecutive samples (a link going down and up is two); the
// time from one sample to the next counts as below capable when the first
// was below (or down) and the capability is known.
class PcieLinkTracker {
 public:
  void Add(const PcieLinkSample& sample, const PcieLinkCapability& capable);
  const PcieLinkCounts& counts() const { return counts_; }

 private:
  PcieLinkCounts counts_;
  std::optional<PcieLinkSample> last_;
  PcieLinkCapability last_capable_;
};

class PcieLinkSampler {
 public:
  enum class Mode { kLive, kRecorded };
  // kLive starts the sampling thread; it stops in the destructor.
  PcieLinkSampler(const SysRoot& root, Mode mode, std::chrono::milliseconds interval);
  ~PcieLinkSampler();
  PcieLinkSampler(const PcieLinkSampler&) = delete;
  PcieLinkSampler& operator=(const PcieLinkSampler&) = delete;

  // The devices to sample from now on, with what each can train to (the
  // collector passes its endpoints every scrape). A device no longer listed
  // is dropped with its counts.
  void SetTargets(const std::map<std::string, PcieLinkCapability>& targets);

  // Counts so far, by address (devices with at least one sample).
  std::map<std::string, PcieLinkCounts> Counts() const;

  Mode mode() const { return mode_; }
  std::chrono::milliseconds interval() const { return interval_; }

  // One round of live samples at monotonic time `seconds` (the thread calls
  // it; tests call it directly over a tree whose files they rewrite).
  void SampleOnce(double seconds);

 private:
  struct Device {
    PcieLinkCapability capable;
    PcieLinkTracker tracker;
  };
  void Run(const std::stop_token& stop);
  void Replay(const std::string& address, Device& device);

  const SysRoot root_;
  const Mode mode_;
  const std::chrono::milliseconds interval_;
  mutable std::mutex mutex_;
  std::map<std::string, Device> devices_;
  std::condition_variable_any wake_;
  std::jthread thread_;  // Last: stops (and joins) before the members it uses go.
};

}  // namespace fabric
