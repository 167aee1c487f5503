#include "common/parse/prom_text_parse.h"

#include <cmath>
#include <limits>

#include "common/strings.h"

namespace fabric {
namespace {

bool NameStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
}
bool NameChar(char c) { return NameStart(c) || (c >= '0' && c <= '9'); }

// A cursor over one line; every Take* returns false on a syntax error.
class LineReader {
 public:
  explicit LineReader(std::string_view line) : s_(line) {}

  void SkipBlanks() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t')) ++i_;
  }
  bool AtEnd() const { return i_ >= s_.size(); }
  bool Peek(char c) const { return i_ < s_.size() && s_[i_] == c; }
  bool Eat(char c) {
    if (!Peek(c)) return false;
    ++i_;
    return true;
  }

  // A metric name, or a label name when `label` (no colon).
  bool TakeName(std::string& out, bool label) {
    size_t start = i_;
    if (i_ >= s_.size() || !NameStart(s_[i_]) || (label && s_[i_] == ':')) return false;
    ++i_;
    while (i_ < s_.size() && NameChar(s_[i_]) && !(label && s_[i_] == ':')) ++i_;
    out.assign(s_.substr(start, i_ - start));
    return true;
  }

  // A quoted label value with its escapes decoded.
  bool TakeQuoted(std::string& out) {
    if (!Eat('"')) return false;
    out.clear();
    while (i_ < s_.size()) {
      char c = s_[i_++];
      if (c == '"') return true;
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (i_ >= s_.size()) return false;
      char e = s_[i_++];
      if (e == 'n') {
        out.push_back('\n');
      } else if (e == '\\' || e == '"') {
        out.push_back(e);
      } else {
        return false;
      }
    }
    return false;  // Unterminated.
  }

  // The next run of non-blank characters.
  std::string_view TakeToken() {
    size_t start = i_;
    while (i_ < s_.size() && s_[i_] != ' ' && s_[i_] != '\t') ++i_;
    return s_.substr(start, i_ - start);
  }

 private:
  std::string_view s_;
  size_t i_ = 0;
};

std::optional<double> ParseSampleValue(std::string_view v) {
  if (v == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (v == "+Inf" || v == "Inf") return std::numeric_limits<double>::infinity();
  if (v == "-Inf") return -std::numeric_limits<double>::infinity();
  // ParseDouble (strtod) also takes "nan", "inf" and hex floats: not the format's.
  for (char c : v) {
    if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-')) {
      return std::nullopt;
    }
  }
  return ParseDouble(v);
}

// One sample line, or the reason it is not one.
std::optional<std::string> ParseSampleLine(std::string_view line, PromSample& out) {
  LineReader r(line);
  r.SkipBlanks();
  if (!r.TakeName(out.name, false)) return "no metric name";
  if (r.Eat('{')) {
    for (;;) {
      r.SkipBlanks();
      if (r.Eat('}')) break;
      std::string key;
      std::string value;
      if (!r.TakeName(key, true)) return "bad label name";
      r.SkipBlanks();
      if (!r.Eat('=')) return "no '=' after label " + key;
      r.SkipBlanks();
      if (!r.TakeQuoted(value)) return "bad value of label " + key;
      for (const auto& l : out.labels) {
        if (l.first == key) return "label " + key + " twice";
      }
      out.labels.emplace_back(std::move(key), std::move(value));
      r.SkipBlanks();
      if (r.Eat(',')) continue;
      if (r.Eat('}')) break;
      return "no ',' or '}' after label " + out.labels.back().first;
    }
  }
  r.SkipBlanks();
  auto value = ParseSampleValue(r.TakeToken());
  if (!value) return "bad sample value";
  out.value = *value;
  r.SkipBlanks();
  if (!r.AtEnd()) {
    auto ts = ParseInt64(r.TakeToken());
    if (!ts) return "bad timestamp";
    out.timestamp_ms = *ts;
    r.SkipBlanks();
    if (!r.AtEnd()) return "text after the timestamp";
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string_view> PromSample::Label(std::string_view key) const {
  for (const auto& l : labels) {
    if (l.first == key) return std::string_view(l.second);
  }
  return std::nullopt;
}

PromTextParse ParsePromText(std::string_view text, size_t max_samples) {
  PromTextParse result;
  const bool ends_in_newline = !text.empty() && text.back() == '\n';
  auto lines = SplitLines(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (TrimSpace(line).empty() || TrimSpace(line).front() == '#') continue;
    PromSample sample;
    if (auto why = ParseSampleLine(line, sample)) {
      const bool last = i + 1 == lines.size();
      result.samples.clear();
      result.error = PromTextError{
          last && !ends_in_newline ? PromTextFailure::kTruncated : PromTextFailure::kSyntax, i + 1,
          "line " + std::to_string(i + 1) + ": " + *why + ": " + Quote(line)};
      return result;
    }
    if (result.samples.size() == max_samples) {
      result.samples.clear();
      result.error = PromTextError{PromTextFailure::kSyntax, i + 1,
                                   "more than " + std::to_string(max_samples) + " samples"};
      return result;
    }
    result.samples.push_back(std::move(sample));
  }
  return result;
}

}  // namespace fabric
