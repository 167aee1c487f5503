// The HTML landing page at "/": the ladder, what this exporter is, where its
// metrics are, and each collector's state in the last scrape. No external assets.
#pragma once

#include <string>
#include <vector>

#include "exporter/metrics/scraper.h"

namespace fabric {

struct LandingPageInfo {
  std::string version;
  std::string telemetry_path;
  std::string procfs;
  std::string sysfs;
  // Every collector in the registry with whether it is enabled and its summary.
  struct Entry {
    std::string name;
    bool enabled;
    std::string summary;
  };
  std::vector<Entry> collectors;
};

std::string HtmlEscape(std::string_view s);

// `ladder_section` (HTML, see ladder_page.h) comes first; the page refreshes itself every
// `refresh_seconds` so the ladder stays current on a wall screen.
std::string RenderLandingPage(const LandingPageInfo& info,
                              const std::vector<CollectorStatus>& statuses,
                              const std::string& ladder_section = "", int refresh_seconds = 30);

}  // namespace fabric
