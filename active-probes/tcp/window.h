// A measurement window: counter snapshots at its two edges on
// CLOCK_MONOTONIC, and what one side (probe or responder) saw in between. The
// responder sends its SideReport to the probe in the RESULT message, so both
// sides' evidence ends up in one result.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "active-probes/control/message.h"
#include "active-probes/tcp/host_stats.h"
#include "active-probes/tcp/stream_io.h"
#include "common/read/sysroot.h"

namespace fabric::probe {

struct WindowEdge {
  std::chrono::steady_clock::time_point time;
  std::vector<StreamSnapshot> streams;
  ProcessCpu process;
  std::vector<CpuTimes> host;
  NicCounters nic;
};

// Samples everything one side needs at a window edge.
WindowEdge SampleEdge(const StreamSet& streams, const SysRoot& root, const std::string& iface);

struct StreamWindow {
  bool send = false;
  uint64_t bytes = 0;
  double thread_cpu_seconds = 0;
  // Sender-side TCP_INFO, deltas over the window or values at its end.
  uint64_t retrans = 0;
  uint64_t busy_us = 0;
  uint64_t rwnd_limited_us = 0;
  uint64_t sndbuf_limited_us = 0;
  uint64_t rtt_us = 0;
  uint64_t min_rtt_us = 0;  // 0 when the sender's kernel does not report it.
  uint64_t snd_wnd = 0;     // The peer's receive window at the window's end, bytes.
  uint64_t cwnd = 0;
  uint64_t mss = 0;
  uint64_t pmtu = 0;
  uint64_t zc_sends = 0;
  uint64_t zc_copied = 0;
  // Sending streams: TCP_NOTSENT_LOWAT at the window's end (0 = the kernel's default); -1 when
  // unknown (the report of a responder from before it was added).
  int64_t unsent_limit = -1;
};

struct SideReport {
  double window_seconds = 0;
  std::vector<StreamWindow> streams;  // in stream-spec order
  double user_seconds = 0;
  double system_seconds = 0;
  HostCpuUsage host;
  std::string iface;
  bool nic_valid = false;
  uint64_t nic_rx_bytes = 0;
  uint64_t nic_tx_bytes = 0;
  double link_bps = 0;
  // The interface's MTU when this side's connections were set up and at the window's end
  // (0: unknown). A change in between black-holes segments sized for the old MTU.
  int64_t mtu_start = 0;
  int64_t mtu_end = 0;
};

// "<iface> MTU changed from A to B during the run" when the side's MTU changed between its
// connections' setup and its window's end; empty otherwise or when unknown.
std::string MtuChange(const SideReport& side);

// The window's end on this side: the end edge, or the last FIN its receiving
// streams read when every one of them had read it before the edge was taken.
// `send` lists, per stream, whether this side sends on it.
std::chrono::steady_clock::time_point WindowEnd(const WindowEdge& b, const std::vector<bool>& send);

// `send` lists, per stream, whether this side sends on it. The window runs from
// a's time to WindowEnd(b); it is not positive when the data ended before a.
SideReport DiffEdges(const WindowEdge& a, const WindowEdge& b, const std::vector<bool>& send);

// Below this fraction of the prober's window, the responder's count is not a
// measurement of the window (its start edge came late) and the run fails.
// Above it the count is still exact over the responder's own, shorter window.
inline constexpr double kMinResponderWindowFraction = 0.5;

// kWindowMissed when the responder's window is too short against the
// prober's (both in seconds).
Status CheckResponderWindow(double prober_window_seconds, double responder_window_seconds);

// RESULT message encoding (per-stream values as comma lists).
Message SideReportToMessage(const SideReport& r);
Result<SideReport> SideReportFromMessage(const Message& m);

}  // namespace fabric::probe
