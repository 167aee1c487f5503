#include "exporter/ladder/ladder_text.h"

#include <algorithm>
#include <cmath>

#include "common/json.h"

namespace fabric::ladder {
namespace {

// Display width of UTF-8 text: every code point counts one column (the ladder uses no wide
// characters).
size_t Columns(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

std::string Pad(const std::string& s, size_t width) {
  size_t w = Columns(s);
  return w >= width ? s : s + std::string(width - w, ' ');
}

// A bar of `fraction` of `width` cells in eighths of a cell.
std::string Bar(double fraction, int width) {
  static const char* const kEighths[] = {"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"};
  fraction = std::clamp(fraction, 0.0, 1.0);
  int eighths = static_cast<int>(std::lround(fraction * width * 8));
  if (eighths == 0 && fraction > 0) eighths = 1;  // Measured but tiny: still visible.
  std::string bar;
  for (int i = 0; i < eighths / 8; ++i) bar += "█";
  bar += kEighths[eighths % 8];
  return Pad(bar, static_cast<size_t>(width));
}

}  // namespace

std::string RenderLadderTable(const Ladder& ladder, int bar_width) {
  std::string out = "fabric ladder: " + ladder.node + " → " + ladder.peer;
  if (ladder.loopback) out += " (LOOPBACK: this machine probing itself, not a fabric)";
  out += "\n" + ladder.scale_note + "\n\n";
  size_t title_width = 5;
  for (const auto& l : ladder.layers) title_width = std::max(title_width, Columns(l.title));
  const std::string blank_bar(static_cast<size_t>(bar_width), ' ');
  out += "  " + Pad("layer", title_width) + "  " + Pad("rate", 11) + "  " + Pad("of line", 7) +
         "  " + blank_bar + "  ✓  detail\n";
  for (size_t i = 0; i < ladder.layers.size(); ++i) {
    const Layer& l = ladder.layers[i];
    const bool binding = static_cast<int>(i) == ladder.binding;
    out += binding ? "▶ " : "  ";
    out += Pad(l.title, title_width) + "  ";
    if (l.bytes_per_second) {
      out += Pad(FormatRate(*l.bytes_per_second), 11) + "  ";
      out += Pad(l.line_fraction ? FormatPercent(*l.line_fraction) : "-", 7) + "  ";
      double scale = ladder.scale_bytes_per_second;
      out += Bar(scale > 0 ? *l.bytes_per_second / scale : 0, bar_width) + "  ";
      // ✓: the probe's self-checks passed; !: one was raised (named on the next line).
      out += !l.self_checked ? " " : l.verdicts.empty() ? "✓" : "!";
      out += "  " + l.detail;
      if (binding) out += "  ◀ binding";
      if (static_cast<int>(i) == ladder.network_binding && !binding) out += "  ◀ network binds";
    } else {
      out += Pad("-", 11) + "  " + Pad("-", 7) + "  " + blank_bar + "     " + l.status;
    }
    out += "\n";
    if (!l.verdicts.empty()) {
      std::string names;
      for (const auto& v : l.verdicts) names += (names.empty() ? "" : ", ") + v;
      out += std::string(title_width + 4, ' ') + "raised: " + names + "\n";
    }
  }
  out += "\n" + ladder.binding_text + "\n" + VerdictSummary(ladder) + "\n";
  if (ladder.shapes.empty()) {
    out += "No bottleneck shape detected.\n";
  } else {
    out += "Shapes:\n";
    for (const auto& s : ladder.shapes) out += "  - " + s.words + "\n";
  }
  return out;
}

std::string LadderToJson(const Ladder& ladder) {
  auto number = [](const std::optional<double>& v) { return v ? JsonNumber(*v) : "null"; };
  std::string out =
      "{\"node\":" + JsonString(ladder.node) + ",\"peer\":" + JsonString(ladder.peer) +
      ",\"loopback\":" + JsonBool(ladder.loopback) +
      ",\"interface\":" + JsonString(ladder.interface) +
      ",\"line_rate_bytes_per_second\":" + number(ladder.line_rate) +
      ",\"scale_bytes_per_second\":" + JsonNumber(ladder.scale_bytes_per_second) +
      ",\"scale_note\":" + JsonString(ladder.scale_note) + ",\"binding\":" +
      (ladder.binding >= 0 ? JsonString(ladder.layers[ladder.binding].id) : "null") +
      ",\"network_binding\":" +
      (ladder.network_binding >= 0 ? JsonString(ladder.layers[ladder.network_binding].id)
                                   : "null") +
      ",\"binding_text\":" + JsonString(ladder.binding_text) +
      ",\"verdict_summary\":" + JsonString(VerdictSummary(ladder)) + ",\"layers\":[";
  for (size_t i = 0; i < ladder.layers.size(); ++i) {
    const Layer& l = ladder.layers[i];
    if (i > 0) out += ",";
    out += "{\"layer\":" + JsonString(l.id) + ",\"title\":" + JsonString(l.title) +
           ",\"bytes_per_second\":" + number(l.bytes_per_second) +
           ",\"line_fraction\":" + number(l.line_fraction) + ",\"ceiling\":" + JsonBool(l.ceiling) +
           ",\"binding\":" + JsonBool(static_cast<int>(i) == ladder.binding) +
           ",\"self_checked\":" + JsonBool(l.self_checked) + ",\"verdicts\":[";
    for (size_t v = 0; v < l.verdicts.size(); ++v) {
      out += (v > 0 ? "," : "") + JsonString(l.verdicts[v]);
    }
    out += "],\"detail\":" + JsonString(l.detail) + ",\"status\":" + JsonString(l.status) +
           ",\"age_seconds\":" + (l.age_seconds >= 0 ? JsonNumber(l.age_seconds) : "null") + "}";
  }
  // The shapes in words, and their stable ids in the same order (for scripts and tests).
  std::string words, ids;
  for (size_t i = 0; i < ladder.shapes.size(); ++i) {
    words += (i > 0 ? "," : "") + JsonString(ladder.shapes[i].words);
    ids += (i > 0 ? "," : "") + JsonString(ladder.shapes[i].id);
  }
  out += "],\"shapes\":[" + words + "],\"shape_ids\":[" + ids + "]}";
  return out;
}

}  // namespace fabric::ladder
