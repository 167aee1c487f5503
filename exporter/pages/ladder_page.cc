#include "exporter/pages/ladder_page.h"

#include <algorithm>
#include <cstdio>

#include "exporter/pages/landing_page.h"

namespace fabric {
namespace {

using ladder::Ladder;
using ladder::Layer;

// SVG geometry: a title column, the bar track, then the numbers.
constexpr int kWidth = 940;
constexpr int kTitleWidth = 190;
constexpr int kTrackX = 200;
constexpr int kTrackWidth = 440;
constexpr int kRateX = kTrackX + kTrackWidth + 100;  // Right edge of the rate.
constexpr int kPercentX = kRateX + 45;               // Right edge of the fraction of line rate.
constexpr int kRowHeight = 44;
constexpr int kBarHeight = 20;

std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

std::string Row(const Ladder& l, size_t i) {
  const Layer& layer = l.layers[i];
  const bool binding = static_cast<int>(i) == l.binding;
  const bool network_binding = !binding && static_cast<int>(i) == l.network_binding;
  const int y = static_cast<int>(i) * kRowHeight + 8;
  const int text_y = y + 15;
  std::string g = "<g class=\"layer\" data-layer=\"" + HtmlEscape(layer.id) + "\" data-binding=\"" +
                  (binding ? "true" : "false") + "\" data-measured=\"" +
                  (layer.bytes_per_second ? "true" : "false") + "\"";
  if (network_binding) g += " data-network-binding=\"true\"";
  if (layer.bytes_per_second) {
    g += " data-bytes-per-second=\"" + Num(*layer.bytes_per_second) + "\"";
  }
  if (!layer.verdicts.empty()) {
    std::string v;
    for (const auto& name : layer.verdicts) v += (v.empty() ? "" : " ") + name;
    g += " data-verdicts=\"" + HtmlEscape(v) + "\"";
  }
  g += ">";
  g += "<text x=\"" + std::to_string(kTitleWidth) + "\" y=\"" + std::to_string(text_y) +
       "\" text-anchor=\"end\" class=\"title" + (binding ? " binding-title" : "") + "\">" +
       HtmlEscape(layer.title) + "</text>";
  g += "<rect class=\"track\" x=\"" + std::to_string(kTrackX) + "\" y=\"" + std::to_string(y) +
       "\" width=\"" + std::to_string(kTrackWidth) + "\" height=\"" + std::to_string(kBarHeight) +
       "\" rx=\"3\"/>";
  // The line below the bar: verdicts first (they qualify the number), then the detail.
  std::string sub;
  for (const auto& v : layer.verdicts) {
    sub += "<tspan class=\"warn\">⚠ " + HtmlEscape(v) + "</tspan> · ";
  }
  if (layer.verdicts.empty() && layer.self_checked) {
    sub += "<tspan class=\"ok\">✓ self-checks passed</tspan> · ";
  }
  std::string detail;
  if (layer.bytes_per_second) {
    double fraction =
        l.scale_bytes_per_second > 0 ? *layer.bytes_per_second / l.scale_bytes_per_second : 0;
    double width = std::max(2.0, std::min(1.0, fraction) * kTrackWidth);
    std::string cls = binding ? "bar binding" : layer.ceiling ? "bar" : "bar usage";
    g += "<rect class=\"" + cls + "\" x=\"" + std::to_string(kTrackX) + "\" y=\"" +
         std::to_string(y) + "\" width=\"" + Num(width) + "\" height=\"" +
         std::to_string(kBarHeight) + "\" rx=\"3\"><title>" +
         HtmlEscape(layer.title + ": " + ladder::FormatRate(*layer.bytes_per_second)) +
         "</title></rect>";
    g += "<text x=\"" + std::to_string(kRateX) + "\" y=\"" + std::to_string(text_y) +
         "\" text-anchor=\"end\" class=\"value\">" +
         HtmlEscape(ladder::FormatRate(*layer.bytes_per_second)) + "</text>";
    if (layer.line_fraction) {
      g += "<text x=\"" + std::to_string(kPercentX) + "\" y=\"" + std::to_string(text_y) +
           "\" text-anchor=\"end\" class=\"percent\">" +
           HtmlEscape(ladder::FormatPercent(*layer.line_fraction)) + "</text>";
    }
    if (binding || network_binding) {
      g += "<text x=\"" + std::to_string(kPercentX + 14) + "\" y=\"" + std::to_string(text_y) +
           "\" class=\"" + (binding ? "binding-mark" : "network-mark") + "\">" +
           (binding ? "◀ binding layer" : "◀ network binds") + "</text>";
    }
    detail = layer.detail;
  } else {
    g += "<text x=\"" + std::to_string(kTrackX + 8) + "\" y=\"" + std::to_string(text_y) +
         "\" class=\"status\">" + HtmlEscape(layer.status) + "</text>";
  }
  std::string age = ladder::FormatAge(layer.age_seconds);
  if (!age.empty()) detail += std::string(detail.empty() ? "" : " · ") + age;
  sub += HtmlEscape(detail);
  if (!sub.empty()) {
    g += "<text x=\"" + std::to_string(kTrackX) + "\" y=\"" + std::to_string(y + kBarHeight + 13) +
         "\" class=\"detail\">" + sub + "</text>";
  }
  return g + "</g>";
}

std::string Section(const Ladder& l) {
  std::string html = "<section class=\"ladder\" data-node=\"" + HtmlEscape(l.node) +
                     "\" data-peer=\"" + HtmlEscape(l.peer) + "\" data-loopback=\"" +
                     (l.loopback ? "true" : "false") + "\">\n<h2>" + HtmlEscape(l.node) + " → " +
                     HtmlEscape(l.peer);
  if (l.loopback) html += " <span class=\"badge\">LOOPBACK</span>";
  html += "</h2>\n";
  if (l.loopback) {
    html +=
        "<p class=\"loopback-note\">Loopback: this machine probes its own responder, so the "
        "network layers measure the kernel and CPU, not a fabric. Give the exporter a fleet to "
        "measure real paths.</p>\n";
  }
  html += "<p class=\"binding-text\">" + HtmlEscape(l.binding_text) + "</p>\n";
  const int height = static_cast<int>(l.layers.size()) * kRowHeight + 8;
  html += "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"ladder-chart\" width=\"" +
          std::to_string(kWidth) + "\" height=\"" + std::to_string(height) + "\" viewBox=\"0 0 " +
          std::to_string(kWidth) + " " + std::to_string(height) + "\" role=\"img\" aria-label=\"" +
          HtmlEscape("ladder " + l.node + " to " + l.peer) + "\">";
  for (size_t i = 0; i < l.layers.size(); ++i) html += Row(l, i);
  html += "</svg>\n<p class=\"scale\">" + HtmlEscape(l.scale_note) +
          " 1-stream TCP and real transfers are shown but never bind: one is what one stream "
          "moved in the send mode and block size the probe used (named beside it), the "
          "other is usage.</p>\n";
  html += "<p class=\"verdicts\">" + HtmlEscape(ladder::VerdictSummary(l)) + "</p>\n";
  if (l.shapes.empty()) {
    html += "<p class=\"shapes none\">No bottleneck shape detected on this path.</p>\n";
  } else {
    html += "<div class=\"shapes\"><strong>Shapes on this path:</strong><ul>";
    for (const auto& s : l.shapes) {
      html += "<li class=\"shape\" data-shape=\"" + HtmlEscape(s.id) + "\">" + HtmlEscape(s.words) +
              "</li>";
    }
    html += "</ul></div>\n";
  }
  return html + "</section>\n";
}

}  // namespace

const char kLadderPageCss[] =
    ".ladder{border:1px solid #d4d4d8;border-radius:8px;padding:.4em 1.2em 1em;margin:1.2em 0;"
    "max-width:1000px;background:#fff}"
    ".ladder h2{margin:.5em 0 .2em;font-size:1.3em}"
    ".badge{background:#7c3aed;color:#fff;border-radius:4px;padding:.1em .5em;font-size:.7em;"
    "vertical-align:middle;letter-spacing:.05em}"
    ".loopback-note{color:#6d28d9;margin:.2em 0}"
    ".binding-text{font-size:1.15em;font-weight:600;color:#b45309;margin:.3em 0 .5em}"
    ".ladder-chart{display:block;max-width:100%;height:auto}"
    ".ladder-chart text{font-family:system-ui,sans-serif;font-size:14px;fill:#27272a}"
    ".ladder-chart .title{font-weight:500}.ladder-chart .binding-title{font-weight:700;"
    "fill:#b45309}"
    ".ladder-chart .track{fill:#f1f5f9}.ladder-chart .bar{fill:#2563eb}"
    ".ladder-chart .bar.usage{fill:#94a3b8}.ladder-chart .bar.binding{fill:#d97706}"
    ".ladder-chart .value{font-variant-numeric:tabular-nums;font-weight:600}"
    ".ladder-chart .detail{font-size:11.5px;fill:#71717a}"
    ".ladder-chart .status{font-style:italic;fill:#71717a}"
    ".ladder-chart .percent{fill:#52525b;font-variant-numeric:tabular-nums}"
    ".ladder-chart .ok{fill:#15803d}.ladder-chart .warn{fill:#b91c1c;font-weight:600}"
    ".ladder-chart .binding-mark{fill:#b45309;font-weight:700}"
    ".ladder-chart .network-mark{fill:#1d4ed8;font-weight:600}"
    ".scale{color:#52525b;font-size:.9em;margin:.4em 0}"
    ".verdicts{margin:.4em 0}.shapes ul{margin:.3em 0;padding-left:1.4em}"
    ".shape{color:#b91c1c;margin:.15em 0}.shapes.none{color:#15803d}";

std::string RenderLadderSection(const std::string& heading, const std::vector<Ladder>& ladders,
                                const std::string& note) {
  std::string html =
      "<div id=\"ladders\">\n<h1 class=\"ladder-heading\">" + HtmlEscape(heading) + "</h1>\n";
  if (!note.empty()) html += "<p class=\"ladder-note\">" + HtmlEscape(note) + "</p>\n";
  for (const auto& l : ladders) html += Section(l);
  return html + "</div>\n";
}

}  // namespace fabric
