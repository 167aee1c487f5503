#include "active-probes/rdma/window_counter.h"

#include <algorithm>

namespace fabric::probe {

WindowCounter::WindowCounter(uint32_t qps, int64_t start_ns, int64_t end_ns)
    : start_ns_(start_ns), end_ns_(end_ns), counted_(qps, 0) {}

void WindowCounter::Poll(int64_t t_ns, uint32_t qp, uint64_t completions) {
  all_completions_ += completions;
  if (t_ns > end_ns_) {
    done_ = true;
    return;
  }
  if (t_ns < start_ns_) return;
  if (open_ns_ < 0) {
    open_ns_ = t_ns;
    close_ns_ = t_ns;
    return;  // what this poll reaped completed before the window opened
  }
  // Polls sharing the opening timestamp (other QPs in the same sweep) are
  // still the opening edge.
  if (t_ns == open_ns_) return;
  close_ns_ = t_ns;
  if (qp < counted_.size()) counted_[qp] += completions;
}

Result<WindowTotals> WindowCounter::Finish(uint64_t message_bytes) const {
  if (open_ns_ < 0 || close_ns_ <= open_ns_) {
    return MakeError("no completions were polled inside the measured window");
  }
  WindowTotals t;
  t.window_seconds = static_cast<double>(close_ns_ - open_ns_) * 1e-9;
  t.qp_messages = counted_;
  for (uint64_t m : counted_) {
    t.messages += m;
    double rate = static_cast<double>(m * message_bytes) / t.window_seconds;
    t.qp_bytes_per_second.push_back(rate);
  }
  t.bytes = t.messages * message_bytes;
  t.all_bytes = all_completions_ * message_bytes;
  t.bytes_per_second = static_cast<double>(t.bytes) / t.window_seconds;
  t.messages_per_second = static_cast<double>(t.messages) / t.window_seconds;
  if (!t.qp_bytes_per_second.empty()) {
    auto [mn, mx] = std::minmax_element(t.qp_bytes_per_second.begin(), t.qp_bytes_per_second.end());
    t.qp_min_bytes_per_second = *mn;
    t.qp_max_bytes_per_second = *mx;
  }
  return t;
}

}  // namespace fabric::probe
