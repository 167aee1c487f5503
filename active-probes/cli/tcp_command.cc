// fabric_probe tcp: the multi-stream TCP probe against a responder.
#include <signal.h>

#include <cstdio>

#include "active-probes/cli/arg_parse.h"
#include "active-probes/control/auth.h"
#include "active-probes/probe/error_kinds.h"
#include "active-probes/responder/responder.h"
#include "active-probes/tcp/host_stats.h"
#include "active-probes/tcp/report.h"
#include "active-probes/tcp/tcp_probe.h"
#include "active-probes/tcp/unsent_limit.h"
#include "common/clock.h"
#include "common/flags.h"
#include "common/read/sysroot.h"

namespace fabric::probe {

int RunTcpCommand(int argc, char** argv) {
  FlagSet flags;
  flags.AddString("peer", "HOST[:PORT]", "Responder to probe (port default 9878; required)", "");
  flags.AddString("secret-file", "FILE", "File holding the shared secret (required)", "");
  flags.AddString("streams", "N", "Parallel TCP streams, one thread each", "8");
  flags.AddString("duration", "DUR", "Measured window", "5s");
  flags.AddString("warmup", "DUR", "Warm-up before the window, excluded from the result", "1s");
  flags.AddString("direction", "DIR", "send (we send), receive (the responder sends) or both",
                  "send");
  flags.AddString("mode", "MODE",
                  "Sender: sendfile (from a page-cache file), copy (write from userspace) or "
                  "zerocopy (MSG_ZEROCOPY)",
                  "sendfile");
  flags.AddString("block", "BYTES", "Bytes per send call", "256K");
  flags.AddString("recv-block", "BYTES",
                  "Bytes per receive call, both sides (0 = the send block, at least 128K)", "0");
  flags.AddString("sweep", "N,N,...", "Run these stream counts in turn and find saturation", "");
  flags.AddString("bind", "ADDR", "Source address", "");
  flags.AddString("sndbuf", "BYTES", "SO_SNDBUF on our data sockets (0 = autotune)", "0");
  flags.AddString("rcvbuf", "BYTES", "SO_RCVBUF on our data sockets (0 = autotune)", "0");
  flags.AddString("peer-rcvbuf", "BYTES", "Ask the responder for this SO_RCVBUF (0 = its own)",
                  "0");
  flags.AddString("peer-sndbuf", "BYTES", "Ask the responder for this SO_SNDBUF (0 = its own)",
                  "0");
  flags.AddString(
      "unsent-limit", "auto|BYTES",
      "Unsent data each sending stream may queue (TCP_NOTSENT_LOWAT), both sides; "
      "auto = 4M shared by the streams, at least 64K, none for blocks under 64K; 0 = the "
      "kernel's default",
      "auto");
  flags.AddBool("pin", "Pin each stream thread to its own CPU", true);
  flags.AddBool("numa-local", "Pin to CPUs of the NIC's NUMA node", false);
  flags.AddString("cpus", "LIST", "Pin stream threads to these CPUs, e.g. 0-3,8", "");
  flags.AddString("connect-timeout", "DUR", "Connect and control-message timeout", "5s");
  flags.AddString("busy-retries", "N", "Wait out this many BUSY answers before failing", "0");
  flags.AddBool("json", "Print the result as JSON", false);
  flags.AddBool("help", "Show this help", false);
  const int usage = KindOf(ErrorCode::kUsage).exit_status;
  if (auto s = flags.Parse(argc, argv); !s.ok()) {
    std::fprintf(stderr, "fabric_probe tcp: %s\n", s.error().message.c_str());
    return usage;
  }
  if (flags.GetBool("help")) {
    std::printf(
        "Usage: fabric_probe tcp --peer HOST[:PORT] --secret-file FILE [FLAGS]\n\n"
        "Multi-stream TCP throughput against `fabric_probe serve`, counted at the\n"
        "receiver, with self-checks (cpu_bound, contended, stream_limited).\n"
        "Exit status: 0 ok, 1 error, 2 usage, 3 busy, 4 auth, 5 refused, "
        "6 unreachable, 7 timeout, 8 rejected by the responder's limits, 11 an MTU\n"
        "changed during the run, 12 the responder saw the window start late.\n\n%s",
        flags.Usage().c_str());
    return 0;
  }
  auto fail = [usage](const std::string& m) {
    std::fprintf(stderr, "fabric_probe tcp: %s\n", m.c_str());
    return usage;
  };
  TcpProbeOptions o;
  auto peer_flags = ParsePeerFlags(flags);
  if (!peer_flags.ok()) return fail(peer_flags.error().message);
  o.peer = peer_flags->peer;
  o.secret = peer_flags->secret;
  auto streams = ParseCountFlag("streams", flags.GetString("streams"), 1, 4096);
  auto duration = ParseDurationFlag("duration", flags.GetString("duration"));
  auto warmup = ParseDurationFlag("warmup", flags.GetString("warmup"));
  auto direction = ParseDirection(flags.GetString("direction"));
  auto mode = ParseSendMode(flags.GetString("mode"));
  auto block = ParseBytesFlag("block", flags.GetString("block"));
  auto recv_block = ParseBytesFlag("recv-block", flags.GetString("recv-block"));
  auto sndbuf = ParseBytesFlag("sndbuf", flags.GetString("sndbuf"));
  auto rcvbuf = ParseBytesFlag("rcvbuf", flags.GetString("rcvbuf"));
  auto peer_rcvbuf = ParseBytesFlag("peer-rcvbuf", flags.GetString("peer-rcvbuf"));
  auto peer_sndbuf = ParseBytesFlag("peer-sndbuf", flags.GetString("peer-sndbuf"));
  auto timeout = ParseDurationFlag("connect-timeout", flags.GetString("connect-timeout"));
  auto retries = ParseCountFlag("busy-retries", flags.GetString("busy-retries"), 0, 100);
  for (const Error* e :
       {streams.ok() ? nullptr : &streams.error(), duration.ok() ? nullptr : &duration.error(),
        warmup.ok() ? nullptr : &warmup.error(), direction.ok() ? nullptr : &direction.error(),
        mode.ok() ? nullptr : &mode.error(), block.ok() ? nullptr : &block.error(),
        recv_block.ok() ? nullptr : &recv_block.error(), sndbuf.ok() ? nullptr : &sndbuf.error(),
        rcvbuf.ok() ? nullptr : &rcvbuf.error(), peer_rcvbuf.ok() ? nullptr : &peer_rcvbuf.error(),
        peer_sndbuf.ok() ? nullptr : &peer_sndbuf.error(),
        timeout.ok() ? nullptr : &timeout.error(), retries.ok() ? nullptr : &retries.error()}) {
    if (e != nullptr) return fail(e->message);
  }
  if (flags.GetString("unsent-limit") != "auto") {
    auto unsent = ParseBytesFlag("unsent-limit", flags.GetString("unsent-limit"));
    if (!unsent.ok()) return fail(unsent.error().message + "; or auto");
    if (!UnsentLimitAllowed(*unsent)) return fail("--unsent-limit: 0, auto, or from 16K to 1G");
    o.unsent_limit = static_cast<uint32_t>(*unsent);
  }
  if (duration->count() < 100) return fail("--duration: at least 100ms");
  if (*block < 1024 || *block > (4u << 20)) return fail("--block: from 1K to 4M");
  if (*recv_block != 0 && (*recv_block < 1024 || *recv_block > (4u << 20))) {
    return fail("--recv-block: 0 or from 1K to 4M");
  }
  o.streams = static_cast<uint32_t>(*streams);
  o.duration = *duration;
  o.warmup = *warmup;
  o.direction = *direction;
  o.mode = *mode;
  o.block = static_cast<uint32_t>(*block);
  o.recv_block = static_cast<uint32_t>(*recv_block);
  o.sndbuf = static_cast<int>(std::min<uint64_t>(*sndbuf, 1u << 30));
  o.rcvbuf = static_cast<int>(std::min<uint64_t>(*rcvbuf, 1u << 30));
  o.peer_rcvbuf = static_cast<uint32_t>(std::min<uint64_t>(*peer_rcvbuf, 1u << 30));
  o.peer_sndbuf = static_cast<uint32_t>(std::min<uint64_t>(*peer_sndbuf, 1u << 30));
  o.connect_timeout = *timeout;
  o.busy_retries = static_cast<int>(*retries);
  o.bind_address = flags.GetString("bind");
  o.pin = flags.GetBool("pin");
  o.numa_local = flags.GetBool("numa-local");
  if (!flags.GetString("cpus").empty()) {
    auto cpus = ParseCpuList(flags.GetString("cpus"));
    if (!cpus.ok()) return fail("--cpus: " + cpus.error().message);
    o.cpus = *cpus;
  }
  signal(SIGPIPE, SIG_IGN);
  const SysRoot root;  // The host's procfs and sysfs.
  SystemClock clock;
  const ProbeContext context{root, StopToken(), clock};  // Runs to the end.
  bool json = flags.GetBool("json");
  auto report_error = [&](const Error& e) {
    if (json) std::fputs(ErrorToJson(e).c_str(), stdout);
    std::fprintf(stderr, "fabric_probe tcp: %s\n", e.message.c_str());
    return ExitStatus(e);
  };
  if (!flags.GetString("sweep").empty()) {
    auto counts = ParseCountList("sweep", flags.GetString("sweep"), 4096);
    if (!counts.ok()) return fail(counts.error().message);
    auto sweep = RunTcpSweep(o, *counts, context);
    if (!sweep.ok()) return report_error(sweep.error());
    std::fputs(json ? SweepToJson(*sweep).c_str() : SweepToTable(*sweep).c_str(), stdout);
    return 0;
  }
  auto result = RunTcpProbe(o, context);
  if (!result.ok()) return report_error(result.error());
  std::fputs(json ? (ResultToJson(*result) + "\n").c_str() : ResultToTable(*result).c_str(),
             stdout);
  return 0;
}

}  // namespace fabric::probe
