// Parser for the subset of the Prometheus text exposition format (0.0.4) that a
// textfile holds: comment lines (# HELP, # TYPE and any other), blank lines, and
// samples `name{label="value",...} value [timestamp]` with the format's label
// escapes (\\, \", \n). Pure: bytes in, samples out. The collective collector
// reads NCCL Inspector's node-exporter textfiles with it.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fabric {

struct PromSample {
  std::string name;
  std::vector<std::pair<std::string, std::string>> labels;  // In file order, unescaped.
  double value = 0;
  std::optional<int64_t> timestamp_ms;

  // The value of label `key`, or nullopt.
  std::optional<std::string_view> Label(std::string_view key) const;
};

// Why a textfile did not parse. kTruncated: only its last line is broken and
// that line has no newline: a file caught while its writer was still writing.
enum class PromTextFailure { kSyntax, kTruncated };

struct PromTextError {
  PromTextFailure failure = PromTextFailure::kSyntax;
  size_t line = 0;  // 1-based.
  std::string message;
};

struct PromTextParse {
  std::vector<PromSample> samples;
  std::optional<PromTextError> error;  // Set: `samples` is empty.
};

// Parses at most `max_samples` samples; more is a kSyntax error (a textfile
// that large is not what it claims to be).
PromTextParse ParsePromText(std::string_view text, size_t max_samples = 100000);

}  // namespace fabric
