// How the kernel ethtool backend (ethtool_kernel.cc) picks between ethtool
// netlink and the SIOCETHTOOL ioctl for a request both can answer (pause, FEC,
// coalescing, rings, features). Apart from the backend so the rule is tested
// without a kernel.
#pragma once

#include <utility>

#include "common/result.h"

namespace fabric {

// `netlink` is what ethtool netlink answered (EthtoolNetlink). An answer wins,
// an empty one too: netlink leaves out what the driver does not report, where
// the ioctl would read zeros. Any error asks the ioctl (`ioctl()`, called only
// then), an absent one included: netlink's absent is the kernel refusing the
// request (EOPNOTSUPP, EINVAL), and a kernel with the ethtool family (5.6) can
// still lack the request (ETHTOOL_MSG_FEC_GET came later) or refuse its
// ETHTOOL_FLAG_STATS ("unrecognized request flags"), where the ioctl answers.
// The ioctl's error keeps its code (absent when it cannot answer either) and
// carries the netlink error's message after its own.
//
// Pause and FEC are asked with ETHTOOL_FLAG_STATS, and netlink is not asked a
// second time without the flag: the ioctl calls the same driver operation
// (get_pauseparam, get_fecparam), so it gives the same settings a stats-less
// netlink reply would, and the kernel answers EOPNOTSUPP alike for a refused
// flag and for a driver without the operation, so a retry would cost every
// interface without pause or FEC a third request per scrape for nothing.
template <typename T, typename Ioctl>
Result<T> NetlinkThenIoctl(Result<T> netlink, Ioctl&& ioctl) {
  if (netlink.ok()) return netlink;
  Result<T> via_ioctl = std::forward<Ioctl>(ioctl)();
  if (via_ioctl.ok()) return via_ioctl;
  Error error = via_ioctl.error();
  error.message += " (netlink: " + netlink.error().message + ")";
  return Unexpected{std::move(error)};
}

}  // namespace fabric
