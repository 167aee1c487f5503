#include "exporter/pages/landing_page.h"

#include <cstdio>

#include "exporter/pages/ladder_page.h"

namespace fabric {

std::string HtmlEscape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string RenderLandingPage(const LandingPageInfo& info,
                              const std::vector<CollectorStatus>& statuses,
                              const std::string& ladder_section, int refresh_seconds) {
  std::string html =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta http-equiv=\"refresh\" content=\"" +
      std::to_string(refresh_seconds) + "\"><title>fabric_exporter</title><style>" +
      kLadderPageCss +
      "body{font-family:system-ui,sans-serif;margin:2em;color:#222;background:#fafafa}"
      "table{border-collapse:collapse}td,th{padding:.3em .8em;border-bottom:1px solid #ddd;"
      "text-align:left}.ok{color:#17803d}.fail{color:#b91c1c}.off{color:#888}"
      "</style></head><body>\n" +
      ladder_section + "<h1>fabric_exporter</h1>\n<p>fabric-ladder node exporter, version " +
      HtmlEscape(info.version) + ". Metrics: <a href=\"" + HtmlEscape(info.telemetry_path) + "\">" +
      HtmlEscape(info.telemetry_path) +
      "</a>. Health: <a href=\"/-/healthy\">/-/healthy</a>, <a href=\"/-/ready\">/-/ready</a>."
      "</p>\n<p>Reading procfs at <code>" +
      HtmlEscape(info.procfs) + "</code>, sysfs at <code>" + HtmlEscape(info.sysfs) +
      "</code>.</p>\n<h2>Collectors</h2>\n<table id=\"collectors\"><tr><th>collector</th>"
      "<th>state in the last scrape</th><th>samples</th><th>duration</th><th>what it reads</th>"
      "</tr>\n";
  for (const auto& entry : info.collectors) {
    const CollectorStatus* status = nullptr;
    for (const auto& s : statuses) {
      if (s.name == entry.name) status = &s;
    }
    std::string state, samples, duration;
    if (!entry.enabled) {
      state = "<span class=\"off\">disabled</span>";
    } else if (status == nullptr || !status->scraped) {
      state = "not scraped yet";
    } else if (status->success) {
      state = "<span class=\"ok\">ok</span>";
      samples = std::to_string(status->samples);
    } else {
      state = "<span class=\"fail\">failed: " + HtmlEscape(status->error) + "</span>";
    }
    if (status != nullptr && status->scraped) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.1f ms", status->duration_seconds * 1000);
      duration = buf;
    }
    html += "<tr data-collector=\"" + HtmlEscape(entry.name) + "\"><td>" + HtmlEscape(entry.name) +
            "</td><td>" + state + "</td><td>" + samples + "</td><td>" + duration + "</td><td>" +
            HtmlEscape(entry.summary) + "</td></tr>\n";
  }
  html += "</table>\n</body></html>\n";
  return html;
}

}  // namespace fabric
