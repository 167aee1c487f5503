#include "exporter/collectors/sockbuf_collector.h"

#include <unistd.h>

#include <string>
#include <vector>

#include "common/parse/sysctl_parse.h"
#include "common/read/file_reader.h"

namespace fabric {
namespace {

enum class Kind {
  kScalar,      // One integer, multiplied by `scale`.
  kTriple,      // Three integers labelled by `bounds`, each multiplied by `scale`.
  kPageTriple,  // As kTriple, in pages: scaled by the page size.
  kWord,        // One word, exported as an _info series labelled `label`.
};

struct Sysctl {
  const char* path;  // Relative to procfs.
  const char* metric;
  const char* help;
  Kind kind = Kind::kScalar;
  double scale = 1;
  const char* label = nullptr;  // kWord: the label carrying the value.
};

constexpr const char* kMinDefaultMax[] = {"min", "default", "max"};
constexpr const char* kLowPressureHigh[] = {"low", "pressure", "high"};

// clang-format off
constexpr Sysctl kSysctls[] = {
  {"sys/net/core/rmem_max", "fabric_sockbuf_core_rmem_max_bytes",
   "net.core.rmem_max: the largest receive buffer a socket may set with SO_RCVBUF. Below the "
   "bandwidth-delay product (line rate x RTT) it caps an application-sized stream."},
  {"sys/net/core/wmem_max", "fabric_sockbuf_core_wmem_max_bytes",
   "net.core.wmem_max: the largest send buffer a socket may set with SO_SNDBUF."},
  {"sys/net/core/rmem_default", "fabric_sockbuf_core_rmem_default_bytes",
   "net.core.rmem_default: receive buffer of sockets that are not TCP auto-tuned."},
  {"sys/net/core/wmem_default", "fabric_sockbuf_core_wmem_default_bytes",
   "net.core.wmem_default: send buffer of sockets that are not TCP auto-tuned."},
  {"sys/net/core/optmem_max", "fabric_sockbuf_core_optmem_max_bytes",
   "net.core.optmem_max: ancillary buffer per socket (MSG_ZEROCOPY notifications need it)."},
  {"sys/net/core/netdev_max_backlog", "fabric_sockbuf_netdev_max_backlog_packets",
   "net.core.netdev_max_backlog: per-CPU input queue length; softnet drops start above it."},
  {"sys/net/core/netdev_budget", "fabric_sockbuf_netdev_budget_packets",
   "net.core.netdev_budget: packets one net_rx_action run may process before a time_squeeze."},
  {"sys/net/core/netdev_budget_usecs", "fabric_sockbuf_netdev_budget_seconds",
   "net.core.netdev_budget_usecs in seconds: time one net_rx_action run may take.",
   Kind::kScalar, 1e-6},
  {"sys/net/core/dev_weight", "fabric_sockbuf_dev_weight_packets",
   "net.core.dev_weight: packets per NAPI poll of the backlog device."},
  {"sys/net/ipv4/tcp_rmem", "fabric_sockbuf_tcp_rmem_bytes",
   "net.ipv4.tcp_rmem: TCP receive buffer auto-tuning bounds; `max` caps every auto-tuned stream's "
   "window.", Kind::kTriple},
  {"sys/net/ipv4/tcp_wmem", "fabric_sockbuf_tcp_wmem_bytes",
   "net.ipv4.tcp_wmem: TCP send buffer auto-tuning bounds; `max` caps the data in flight of an "
   "auto-tuned stream.", Kind::kTriple},
  {"sys/net/ipv4/tcp_mem", "fabric_sockbuf_tcp_mem_bytes",
   "net.ipv4.tcp_mem converted from pages to bytes: host-wide TCP memory thresholds (low, "
   "pressure, high).", Kind::kPageTriple},
  {"sys/net/ipv4/tcp_congestion_control", "fabric_sockbuf_tcp_congestion_control_info",
   "net.ipv4.tcp_congestion_control: the default congestion control algorithm.", Kind::kWord, 1,
   "algorithm"},
  {"sys/net/core/default_qdisc", "fabric_sockbuf_default_qdisc_info",
   "net.core.default_qdisc: the queueing discipline new interfaces get.", Kind::kWord, 1, "qdisc"},
  {"sys/net/ipv4/tcp_window_scaling", "fabric_sockbuf_tcp_window_scaling_enabled",
   "net.ipv4.tcp_window_scaling: 1 if TCP window scaling (RFC 7323) is on; without it a window "
   "cannot exceed 64 KiB."},
  {"sys/net/ipv4/tcp_moderate_rcvbuf", "fabric_sockbuf_tcp_moderate_rcvbuf_enabled",
   "net.ipv4.tcp_moderate_rcvbuf: 1 if receive buffers are auto-tuned."},
  {"sys/net/ipv4/tcp_mtu_probing", "fabric_sockbuf_tcp_mtu_probing_mode",
   "net.ipv4.tcp_mtu_probing: 0 off, 1 after an ICMP black hole is detected, 2 always."},
};
// clang-format on

class SockbufCollector : public Collector {
 public:
  explicit SockbufCollector(const SysRoot& root) : root_(root) {}

  Status Collect(MetricSink& sink) override {
    for (const auto& s : kSysctls) {
      std::string path = root_.Proc(s.path);
      auto text = ReadAttribute(path);
      if (text.absent()) continue;
      if (!text.ok()) return Unexpected{text.error()};
      FABRIC_RETURN_IF_ERROR(Emit(s, *text, path, sink));
    }
    return OkStatus();
  }

 private:
  static Status Emit(const Sysctl& s, const std::string& text, const std::string& path,
                     MetricSink& sink) {
    switch (s.kind) {
      case Kind::kScalar: {
        auto value = ParseSysctlInt(text, path);
        if (!value.ok()) return Unexpected{value.error()};
        sink.Gauge(s.metric, s.help, {}, static_cast<double>(*value) * s.scale);
        return OkStatus();
      }
      case Kind::kTriple:
      case Kind::kPageTriple: {
        auto values = ParseSysctlInts(text, 3, path);
        if (!values.ok()) return Unexpected{values.error()};
        const bool pages = s.kind == Kind::kPageTriple;
        const double scale = pages ? static_cast<double>(::sysconf(_SC_PAGESIZE)) : s.scale;
        const auto& names = pages ? kLowPressureHigh : kMinDefaultMax;
        for (size_t i = 0; i < 3; ++i) {
          sink.Gauge(s.metric, s.help, {{pages ? "threshold" : "bound", names[i]}},
                     static_cast<double>((*values)[i]) * scale);
        }
        return OkStatus();
      }
      case Kind::kWord: {
        auto word = ParseSysctlWord(text, path);
        if (!word.ok()) return Unexpected{word.error()};
        sink.Info(s.metric, s.help, {{s.label, *word}});
        return OkStatus();
      }
    }
    return OkStatus();
  }

  SysRoot root_;
};

}  // namespace

std::unique_ptr<Collector> MakeSockbufCollector(const CollectorContext& context) {
  return std::make_unique<SockbufCollector>(context.root);
}

}  // namespace fabric
