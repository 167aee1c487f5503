// The recorded socket dump that stands in for the kernel on fixture trees (and
// lets an operator replay a capture): text, one record a line.
//
//   # comment
//   snapshot 1000.0                      (CLOCK_MONOTONIC seconds of the dump)
//   address ens1f0 192.0.2.10            (interface, local address)
//   socket 192.0.2.10:41000 192.0.2.20:22 cookie=7 bytes_acked=... busy_us=...
//   destroyed 192.0.2.10:41002 192.0.2.20:22 cookie=9 bytes_acked=... (destroyed since the
//                                        snapshot before, its last TCP_INFO)
//
// Socket and destroyed keys mirror TCP_INFO: cookie state snd_mss rtt_us snd_cwnd rcv_space
// total_retrans bytes_acked bytes_received delivery_rate busy_us
// rwnd_limited_us sndbuf_limited_us snd_wnd rcvbuf sndbuf rmem_alloc. A key left out is a
// field this kernel did not report. IPv6 endpoints are written [addr]:port.
#pragma once

#include <string_view>
#include <vector>

#include "common/parse/flow_types.h"
#include "common/result.h"

namespace fabric {

Result<std::vector<FlowSnapshot>> ParseFlowRecording(std::string_view text,
                                                     std::string_view source);

}  // namespace fabric
