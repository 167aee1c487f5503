#include "active-probes/rdma/rdma_messages.h"

#include <cstdio>
#include <limits>

#include "common/strings.h"

namespace fabric::probe {
namespace {

Result<uint32_t> Uint32(const Message& m, std::string_view key) {
  auto v = m.Uint(key);
  if (!v.ok()) return Unexpected{v.error()};
  if (*v > std::numeric_limits<uint32_t>::max()) {
    return MakeError(m.verb + ": " + std::string(key) + " out of range");
  }
  return static_cast<uint32_t>(*v);
}

void SetOptional(Message& m, const char* key, const std::optional<uint64_t>& v) {
  if (v) m.Set(key, *v);
}

Result<std::optional<uint64_t>> GetOptional(const Message& m, const char* key) {
  if (!m.Get(key)) return std::optional<uint64_t>();
  auto v = m.Uint(key);
  if (!v.ok()) return Unexpected{v.error()};
  return std::optional<uint64_t>(*v);
}

}  // namespace

Message RdmaRequestToMessage(const RdmaRequest& r) {
  Message m;
  m.verb = kRdmaTestVerb;
  m.Set("qps", static_cast<uint64_t>(r.qps))
      .Set("size", static_cast<uint64_t>(r.size))
      .Set("tx_depth", static_cast<uint64_t>(r.tx_depth))
      .Set("duration_ms", r.duration_ms)
      .Set("warmup_ms", r.warmup_ms);
  return m;
}

Result<RdmaRequest> RdmaRequestFromMessage(const Message& m) {
  if (m.verb != kRdmaTestVerb) return MakeError("expected RDMA_TEST, got " + Quote(m.verb));
  RdmaRequest r;
  auto qps = Uint32(m, "qps");
  auto size = Uint32(m, "size");
  auto depth = Uint32(m, "tx_depth");
  auto duration = m.Uint("duration_ms");
  auto warmup = m.Uint("warmup_ms");
  for (const Error* e :
       {qps.ok() ? nullptr : &qps.error(), size.ok() ? nullptr : &size.error(),
        depth.ok() ? nullptr : &depth.error(), duration.ok() ? nullptr : &duration.error(),
        warmup.ok() ? nullptr : &warmup.error()}) {
    if (e != nullptr) return MakeError(*e);
  }
  r.qps = *qps;
  r.size = *size;
  r.tx_depth = *depth;
  r.duration_ms = *duration;
  r.warmup_ms = *warmup;
  return r;
}

Message RdmaAcceptToMessage(const RdmaRegion& region, const std::string& token) {
  char addr[32];
  std::snprintf(addr, sizeof(addr), "0x%llx", static_cast<unsigned long long>(region.addr));
  Message m;
  m.verb = "RDMA_ACCEPT";
  m.Set("token", token)
      .Set("cm_port", static_cast<uint64_t>(region.cm_port))
      .Set("addr", addr)
      .Set("rkey", static_cast<uint64_t>(region.rkey))
      .Set("length", region.length)
      .Set("device", region.device.empty() ? "-" : region.device)
      .Set("port", static_cast<uint64_t>(region.port))
      .Set("mtu", static_cast<uint64_t>(region.active_mtu));
  return m;
}

Result<std::pair<RdmaRegion, std::string>> RdmaAcceptFromMessage(const Message& m) {
  if (m.verb != "RDMA_ACCEPT") return MakeError("expected RDMA_ACCEPT, got " + Quote(m.verb));
  auto token = m.Get("token");
  if (!token || token->size() != 32) return MakeError("RDMA_ACCEPT: missing or bad token");
  auto addr_text = m.Get("addr").value_or("");
  if (!StartsWith(addr_text, "0x")) return MakeError("RDMA_ACCEPT: addr is not 0x-hex");
  auto addr = ParseUint64(std::string_view(addr_text).substr(2), 16);
  if (!addr) return MakeError("RDMA_ACCEPT: addr is not 0x-hex: " + Quote(addr_text));
  auto cm_port = m.Uint("cm_port");
  auto rkey = Uint32(m, "rkey");
  auto length = m.Uint("length");
  auto port = Uint32(m, "port");
  auto mtu = Uint32(m, "mtu");
  for (const Error* e :
       {cm_port.ok() ? nullptr : &cm_port.error(), rkey.ok() ? nullptr : &rkey.error(),
        length.ok() ? nullptr : &length.error(), port.ok() ? nullptr : &port.error(),
        mtu.ok() ? nullptr : &mtu.error()}) {
    if (e != nullptr) return MakeError(*e);
  }
  if (*cm_port == 0 || *cm_port > 65535) return MakeError("RDMA_ACCEPT: bad cm_port");
  RdmaRegion r;
  r.addr = *addr;
  r.rkey = *rkey;
  r.length = *length;
  r.cm_port = static_cast<uint16_t>(*cm_port);
  r.device = m.Get("device").value_or("-");
  r.port = *port;
  r.active_mtu = *mtu;
  return std::make_pair(r, *token);
}

Message RdmaSideReportToMessage(const RdmaSideReport& r) {
  Message m;
  m.verb = "RDMA_RESULT";
  SetOptional(m, "xmit_bytes", r.counters.xmit_bytes);
  SetOptional(m, "rcv_bytes", r.counters.rcv_bytes);
  SetOptional(m, "np_cnp_sent", r.counters.np_cnp_sent);
  SetOptional(m, "rp_cnp_handled", r.counters.rp_cnp_handled);
  SetOptional(m, "out_of_buffer", r.counters.out_of_buffer);
  m.Set("user_us", static_cast<uint64_t>(r.user_seconds * 1e6));
  m.Set("system_us", static_cast<uint64_t>(r.system_seconds * 1e6));
  return m;
}

Result<RdmaSideReport> RdmaSideReportFromMessage(const Message& m) {
  if (m.verb != "RDMA_RESULT") return MakeError("expected RDMA_RESULT, got " + Quote(m.verb));
  RdmaSideReport r;
  struct Field {
    const char* key;
    std::optional<uint64_t>* out;
  };
  for (Field f :
       {Field{"xmit_bytes", &r.counters.xmit_bytes}, Field{"rcv_bytes", &r.counters.rcv_bytes},
        Field{"np_cnp_sent", &r.counters.np_cnp_sent},
        Field{"rp_cnp_handled", &r.counters.rp_cnp_handled},
        Field{"out_of_buffer", &r.counters.out_of_buffer}}) {
    auto v = GetOptional(m, f.key);
    if (!v.ok()) return Unexpected{v.error()};
    *f.out = *v;
  }
  auto user = m.Uint("user_us");
  auto sys = m.Uint("system_us");
  if (!user.ok()) return Unexpected{user.error()};
  if (!sys.ok()) return Unexpected{sys.error()};
  r.user_seconds = static_cast<double>(*user) * 1e-6;
  r.system_seconds = static_cast<double>(*sys) * 1e-6;
  return r;
}

std::string RdmaRejectText(const std::string& reason) {
  if (reason == kRejectNoRdmaDevice) {
    return "the responder has no RDMA device on the probed address";
  }
  if (reason == kRejectNoActivePort) return "the responder's RDMA device has no active port";
  if (reason == kRejectSetupFailed) {
    return "the responder could not register memory or listen for queue pairs (see its log)";
  }
  if (reason == "bad-request") return "the responder did not understand the RDMA request";
  return reason;
}

}  // namespace fabric::probe
