#include "exporter/collectors/device_errors.h"

#include "common/log.h"

namespace fabric {

void DeviceErrors::Record(const std::string& device, std::string_view source, const Error& error) {
  Key key{device, std::string(source)};
  auto before = previous_.find(key);
  // A new failure, or a different one, is logged; the same one is not again.
  if (before == previous_.end() || before->second != error.message) {
    log::Warn("device source failed; its series are left out until it works again",
              {{"collector", collector_},
               {"device", device},
               {"source", std::string(source)},
               {"err", error.message}});
  }
  current_[std::move(key)] = error.message;
}

void DeviceErrors::Emit(MetricSink& sink) {
  for (const auto& [key, message] : current_) {
    sink.Gauge("fabric_collector_device_errors",
               "1 for each device and source a collector could not read in this scrape: that "
               "device's series from that source are left out, other devices' stay (the log says "
               "why). Sources are fixed per collector, so this is a few series per device at "
               "most, and none while everything reads.",
               {{"collector", collector_}, {"device", key.first}, {"source", key.second}}, 1);
  }
  for (const auto& [key, message] : previous_) {
    if (current_.count(key) == 0) {
      log::Info("device source works again",
                {{"collector", collector_}, {"device", key.first}, {"source", key.second}});
    }
  }
  previous_ = current_;
}

}  // namespace fabric
