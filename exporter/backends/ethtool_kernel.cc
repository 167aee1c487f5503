// The kernel EthtoolBackend: SIOCETHTOOL ioctls for driver info, statistics,
// channels and rings; ethtool netlink (generic netlink family "ethtool") for
// pause settings with the standard pause-frame statistics, which the ioctl
// interface cannot return. Without libnl, or on kernels before 5.6 without the
// netlink family, pause settings come from the ioctl and the statistics are
// absent.
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
#include <vector>

#include "common/read/file_reader.h"
#include "common/unique_fd.h"
#include "exporter/backends/ethtool_backend.h"

#ifdef FABRIC_WITH_LIBNL
#include <linux/ethtool_netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>
#endif

namespace fabric {
namespace {

constexpr long kSysfsMagic = 0x62656572;  // SYSFS_MAGIC from linux/magic.h.

// An ETHTOOL_* request buffer: malloc'd because several requests end in a
// flexible array sized at run time.
struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

#ifdef FABRIC_WITH_LIBNL
struct NlSockDeleter {
  void operator()(nl_sock* s) const { nl_socket_free(s); }
};
struct NlMsgDeleter {
  void operator()(nl_msg* m) const { nlmsg_free(m); }
};
using NlSock = std::unique_ptr<nl_sock, NlSockDeleter>;
using NlMsg = std::unique_ptr<nl_msg, NlMsgDeleter>;

// libnl's error codes for "this device or driver cannot answer".
bool IsAbsentNlError(int nl_error) {
  return nl_error == NLE_OPNOTSUPP || nl_error == NLE_NODEV || nl_error == NLE_OBJ_NOTFOUND ||
         nl_error == NLE_INVAL || nl_error == NLE_PERM;
}

int OnPauseReply(nl_msg* msg, void* arg) {
  auto* pause = static_cast<EthtoolPause*>(arg);
  nlattr* tb[ETHTOOL_A_PAUSE_MAX + 1] = {};
  if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, ETHTOOL_A_PAUSE_MAX, nullptr) < 0) return NL_SKIP;
  if (tb[ETHTOOL_A_PAUSE_AUTONEG]) pause->autoneg = nla_get_u8(tb[ETHTOOL_A_PAUSE_AUTONEG]) != 0;
  if (tb[ETHTOOL_A_PAUSE_RX]) pause->rx = nla_get_u8(tb[ETHTOOL_A_PAUSE_RX]) != 0;
  if (tb[ETHTOOL_A_PAUSE_TX]) pause->tx = nla_get_u8(tb[ETHTOOL_A_PAUSE_TX]) != 0;
  if (tb[ETHTOOL_A_PAUSE_STATS]) {
    nlattr* st[ETHTOOL_A_PAUSE_STAT_MAX + 1] = {};
    if (nla_parse_nested(st, ETHTOOL_A_PAUSE_STAT_MAX, tb[ETHTOOL_A_PAUSE_STATS], nullptr) == 0) {
      // The kernel leaves out statistics the driver does not keep.
      if (st[ETHTOOL_A_PAUSE_STAT_TX_FRAMES]) {
        pause->tx_frames = nla_get_u64(st[ETHTOOL_A_PAUSE_STAT_TX_FRAMES]);
      }
      if (st[ETHTOOL_A_PAUSE_STAT_RX_FRAMES]) {
        pause->rx_frames = nla_get_u64(st[ETHTOOL_A_PAUSE_STAT_RX_FRAMES]);
      }
    }
  }
  return NL_OK;
}
#endif

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
    auto viaNetlink = NetlinkPause(ifname);
    if (viaNetlink.ok() || viaNetlink.absent()) return viaNetlink;
      // No ethtool netlink family (kernel < 5.6): fall through to the ioctl.
#endif
    ethtool_pauseparam pp{};
    pp.cmd = ETHTOOL_GPAUSEPARAM;
    FABRIC_RETURN_IF_ERROR(Ioctl(ifname, &pp, "ETHTOOL_GPAUSEPARAM"));
    EthtoolPause pause;
    pause.autoneg = pp.autoneg != 0;
    pause.rx = pp.rx_pause != 0;
    pause.tx = pp.tx_pause != 0;
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

 private:
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
  // A non-absent error here means "no usable ethtool netlink".
  Result<EthtoolPause> NetlinkPause(const std::string& ifname) {
    if (no_ethtool_family_) return MakeError("no ethtool generic netlink family");
    if (!nl_) {
      NlSock sock(nl_socket_alloc());
      if (!sock) return MakeError("nl_socket_alloc failed");
      if (int err = genl_connect(sock.get()); err < 0) {
        return MakeError(std::string("genl_connect: ") + nl_geterror(err));
      }
      family_ = genl_ctrl_resolve(sock.get(), ETHTOOL_GENL_NAME);
      if (family_ < 0) {
        // Kernels before 5.6: not going to appear later, stop asking.
        no_ethtool_family_ = true;
        return MakeError("no ethtool generic netlink family");
      }
      // One request, one reply: no ACK to wait for.
      nl_socket_disable_auto_ack(sock.get());
      nl_ = std::move(sock);
    }
    NlMsg msg(nlmsg_alloc());
    if (!msg) return MakeError("nlmsg_alloc failed");
    if (!genlmsg_put(msg.get(), NL_AUTO_PORT, NL_AUTO_SEQ, family_, 0, 0, ETHTOOL_MSG_PAUSE_GET,
                     ETHTOOL_GENL_VERSION)) {
      return MakeError("genlmsg_put failed");
    }
    nlattr* header = nla_nest_start(msg.get(), ETHTOOL_A_PAUSE_HEADER);
    if (header == nullptr || nla_put_string(msg.get(), ETHTOOL_A_HEADER_DEV_NAME, ifname.c_str()) ||
        nla_put_u32(msg.get(), ETHTOOL_A_HEADER_FLAGS, ETHTOOL_FLAG_STATS)) {
      return MakeError("building ETHTOOL_MSG_PAUSE_GET failed");
    }
    nla_nest_end(msg.get(), header);
    if (int err = nl_send_auto(nl_.get(), msg.get()); err < 0) {
      nl_.reset();
      return MakeError(ifname + ": ETHTOOL_MSG_PAUSE_GET send: " + nl_geterror(err));
    }
    EthtoolPause pause;
    nl_socket_modify_cb(nl_.get(), NL_CB_VALID, NL_CB_CUSTOM, &OnPauseReply, &pause);
    int err = nl_recvmsgs_default(nl_.get());
    nl_socket_modify_cb(nl_.get(), NL_CB_VALID, NL_CB_CUSTOM, nullptr, nullptr);
    if (err < 0) {
      std::string message = ifname + ": ETHTOOL_MSG_PAUSE_GET: " + nl_geterror(err);
      if (IsAbsentNlError(-err)) return MakeAbsent(message);
      // Drop the socket so no stray reply is read as the next answer; the
      // caller falls back to the ioctl.
      nl_.reset();
      return MakeError(message);
    }
    if (!pause.autoneg && !pause.rx && !pause.tx) {
      return MakeAbsent(ifname + ": no pause settings in the reply");
    }
    return pause;
  }

  NlSock nl_;
  int family_ = -1;
  bool no_ethtool_family_ = false;
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
