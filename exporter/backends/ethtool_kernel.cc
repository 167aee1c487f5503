// The kernel EthtoolBackend: SIOCETHTOOL ioctls for driver info, statistics
// and channels. Pause settings with the standard pause-frame statistics, FEC
// with its statistics, coalescing, rings and offload features are asked of
// ethtool netlink (ethtool_netlink.h) first, which returns what the ioctl
// interface cannot (the statistics) or returns less precisely (settings the
// driver does not report, which the ioctl reads as 0); where netlink refuses
// or is missing, the ioctl answers (NetlinkThenIoctl, ethtool_fallback.h):
// without libnl, on kernels before 5.6 without the netlink family, on kernels
// whose family lacks the request (ETHTOOL_MSG_FEC_GET came later) or refuses
// ETHTOOL_FLAG_STATS. The ioctl gives the settings and no statistics.
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/statfs.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <tuple>
#include <vector>

#include "common/read/file_reader.h"
#include "common/unique_fd.h"
#include "exporter/backends/ethtool_backend.h"

#ifdef FABRIC_WITH_LIBNL
#include "exporter/backends/ethtool_fallback.h"
#include "exporter/backends/ethtool_netlink.h"
#endif

namespace fabric {
namespace {

constexpr long kSysfsMagic = 0x62656572;  // SYSFS_MAGIC from linux/magic.h.

// An ETHTOOL_* request buffer: malloc'd because several requests end in a
// flexible array sized at run time.
struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

class KernelEthtoolBackend : public EthtoolBackend {
 public:
  Result<EthtoolDriverInfo> DriverInfo(const std::string& ifname) override {
    ethtool_drvinfo info{};
    info.cmd = ETHTOOL_GDRVINFO;
    FABRIC_RETURN_IF_ERROR(Ioctl(ifname, &info, "ETHTOOL_GDRVINFO"));
    return EthtoolDriverInfo{CString(info.driver, sizeof(info.driver)),
                             CString(info.version, sizeof(info.version)),
                             CString(info.fw_version, sizeof(info.fw_version)),
                             CString(info.bus_info, sizeof(info.bus_info))};
  }

  Result<EthtoolStats> Stats(const std::string& ifname) override {
    // The count can change between requests (a channel count change adds
    // per-queue statistics), so ask for it, then check the answer matches.
    auto count = StatsCount(ifname);
    if (!count.ok()) return Unexpected{count.error()};
    const uint32_t n = *count;
    if (n == 0) return MakeAbsent(ifname + ": driver has no statistics");
    std::unique_ptr<ethtool_gstrings, FreeDeleter> strings(static_cast<ethtool_gstrings*>(
        std::calloc(1, sizeof(ethtool_gstrings) + size_t{n} * ETH_GSTRING_LEN)));
    std::unique_ptr<ethtool_stats, FreeDeleter> values(static_cast<ethtool_stats*>(
        std::calloc(1, sizeof(ethtool_stats) + size_t{n} * sizeof(uint64_t))));
    if (!strings || !values) return MakeError(ifname + ": out of memory for statistics");
    strings->cmd = ETHTOOL_GSTRINGS;
    strings->string_set = ETH_SS_STATS;
    strings->len = n;
    FABRIC_RETURN_IF_ERROR(Ioctl(ifname, strings.get(), "ETHTOOL_GSTRINGS"));
    values->cmd = ETHTOOL_GSTATS;
    values->n_stats = n;
    FABRIC_RETURN_IF_ERROR(Ioctl(ifname, values.get(), "ETHTOOL_GSTATS"));
    if (strings->len != n || values->n_stats != n) {
      return MakeError(ifname + ": statistics count changed during the read (" + std::to_string(n) +
                       " names, then " + std::to_string(values->n_stats) + " values)");
    }
    EthtoolStats stats;
    stats.reserve(n);
    for (uint32_t i = 0; i < n; ++i) {
      const char* name = reinterpret_cast<const char*>(strings->data) + size_t{i} * ETH_GSTRING_LEN;
      stats.emplace_back(CString(name, ETH_GSTRING_LEN), values->data[i]);
    }
    return stats;
  }

  Result<EthtoolPause> Pause(const std::string& ifname) override {
#ifdef FABRIC_WITH_LIBNL
    auto pause = NetlinkThenIoctl(netlink_.Pause(ifname), [&] { return IoctlPause(ifname); });
#else
    auto pause = IoctlPause(ifname);
#endif
    if (pause.ok() && !pause->autoneg && !pause->rx && !pause->tx) {
      return MakeAbsent(ifname + ": no pause settings in the reply");
    }
    return pause;
  }

  Result<EthtoolLimits> Channels(const std::string& ifname) override {
    ethtool_channels ch{};
    ch.cmd = ETHTOOL_GCHANNELS;
    FABRIC_RETURN_IF_ERROR(Ioctl(ifname, &ch, "ETHTOOL_GCHANNELS"));
    EthtoolLimits limits;
    Add(limits, "rx", ch.max_rx, ch.rx_count);
    Add(limits, "tx", ch.max_tx, ch.tx_count);
    Add(limits, "other", ch.max_other, ch.other_count);
    Add(limits, "combined", ch.max_combined, ch.combined_count);
    return limits;
  }

  Result<EthtoolLimits> Rings(const std::string& ifname) override {
#ifdef FABRIC_WITH_LIBNL
    auto rings = NetlinkThenIoctl(netlink_.Rings(ifname), [&] { return IoctlRings(ifname); });
#else
    auto rings = IoctlRings(ifname);
#endif
    if (rings.ok() && rings->empty()) return MakeAbsent(ifname + ": driver reports no rings");
    return rings;
  }

  Result<EthtoolFec> Fec(const std::string& ifname) override {
#ifdef FABRIC_WITH_LIBNL
    return NetlinkThenIoctl(netlink_.Fec(ifname), [&] { return IoctlFec(ifname); });
#else
    return IoctlFec(ifname);
#endif
  }

  Result<EthtoolCoalesce> Coalesce(const std::string& ifname) override {
#ifdef FABRIC_WITH_LIBNL
    auto c = NetlinkThenIoctl(netlink_.Coalesce(ifname), [&] { return IoctlCoalesce(ifname); });
#else
    auto c = IoctlCoalesce(ifname);
#endif
    if (c.ok() && !c->any()) return MakeAbsent(ifname + ": driver reports no coalescing settings");
    return c;
  }

  Result<EthtoolFeatures> Features(const std::string& ifname) override {
#ifdef FABRIC_WITH_LIBNL
    auto f = NetlinkThenIoctl(netlink_.Features(ifname), [&] { return IoctlFeatures(ifname); });
#else
    auto f = IoctlFeatures(ifname);
#endif
    if (f.ok() && !f->gro && !f->lro && !f->tso && !f->gso) {
      return MakeAbsent(ifname + ": no offload features");
    }
    return f;
  }

 private:
  // The ioctl side of the requests ethtool netlink answers first. Each
  // returns what the ioctl read, empty or not: the public method decides
  // what an empty answer means, whichever side gave it.
  Result<EthtoolPause> IoctlPause(const std::string& ifname) {
    ethtool_pauseparam pp{};
    pp.cmd = ETHTOOL_GPAUSEPARAM;
    FABRIC_RETURN_IF_ERROR(Ioctl(ifname, &pp, "ETHTOOL_GPAUSEPARAM"));
    EthtoolPause pause;
    pause.autoneg = pp.autoneg != 0;
    pause.rx = pp.rx_pause != 0;
    pause.tx = pp.tx_pause != 0;
    return pause;
  }

  Result<EthtoolLimits> IoctlRings(const std::string& ifname) {
    ethtool_ringparam ring{};
    ring.cmd = ETHTOOL_GRINGPARAM;
    FABRIC_RETURN_IF_ERROR(Ioctl(ifname, &ring, "ETHTOOL_GRINGPARAM"));
    EthtoolLimits limits;
    Add(limits, "rx", ring.rx_max_pending, ring.rx_pending);
    Add(limits, "rx_mini", ring.rx_mini_max_pending, ring.rx_mini_pending);
    Add(limits, "rx_jumbo", ring.rx_jumbo_max_pending, ring.rx_jumbo_pending);
    Add(limits, "tx", ring.tx_max_pending, ring.tx_pending);
    return limits;
  }

  // The ioctl knows the active mode, not the statistics.
  Result<EthtoolFec> IoctlFec(const std::string& ifname) {
    ethtool_fecparam fp{};
    fp.cmd = ETHTOOL_GFECPARAM;
    FABRIC_RETURN_IF_ERROR(Ioctl(ifname, &fp, "ETHTOOL_GFECPARAM"));
    EthtoolFec fec;
    fec.active = fp.active_fec & ETHTOOL_FEC_RS      ? "rs"
                 : fp.active_fec & ETHTOOL_FEC_BASER ? "baser"
                 : fp.active_fec & ETHTOOL_FEC_LLRS  ? "llrs"
                 : fp.active_fec & ETHTOOL_FEC_OFF   ? "off"
                                                     : "none";
    return fec;
  }

  Result<EthtoolCoalesce> IoctlCoalesce(const std::string& ifname) {
    ethtool_coalesce ec{};
    ec.cmd = ETHTOOL_GCOALESCE;
    FABRIC_RETURN_IF_ERROR(Ioctl(ifname, &ec, "ETHTOOL_GCOALESCE"));
    EthtoolCoalesce c;
    c.rx_usecs = ec.rx_coalesce_usecs;
    c.rx_frames = ec.rx_max_coalesced_frames;
    c.tx_usecs = ec.tx_coalesce_usecs;
    c.tx_frames = ec.tx_max_coalesced_frames;
    c.adaptive_rx = ec.use_adaptive_rx_coalesce != 0;
    c.adaptive_tx = ec.use_adaptive_tx_coalesce != 0;
    return c;
  }

  Result<EthtoolFeatures> IoctlFeatures(const std::string& ifname) {
    EthtoolFeatures f;
    // Each legacy feature ioctl answers for one offload; one the driver
    // cannot report stays empty.
    for (auto [cmd, out, what] : {std::tuple{ETHTOOL_GGRO, &f.gro, "ETHTOOL_GGRO"},
                                  {ETHTOOL_GTSO, &f.tso, "ETHTOOL_GTSO"},
                                  {ETHTOOL_GGSO, &f.gso, "ETHTOOL_GGSO"},
                                  {ETHTOOL_GFLAGS, &f.lro, "ETHTOOL_GFLAGS"}}) {
      ethtool_value v{};
      v.cmd = static_cast<uint32_t>(cmd);
      Status got = Ioctl(ifname, &v, what);
      if (got.absent()) continue;
      if (!got.ok()) return Unexpected{got.error()};
      *out = cmd == ETHTOOL_GFLAGS ? (v.data & ETH_FLAG_LRO) != 0 : v.data != 0;
    }
    return f;
  }

  // Drivers report 0 for a kind of channel or ring they do not have; ethtool
  // prints it as n/a, and so does this: the kind is left out.
  static void Add(EthtoolLimits& limits, const char* kind, uint32_t max, uint32_t current) {
    if (max == 0 && current == 0) return;
    EthtoolLimit l{kind, {}, {}};
    if (max != 0) l.max = max;
    l.current = current;
    limits.push_back(l);
  }

  static std::string CString(const char* buf, size_t size) {
    return std::string(buf, strnlen(buf, size));
  }

  Result<uint32_t> StatsCount(const std::string& ifname) {
    // ethtool_sset_info ends in a flexible array: one u32 for the one set asked.
    std::unique_ptr<ethtool_sset_info, FreeDeleter> request(static_cast<ethtool_sset_info*>(
        std::calloc(1, sizeof(ethtool_sset_info) + sizeof(uint32_t))));
    if (!request) return MakeError(ifname + ": out of memory for ETHTOOL_GSSET_INFO");
    request->cmd = ETHTOOL_GSSET_INFO;
    request->sset_mask = 1ULL << ETH_SS_STATS;
    FABRIC_RETURN_IF_ERROR(Ioctl(ifname, request.get(), "ETHTOOL_GSSET_INFO"));
    if ((request->sset_mask & (1ULL << ETH_SS_STATS)) == 0) {
      return MakeAbsent(ifname + ": driver has no statistics");
    }
    return request->data[0];
  }

  Status Ioctl(const std::string& ifname, void* data, const char* what) {
    if (ifname.size() >= IFNAMSIZ) return MakeError("interface name too long: " + ifname);
    if (!socket_.valid()) {
      socket_.Reset(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
      if (!socket_.valid()) {
        return MakeError(std::string("socket for SIOCETHTOOL: ") + strerror(errno));
      }
    }
    ifreq ifr{};
    std::memcpy(ifr.ifr_name, ifname.c_str(), ifname.size() + 1);
    ifr.ifr_data = static_cast<char*>(data);
    if (::ioctl(socket_.get(), SIOCETHTOOL, &ifr) != 0) {
      int err = errno;
      std::string message = ifname + ": " + what + ": " + strerror(err);
      if (IsAbsentErrno(err)) return MakeAbsent(message);
      return MakeError(message);
    }
    return OkStatus();
  }

#ifdef FABRIC_WITH_LIBNL
  EthtoolNetlink netlink_;
#endif
  UniqueFd socket_;
};

}  // namespace

std::unique_ptr<EthtoolBackend> MakeKernelEthtoolBackend() {
  return std::make_unique<KernelEthtoolBackend>();
}

bool IsMountedSysfs(const std::string& path) {
  struct statfs fs {};
  return ::statfs(path.c_str(), &fs) == 0 && static_cast<long>(fs.f_type) == kSysfsMagic;
}

}  // namespace fabric
