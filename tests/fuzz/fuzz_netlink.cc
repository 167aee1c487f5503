// Netlink reply parsers (inet_diag sockets, RTM_NEWADDR, RTM_NEWLINK, the
// tcp_info payload, the RTM_NEWROUTE answer to a route lookup, and the ethtool
// generic netlink replies' attributes: pause, FEC, coalesce, rings, features
// with its nested bitsets): the kernel is trusted, but a length
// field read wrong here reads past the receive buffer, which is what this target looks for. The
// input is copied into a buffer of its exact size so ASan sees overreads.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/parse/ethtool_coalesce_parse.h"
#include "common/parse/ethtool_features_parse.h"
#include "common/parse/ethtool_fec_parse.h"
#include "common/parse/ethtool_parse.h"
#include "common/parse/ethtool_rings_parse.h"
#include "common/parse/netlink_parse.h"
#include "common/parse/route_parse.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto in = fabric::fuzz::Split(data, size, 10);
  // Netlink buffers are 4-byte aligned in the kernel's receive buffer.
  std::unique_ptr<uint32_t[]> aligned(new uint32_t[in.text.size() / 4 + 1]);
  if (!in.text.empty()) std::memcpy(aligned.get(), in.text.data(), in.text.size());
  std::string_view buffer(reinterpret_cast<const char*>(aligned.get()), in.text.size());
  bool done = false;
  switch (in.selector) {
    case 0: {
      std::vector<fabric::SocketRecord> sockets;
      (void)fabric::ParseInetDiagBuffer(buffer, sockets, done);
      break;
    }
    case 1:
      (void)fabric::ParseTcpInfo(buffer);
      break;
    case 2: {
      std::vector<fabric::InterfaceAddress> addresses;
      (void)fabric::ParseIfAddrBuffer(buffer, addresses, done);
      break;
    }
    case 3: {
      std::map<uint32_t, std::string> links;
      (void)fabric::ParseLinkBuffer(buffer, links, done);
      break;
    }
    case 4: {
      auto route = fabric::ParseRouteReply(buffer);
      (void)(route.prefsrc.size() + route.gateway.size() + route.oif + route.mtu);
      break;
    }
    // The ethtool parsers take the attributes after the genetlink header.
    case 5: {
      auto pause = fabric::ParseEthtoolPauseAttributes(buffer);
      (void)(pause.tx_frames.value_or(0) + pause.rx_frames.value_or(0));
      break;
    }
    case 6: {
      auto fec = fabric::ParseEthtoolFecAttributes(buffer);
      if (fec.ok()) (void)(fec->active.size() + fec->corrected_blocks.lanes.size());
      break;
    }
    case 7:
      (void)fabric::ParseEthtoolCoalesceAttributes(buffer).any();
      break;
    case 8:
      (void)fabric::ParseEthtoolRingsAttributes(buffer).size();
      break;
    case 9: {
      auto f = fabric::ParseEthtoolFeaturesAttributes(buffer);
      (void)(f.gro.value_or(false) || f.lro.value_or(false));
      break;
    }
  }
  return 0;
}
