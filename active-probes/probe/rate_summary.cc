#include "active-probes/probe/rate_summary.h"

#include <algorithm>

namespace fabric::probe {

RateSummary Summarize(std::vector<double> rates) {
  RateSummary s;
  if (rates.empty()) return s;
  std::sort(rates.begin(), rates.end());
  s.min = rates.front();
  s.max = rates.back();
  size_t n = rates.size();
  s.median = n % 2 ? rates[n / 2] : (rates[n / 2 - 1] + rates[n / 2]) / 2;
  return s;
}

}  // namespace fabric::probe
