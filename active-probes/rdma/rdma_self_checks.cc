#include "active-probes/rdma/rdma_self_checks.h"

#include <cmath>

#include "active-probes/tcp/self_checks.h"

namespace fabric::probe {

void EvaluateRdmaSelfChecks(RdmaProbeResult& r, double mean_outstanding_fraction) {
  // The poster keeps tx_depth WRITEs in flight; when it cannot (one core
  // posting and polling for every QP), the queues run dry and the CPU is the
  // limit. Busy polling always shows ~100% of a core, so that is not evidence.
  if (r.messages > 0 && mean_outstanding_fraction < kRdmaStarvedQueueFraction) {
    r.cpu_bound = true;
    r.notes.push_back("cpu_bound: send queues were on average " +
                      PercentText(mean_outstanding_fraction) +
                      " full; the posting thread could not keep " + std::to_string(r.tx_depth) +
                      " writes in flight per QP");
  }

  // What the probe's own WRITEs put on the wire in the window: payload plus
  // headers per active-MTU packet.
  const double mtu = r.mtu > 0 ? r.mtu : 4096;
  const double packets = static_cast<double>(r.bytes) / mtu + static_cast<double>(r.messages);
  const double expected = static_cast<double>(r.bytes) + packets * kRdmaHeaderBytesPerPacket;
  const double allowed = (1 + kRdmaContendedExcess) * expected + (1 << 20);

  const auto& tx = r.local_counters.xmit_bytes;
  if (tx && r.bytes > 0) {
    double got = static_cast<double>(*tx);
    r.counters_consistent = got >= 0.95 * static_cast<double>(r.bytes) && got <= allowed;
    if (got > allowed) {
      r.contended = true;
      r.notes.push_back("contended: " + r.device + " port " + std::to_string(r.port) + " sent " +
                        std::to_string(*tx) + " bytes in the window, the probe explains " +
                        std::to_string(static_cast<uint64_t>(expected)));
    } else if (got < 0.95 * static_cast<double>(r.bytes)) {
      r.notes.push_back("port_xmit_data counted " + std::to_string(*tx) +
                        " bytes, fewer than the " + std::to_string(r.bytes) +
                        " completed (loopback inside the adapter, or counters not per port)");
    }
  } else if (r.bytes > 0) {
    r.notes.push_back("port_xmit_data not available: no counter cross-check");
  }

  // The other end of the data: the responder's port receiving more than the
  // probe sent it means another transfer shared its receive side (the TCP
  // probe judges both NICs the same way). Only the directions the WRITEs use
  // are judged: our transmit side above, its receive side here; traffic the
  // other way shares neither. The responder reads its counters when each MARK
  // arrives, so its window may also hold the WRITEs in flight at either edge.
  const auto& rx = r.remote_counters.rcv_bytes;
  if (rx && r.bytes > 0) {
    const double per_write = r.size + std::ceil(r.size / mtu) * kRdmaHeaderBytesPerPacket;
    const double in_flight = static_cast<double>(r.qps) * r.tx_depth * per_write;
    const double got = static_cast<double>(*rx);
    if (got > allowed + 2 * in_flight) {
      r.contended = true;
      r.notes.push_back("contended: responder " + r.remote_device + " port " +
                        std::to_string(r.remote_port) + " received " + std::to_string(*rx) +
                        " bytes in the window, the probe explains " +
                        std::to_string(static_cast<uint64_t>(expected)));
    }
  } else if (r.bytes > 0) {
    // A responder without port_rcv_data (its driver has none, or a peer that
    // reports no counters) cannot show a transfer into it.
    r.notes.emplace_back("responder reported no port_rcv_data: contention judged at this end only");
  }

  uint64_t cnp_sent = r.remote_counters.np_cnp_sent.value_or(0);
  uint64_t cnp_handled = r.local_counters.rp_cnp_handled.value_or(0);
  uint64_t oob = r.remote_counters.out_of_buffer.value_or(0);
  if (cnp_sent > 0 || cnp_handled > 0 || oob > 0) {
    r.congested = true;
    r.notes.push_back("congested: responder sent " + std::to_string(cnp_sent) +
                      " CNPs, we handled " + std::to_string(cnp_handled) +
                      ", responder out_of_buffer " + std::to_string(oob) +
                      " (ECN marking or receive-buffer pressure in the window)");
  }

  bool below_line = r.link_bits_per_second > 0 &&
                    r.bytes_per_second * 8 < kRdmaBelowLineFraction * r.link_bits_per_second;
  if (below_line && !r.cpu_bound && !r.congested && !r.contended && r.qps > 0) {
    bool uneven = r.qp_max_bytes_per_second > 0 &&
                  r.qp_min_bytes_per_second < 0.8 * r.qp_max_bytes_per_second;
    r.qp_limited = true;
    r.notes.push_back("qp_limited: " + GbpsText(r.bytes_per_second) + " is under " +
                      PercentText(kRdmaBelowLineFraction) + " of the " +
                      GbpsText(r.link_bits_per_second / 8) +
                      " port with full send queues and no congestion signal; " +
                      (uneven ? "QPs were uneven (" + GbpsText(r.qp_min_bytes_per_second) + " to " +
                                    GbpsText(r.qp_max_bytes_per_second) + "); "
                              : "") +
                      "try more --qps or a larger --size");
  }
}

}  // namespace fabric::probe
