// The spread of per-stream (per-QP, per-job) rates of one run.
#pragma once

#include <vector>

namespace fabric::probe {

struct RateSummary {
  double min = 0, median = 0, max = 0;  // bytes/s
};

// Median, min and max of per-stream rates; all zero for none.
RateSummary Summarize(std::vector<double> rates);

}  // namespace fabric::probe
