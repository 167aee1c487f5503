#include "exporter/backends/ethtool_netlink.h"

#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

namespace fabric {
namespace {

struct NlSockDeleter {
  void operator()(nl_sock* s) const { nl_socket_free(s); }
};
struct NlMsgDeleter {
  void operator()(nl_msg* m) const { nlmsg_free(m); }
};
using NlSock = std::unique_ptr<nl_sock, NlSockDeleter>;
using NlMsg = std::unique_ptr<nl_msg, NlMsgDeleter>;

// libnl's error codes for "the kernel refuses this request for this device":
// no such device, or the driver, or this kernel, lacks the request or a flag
// it carries. The kernel backend then asks the ioctl (ethtool_fallback.h).
bool IsAbsentNlError(int nl_error) {
  return nl_error == NLE_OPNOTSUPP || nl_error == NLE_NODEV || nl_error == NLE_OBJ_NOTFOUND ||
         nl_error == NLE_INVAL || nl_error == NLE_PERM;
}

// Copies the reply's attributes (after the genetlink header) for the pure
// parsers in common/parse.
int OnReply(nl_msg* msg, void* arg) {
  auto* out = static_cast<std::string*>(arg);
  nlmsghdr* header = nlmsg_hdr(msg);
  auto* genl = static_cast<genlmsghdr*>(nlmsg_data(header));
  const int length = genlmsg_attrlen(genl, 0);
  if (length < 0) return NL_SKIP;
  out->assign(reinterpret_cast<const char*>(genlmsg_attrdata(genl, 0)),
              static_cast<size_t>(length));
  return NL_OK;
}

}  // namespace

struct EthtoolNetlink::State {
  NlSock sock;
  int family = -1;
  bool no_family = false;
};

EthtoolNetlink::EthtoolNetlink() : state_(std::make_unique<State>()) {}
EthtoolNetlink::~EthtoolNetlink() = default;

Result<std::string> EthtoolNetlink::Get(const std::string& ifname, int command,
                                        int header_attribute, bool stats, const char* what) {
  State& s = *state_;
  if (s.no_family) return MakeError("no ethtool generic netlink family");
  if (!s.sock) {
    NlSock sock(nl_socket_alloc());
    if (!sock) return MakeError("nl_socket_alloc failed");
    if (int err = genl_connect(sock.get()); err < 0) {
      return MakeError(std::string("genl_connect: ") + nl_geterror(err));
    }
    s.family = genl_ctrl_resolve(sock.get(), ETHTOOL_GENL_NAME);
    if (s.family < 0) {
      // Kernels before 5.6: not going to appear later, stop asking.
      s.no_family = true;
      return MakeError("no ethtool generic netlink family");
    }
    // One request, one reply: no ACK to wait for.
    nl_socket_disable_auto_ack(sock.get());
    s.sock = std::move(sock);
  }
  NlMsg msg(nlmsg_alloc());
  if (!msg) return MakeError("nlmsg_alloc failed");
  if (!genlmsg_put(msg.get(), NL_AUTO_PORT, NL_AUTO_SEQ, s.family, 0, 0,
                   static_cast<uint8_t>(command), ETHTOOL_GENL_VERSION)) {
    return MakeError("genlmsg_put failed");
  }
  nlattr* header = nla_nest_start(msg.get(), header_attribute);
  if (header == nullptr || nla_put_string(msg.get(), ETHTOOL_A_HEADER_DEV_NAME, ifname.c_str()) ||
      (stats && nla_put_u32(msg.get(), ETHTOOL_A_HEADER_FLAGS, ETHTOOL_FLAG_STATS))) {
    return MakeError(std::string("building ") + what + " failed");
  }
  nla_nest_end(msg.get(), header);
  if (int err = nl_send_auto(s.sock.get(), msg.get()); err < 0) {
    s.sock.reset();
    return MakeError(ifname + ": " + what + " send: " + nl_geterror(err));
  }
  std::string attributes;
  nl_socket_modify_cb(s.sock.get(), NL_CB_VALID, NL_CB_CUSTOM, &OnReply, &attributes);
  int err = nl_recvmsgs_default(s.sock.get());
  nl_socket_modify_cb(s.sock.get(), NL_CB_VALID, NL_CB_CUSTOM, nullptr, nullptr);
  if (err < 0) {
    std::string message = ifname + ": " + what + ": " + nl_geterror(err);
    if (IsAbsentNlError(-err)) return MakeAbsent(message);
    // Drop the socket so no stray reply is read as the next answer.
    s.sock.reset();
    return MakeError(message);
  }
  return attributes;
}

Result<EthtoolPause> EthtoolNetlink::Pause(const std::string& ifname) {
  auto attributes =
      Get(ifname, ETHTOOL_MSG_PAUSE_GET, ETHTOOL_A_PAUSE_HEADER, true, "ETHTOOL_MSG_PAUSE_GET");
  if (!attributes.ok()) return Unexpected{attributes.error()};
  return ParseEthtoolPauseAttributes(*attributes);
}

Result<EthtoolFec> EthtoolNetlink::Fec(const std::string& ifname) {
  auto attributes =
      Get(ifname, ETHTOOL_MSG_FEC_GET, ETHTOOL_A_FEC_HEADER, true, "ETHTOOL_MSG_FEC_GET");
  if (!attributes.ok()) return Unexpected{attributes.error()};
  auto fec = ParseEthtoolFecAttributes(*attributes);
  if (!fec.ok()) return MakeError(ifname + ": ETHTOOL_MSG_FEC_GET: " + fec.error().message);
  return fec;
}

Result<EthtoolCoalesce> EthtoolNetlink::Coalesce(const std::string& ifname) {
  auto attributes = Get(ifname, ETHTOOL_MSG_COALESCE_GET, ETHTOOL_A_COALESCE_HEADER, false,
                        "ETHTOOL_MSG_COALESCE_GET");
  if (!attributes.ok()) return Unexpected{attributes.error()};
  return ParseEthtoolCoalesceAttributes(*attributes);
}

Result<EthtoolLimits> EthtoolNetlink::Rings(const std::string& ifname) {
  auto attributes =
      Get(ifname, ETHTOOL_MSG_RINGS_GET, ETHTOOL_A_RINGS_HEADER, false, "ETHTOOL_MSG_RINGS_GET");
  if (!attributes.ok()) return Unexpected{attributes.error()};
  return ParseEthtoolRingsAttributes(*attributes);
}

Result<EthtoolFeatures> EthtoolNetlink::Features(const std::string& ifname) {
  auto attributes = Get(ifname, ETHTOOL_MSG_FEATURES_GET, ETHTOOL_A_FEATURES_HEADER, false,
                        "ETHTOOL_MSG_FEATURES_GET");
  if (!attributes.ok()) return Unexpected{attributes.error()};
  return ParseEthtoolFeaturesAttributes(*attributes);
}

}  // namespace fabric
