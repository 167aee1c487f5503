// fabric_probe rdma: RDMA WRITE bandwidth against a responder.
#include <signal.h>

#include <cstdio>

#include "active-probes/cli/arg_parse.h"
#include "active-probes/control/auth.h"
#include "active-probes/probe/error_kinds.h"
#include "active-probes/rdma/rdma_probe.h"
#include "active-probes/rdma/rdma_report.h"
#include "active-probes/responder/responder.h"
#include "common/clock.h"
#include "common/flags.h"
#include "common/read/sysroot.h"
#include "common/stop_token.h"

namespace fabric::probe {
namespace {

// SIGINT/SIGTERM request the stop; the probe stops within ~50 ms, tears its
// queue pairs and region down, and the command exits 128 + the signal.
StopSource g_stop;
volatile sig_atomic_t g_signal = 0;

void OnStopSignal(int sig) {
  g_signal = sig;
  g_stop.RequestStop();
}

}  // namespace

int RunRdmaCommand(int argc, char** argv) {
  FlagSet flags;
  flags.AddString("peer", "HOST[:PORT]", "Responder to probe (port default 9878; required)", "");
  flags.AddString("secret-file", "FILE", "File holding the shared secret (required)", "");
  flags.AddString("qps", "N", "RC queue pairs", "4");
  flags.AddString("size", "BYTES", "Bytes per RDMA WRITE", "64K");
  flags.AddString("tx-depth", "N", "Outstanding work requests per queue pair", "128");
  flags.AddString("duration", "DUR", "Measured window", "5s");
  flags.AddString("warmup", "DUR", "Warm-up before the window, excluded from the result", "1s");
  flags.AddString("device", "NAME",
                  "RDMA device (default: the one on the source address's interface)", "");
  flags.AddString("bind", "ADDR", "Source address", "");
  flags.AddString("connect-timeout", "DUR", "Connect, rdma_cm and control-message timeout", "5s");
  flags.AddString("busy-retries", "N", "Wait out this many BUSY answers before failing", "0");
  flags.AddString("path.sysfs", "DIR", "sysfs mount (RDMA ports and counters)",
                  std::string(SysRoot::kDefaultSysfs));
  flags.AddBool("json", "Print the result as JSON", false);
  flags.AddBool("help", "Show this help", false);
  const int usage = KindOf(ErrorCode::kUsage).exit_status;
  if (auto s = flags.Parse(argc, argv); !s.ok()) {
    std::fprintf(stderr, "fabric_probe rdma: %s\n", s.error().message.c_str());
    return usage;
  }
  if (flags.GetBool("help")) {
    std::printf(
        "Usage: fabric_probe rdma --peer HOST[:PORT] --secret-file FILE [FLAGS]\n\n"
        "RDMA WRITE bandwidth (RC queue pairs through rdma_cm) against `fabric_probe serve`,\n"
        "timed from completions on CLOCK_MONOTONIC, cross-checked against port counters.\n"
        "Exit status: 0 ok, 1 error, 2 usage, 3 busy, 4 auth, 5 refused, 6 unreachable,\n"
        "7 timeout, 8 rejected by the responder, 9 no RDMA device, 10 no active port;\n"
        "SIGINT/SIGTERM stop the run cleanly (exit 130/143).\n\n%s",
        flags.Usage().c_str());
    return 0;
  }
  auto fail = [usage](const std::string& m) {
    std::fprintf(stderr, "fabric_probe rdma: %s\n", m.c_str());
    return usage;
  };
  RdmaProbeOptions o;
  const SysRoot root(std::string(SysRoot::kDefaultProcfs), flags.GetString("path.sysfs"));
  auto peer_flags = ParsePeerFlags(flags);
  if (!peer_flags.ok()) return fail(peer_flags.error().message);
  o.peer = peer_flags->peer;
  o.secret = peer_flags->secret;
  auto qps = ParseCountFlag("qps", flags.GetString("qps"), 1, kMaxRdmaQps);
  auto size = ParseBytesFlag("size", flags.GetString("size"));
  auto depth = ParseCountFlag("tx-depth", flags.GetString("tx-depth"), 1, kMaxRdmaTxDepth);
  auto duration = ParseDurationFlag("duration", flags.GetString("duration"));
  auto warmup = ParseDurationFlag("warmup", flags.GetString("warmup"));
  auto timeout = ParseDurationFlag("connect-timeout", flags.GetString("connect-timeout"));
  auto retries = ParseCountFlag("busy-retries", flags.GetString("busy-retries"), 0, 100);
  for (const Error* e :
       {qps.ok() ? nullptr : &qps.error(), size.ok() ? nullptr : &size.error(),
        depth.ok() ? nullptr : &depth.error(), duration.ok() ? nullptr : &duration.error(),
        warmup.ok() ? nullptr : &warmup.error(), timeout.ok() ? nullptr : &timeout.error(),
        retries.ok() ? nullptr : &retries.error()}) {
    if (e != nullptr) return fail(e->message);
  }
  if (*size == 0 || *size > kMaxRdmaMessage) return fail("--size: from 1 byte to 1G");
  o.qps = static_cast<uint32_t>(*qps);
  o.size = static_cast<uint32_t>(*size);
  o.tx_depth = static_cast<uint32_t>(*depth);
  o.duration = *duration;
  o.warmup = *warmup;
  o.connect_timeout = *timeout;
  o.busy_retries = static_cast<int>(*retries);
  o.device = flags.GetString("device");
  o.bind_address = flags.GetString("bind");
  if (auto s = ValidateRdmaOptions(o); !s.ok()) return fail(s.error().message);

  signal(SIGPIPE, SIG_IGN);
  struct sigaction sa {};
  sa.sa_handler = OnStopSignal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  SystemClock clock;
  const ProbeContext context{root, g_stop.token(), clock};
  bool json = flags.GetBool("json");
  auto result = RunRdmaProbe(o, context);
  if (!result.ok()) {
    if (json) std::fputs(ErrorToJson(result.error()).c_str(), stdout);
    std::fprintf(stderr, "fabric_probe rdma: %s\n", result.error().message.c_str());
    // A run the signal cut short exits as the signal says, whatever it failed with.
    return ExitStatus(result.error(), g_stop.stop_requested() ? g_signal : 0);
  }
  std::fputs(json ? (RdmaResultToJson(*result) + "\n").c_str() : RdmaResultToTable(*result).c_str(),
             stdout);
  return 0;
}

}  // namespace fabric::probe
