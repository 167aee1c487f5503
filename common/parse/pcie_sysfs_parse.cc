#include "common/parse/pcie_sysfs_parse.h"

#include <cctype>

#include "common/strings.h"

namespace fabric {
namespace {

bool AllHex(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

}  // namespace

std::optional<PciAddress> ParsePciAddress(std::string_view text) {
  // dddd:bb:dd.f, where the domain may be longer than four digits.
  auto dot = text.rfind('.');
  auto colon2 = text.rfind(':');
  if (dot == std::string_view::npos || colon2 == std::string_view::npos || colon2 > dot) {
    return std::nullopt;
  }
  auto colon1 = text.rfind(':', colon2 == 0 ? 0 : colon2 - 1);
  if (colon1 == std::string_view::npos || colon1 >= colon2) return std::nullopt;
  std::string_view domain = text.substr(0, colon1);
  std::string_view bus = text.substr(colon1 + 1, colon2 - colon1 - 1);
  std::string_view device = text.substr(colon2 + 1, dot - colon2 - 1);
  std::string_view function = text.substr(dot + 1);
  if (domain.size() < 4 || domain.size() > 8 || bus.size() != 2 || device.size() != 2 ||
      function.size() != 1 || !AllHex(domain) || !AllHex(bus) || !AllHex(device) ||
      !AllHex(function)) {
    return std::nullopt;
  }
  PciAddress a;
  a.domain = static_cast<uint32_t>(*ParseUint64(domain, 16));
  a.bus = static_cast<uint32_t>(*ParseUint64(bus, 16));
  a.device = static_cast<uint32_t>(*ParseUint64(device, 16));
  a.function = static_cast<uint32_t>(*ParseUint64(function, 16));
  if (a.device > 0x1f || a.function > 7) return std::nullopt;
  return a;
}

bool IsPciAddress(std::string_view text) { return ParsePciAddress(text).has_value(); }

std::vector<std::string> PciAddressesInPath(std::string_view path) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    std::string_view component = path.substr(start, end - start);
    if (IsPciAddress(component)) out.emplace_back(component);
    start = end + 1;
  }
  return out;
}

Result<std::optional<double>> ParseLinkSpeed(std::string_view text, std::string_view source) {
  std::string_view t = TrimSpace(text);
  if (t.empty() || StartsWith(t, "Unknown")) return std::optional<double>();
  auto fields = SplitFields(t);
  // "16.0 GT/s PCIe" or "8 GT/s": a number, then "GT/s", then at most "PCIe".
  if (fields.size() >= 2 && fields.size() <= 3 && fields[1] == "GT/s" &&
      (fields.size() == 2 || fields[2] == "PCIe")) {
    auto gts = ParseDouble(fields[0]);
    if (gts && *gts > 0 && *gts < 1000) return std::optional<double>(*gts);
  }
  return MakeError(std::string(source) + ": not a PCIe link speed: " + Quote(t));
}

Result<std::optional<int>> ParseLinkWidth(std::string_view text, std::string_view source) {
  std::string_view t = TrimSpace(text);
  auto lanes = ParseUint64(t);
  if (!lanes || *lanes > 32) {
    return MakeError(std::string(source) + ": not a PCIe link width: " + Quote(t));
  }
  if (*lanes == 0) return std::optional<int>();
  return std::optional<int>(static_cast<int>(*lanes));
}

Result<uint32_t> ParseHexId(std::string_view text, std::string_view source) {
  std::string_view t = TrimSpace(text);
  if (!StartsWith(t, "0x")) {
    return MakeError(std::string(source) + ": expected a 0x hexadecimal id, got " + Quote(t));
  }
  auto v = ParseUint64(t, 16);
  if (!v || *v > 0xffffffffu) {
    return MakeError(std::string(source) + ": expected a 0x hexadecimal id, got " + Quote(t));
  }
  return static_cast<uint32_t>(*v);
}

Result<AerCounters> ParseAerCounters(std::string_view text, std::string_view source) {
  AerCounters out;
  int line_no = 0;
  for (auto line : SplitLines(text)) {
    ++line_no;
    auto fields = SplitFields(line);
    if (fields.empty()) continue;
    auto value = fields.size() == 2 ? ParseUint64(fields[1]) : std::nullopt;
    if (!value) {
      return MakeError(std::string(source) + ":" + std::to_string(line_no) +
                       ": expected \"NAME COUNT\", got " + Quote(line));
    }
    if (StartsWith(fields[0], "TOTAL_ERR_")) {
      out.total = *value;
    } else {
      out.by_type.emplace_back(std::string(fields[0]), *value);
    }
  }
  return out;
}

Result<std::string> ParseAspmPolicy(std::string_view text, std::string_view source) {
  std::string active;
  for (auto word : SplitFields(text)) {
    if (word.size() < 3 || word.front() != '[' || word.back() != ']') continue;
    if (!active.empty()) break;
    active = std::string(word.substr(1, word.size() - 2));
  }
  size_t brackets = 0;
  for (char c : text) brackets += c == '[';
  if (active.empty() || brackets != 1) {
    return MakeError(std::string(source) + ": expected one [bracketed] policy, got " + Quote(text));
  }
  return active;
}

}  // namespace fabric
