#include "exporter/pcie/pcie_link_sampler.h"

#include "common/log.h"
#include "common/parse/pcie_sysfs_parse.h"
#include "common/read/file_reader.h"
#include "common/thread_name.h"

namespace fabric {
namespace {

template <typename T>
bool Below(const std::optional<T>& value, const std::optional<T>& capable) {
  return capable && (!value || *value < *capable);
}

double Monotonic() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

void PcieLinkTracker::Add(const PcieLinkSample& sample, const PcieLinkCapability& capable) {
  ++counts_.samples;
  if (last_) {
    const double dt = std::max(0.0, sample.seconds - last_->seconds);
    if (sample.speed_gts != last_->speed_gts) ++counts_.speed_transitions;
    if (sample.width != last_->width) ++counts_.width_transitions;
    if (Below(last_->speed_gts, last_capable_.speed_gts)) counts_.below_speed_seconds += dt;
    if (Below(last_->width, last_capable_.width)) counts_.below_width_seconds += dt;
  }
  last_ = sample;
  last_capable_ = capable;
}

PcieLinkSampler::PcieLinkSampler(const SysRoot& root, Mode mode, std::chrono::milliseconds interval)
    : root_(root), mode_(mode), interval_(interval) {
  if (mode_ == Mode::kLive) {
    thread_ = std::jthread([this](const std::stop_token& stop) {
      NameThisThread("fabric-pcie");
      Run(stop);
    });
  }
}

PcieLinkSampler::~PcieLinkSampler() {
  if (thread_.joinable()) {
    thread_.request_stop();
    wake_.notify_all();
    thread_.join();
  }
}

void PcieLinkSampler::SetTargets(const std::map<std::string, PcieLinkCapability>& targets) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::erase_if(devices_, [&](const auto& d) { return targets.count(d.first) == 0; });
  for (const auto& [address, capable] : targets) {
    auto [it, added] = devices_.try_emplace(address);
    it->second.capable = capable;
    if (added && mode_ == Mode::kRecorded) Replay(address, it->second);
  }
}

std::map<std::string, PcieLinkCounts> PcieLinkSampler::Counts() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::map<std::string, PcieLinkCounts> out;
  for (const auto& [address, device] : devices_) {
    if (device.tracker.counts().samples > 0) out.emplace(address, device.tracker.counts());
  }
  return out;
}

void PcieLinkSampler::Replay(const std::string& address, Device& device) {
  const std::string path = root_.Sys("bus/pci/devices/" + address + "/pcie_link.recorded");
  auto text = ReadTable(path, 1 << 20);
  if (!text.ok()) {
    if (!text.absent())
      log::Warn("pcie: cannot read a link trace", {{"err", text.error().message}});
    return;
  }
  auto samples = ParsePcieLinkTrace(*text, path);
  if (!samples.ok()) {
    log::Warn("pcie: bad link trace", {{"err", samples.error().message}});
    return;
  }
  for (const auto& s : *samples) device.tracker.Add(s, device.capable);
}

void PcieLinkSampler::SampleOnce(double seconds) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& [address, device] : devices_) {
    const AttributeDir dir(root_.Sys("bus/pci/devices/" + address));
    auto speed_text = dir.Read("current_link_speed");
    auto width_text = dir.Read("current_link_width");
    // A device removed meanwhile, or a malformed value: no sample (the
    // collector reports the attribute errors; this only counts).
    if (!speed_text.ok() || !width_text.ok()) continue;
    auto speed = ParseLinkSpeed(*speed_text, "current_link_speed");
    auto width = ParseLinkWidth(*width_text, "current_link_width");
    if (!speed.ok() || !width.ok()) continue;
    device.tracker.Add(PcieLinkSample{seconds, *speed, *width}, device.capable);
  }
}

void PcieLinkSampler::Run(const std::stop_token& stop) {
  std::mutex wait_mutex;
  while (!stop.stop_requested()) {
    SampleOnce(Monotonic());
    std::unique_lock<std::mutex> lock(wait_mutex);
    wake_.wait_for(lock, stop, interval_, [] { return false; });
  }
}

}  // namespace fabric
