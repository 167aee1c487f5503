// The kernel's ethtool generic netlink family (Linux 5.6+) through libnl-genl:
// the requests whose answers the ioctl interface cannot give (pause frame
// statistics, FEC statistics) or gives less precisely (coalescing settings a
// driver does not support read as 0 there, are left out here). One socket,
// one request and one reply at a time. Only built with FABRIC_WITH_LIBNL.
#pragma once

#include <memory>
#include <string>

#include "common/parse/ethtool_coalesce_parse.h"
#include "common/parse/ethtool_features_parse.h"
#include "common/parse/ethtool_fec_parse.h"
#include "common/parse/ethtool_parse.h"
#include "common/parse/ethtool_rings_parse.h"
#include "common/result.h"

namespace fabric {

// Each method: the reply, parsed, empty where the driver reports none of it
// (the caller decides what empty means); an absent error when the kernel
// refuses the request for this interface (no such device, the driver or this
// kernel lacks the request or its ETHTOOL_FLAG_STATS); any other error means
// "no usable ethtool netlink" (no family on this kernel, a socket failure).
// On any error the kernel backend asks the ioctl (ethtool_fallback.h).
class EthtoolNetlink {
 public:
  EthtoolNetlink();
  ~EthtoolNetlink();
  EthtoolNetlink(const EthtoolNetlink&) = delete;
  EthtoolNetlink& operator=(const EthtoolNetlink&) = delete;

  Result<EthtoolPause> Pause(const std::string& ifname);
  Result<EthtoolFec> Fec(const std::string& ifname);
  Result<EthtoolCoalesce> Coalesce(const std::string& ifname);
  Result<EthtoolLimits> Rings(const std::string& ifname);
  // Asked with verbose bitsets, so the reply names each feature bit.
  Result<EthtoolFeatures> Features(const std::string& ifname);

 private:
  struct State;
  // Sends `command` with a header naming `ifname` (and ETHTOOL_FLAG_STATS
  // when `stats`), returns the reply's attributes after the genetlink header.
  Result<std::string> Get(const std::string& ifname, int command, int header_attribute, bool stats,
                          const char* what);
  std::unique_ptr<State> state_;
};

}  // namespace fabric
