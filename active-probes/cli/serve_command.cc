// fabric_probe serve: the probe responder as a foreground process.
#include <signal.h>

#include <cstdio>

#include "active-probes/cli/arg_parse.h"
#include "active-probes/control/auth.h"
#include "active-probes/rdma/rdma_session.h"
#include "active-probes/responder/responder.h"
#include "common/flags.h"
#include "common/log.h"
#include "common/read/sysroot.h"

namespace fabric::probe {

int RunServeCommand(int argc, char** argv) {
  FlagSet flags;
  flags.AddString("listen", "ADDR[,ADDR]",
                  "Addresses to bind, host or host:port (bind to the fabric only)", "0.0.0.0");
  flags.AddString("allow", "CIDR[,CIDR]", "Peers allowed to connect (required)", "");
  flags.AddString("secret-file", "FILE",
                  "File holding the shared secret (not readable by others; required)", "");
  flags.AddString("max-streams", "N", "Most streams one session may open", "64");
  flags.AddString("max-duration", "DUR", "Longest warm-up + window a session may ask for", "60s");
  flags.AddString("max-bytes", "BYTES", "Most bytes one session may move (0 = no limit)", "0");
  flags.AddString("idle-timeout", "DUR",
                  "Close a control connection that has not completed a message in this time", "5s");
  flags.AddString("rcvbuf", "BYTES", "SO_RCVBUF on data sockets (0 = autotune)", "0");
  flags.AddString("sndbuf", "BYTES", "SO_SNDBUF on data sockets (0 = autotune)", "0");
  flags.AddBool("pin", "Pin stream threads round-robin over the allowed CPUs", false);
  flags.AddString(
      "rdma-device", "NAME",
      "Serve RDMA probes only from this device (default: the one on the probed address)", "");
  flags.AddString("rdma-max-region", "BYTES",
                  "Largest memory region (qps x size) an RDMA session may register", "1G");
  flags.AddString("path.sysfs", "DIR", "sysfs mount (RDMA ports and counters, interfaces)",
                  std::string(SysRoot::kDefaultSysfs));
  flags.AddString("log.level", "LEVEL", "debug, info, warn or error", "info");
  flags.AddBool("help", "Show this help", false);
  if (auto s = flags.Parse(argc, argv); !s.ok()) {
    std::fprintf(stderr, "fabric_probe serve: %s\n", s.error().message.c_str());
    return 2;
  }
  if (flags.GetBool("help")) {
    std::printf(
        "Usage: fabric_probe serve --allow CIDR --secret-file FILE [FLAGS]\n\n"
        "Answers fabric_probe and fabric_exporter probes, one session at a time.\n\n%s",
        flags.Usage().c_str());
    return 0;
  }
  auto fail = [](const std::string& m) {
    std::fprintf(stderr, "fabric_probe serve: %s\n", m.c_str());
    return 2;
  };
  if (auto level = log::ParseLevel(flags.GetString("log.level"))) {
    log::Configure(*level, log::Format::kLogfmt);
  }
  ResponderOptions o;
  o.root = SysRoot(std::string(SysRoot::kDefaultProcfs), flags.GetString("path.sysfs"));
  std::string listen = flags.GetString("listen");
  size_t start = 0;
  while (start <= listen.size()) {
    size_t comma = listen.find(',', start);
    auto item =
        listen.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    auto hp = ParseHostPort(item, kDefaultResponderPort);
    if (!hp.ok()) return fail("--listen: " + hp.error().message);
    o.listen.push_back(*hp);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (flags.GetString("allow").empty()) return fail("--allow is required (e.g. 10.0.0.0/24)");
  auto allow = ParseCidrList(flags.GetString("allow"));
  if (!allow.ok()) return fail("--allow: " + allow.error().message);
  o.allow = *allow;
  if (flags.GetString("secret-file").empty()) return fail("--secret-file is required");
  auto secret = LoadSecretFile(flags.GetString("secret-file"));
  if (!secret.ok()) return fail(secret.error().message);
  o.secret = *secret;
  auto streams = ParseCountFlag("max-streams", flags.GetString("max-streams"), 1, 4096);
  auto duration = ParseDurationFlag("max-duration", flags.GetString("max-duration"));
  auto bytes = ParseBytesFlag("max-bytes", flags.GetString("max-bytes"));
  auto idle = ParseDurationFlag("idle-timeout", flags.GetString("idle-timeout"));
  auto rcvbuf = ParseBytesFlag("rcvbuf", flags.GetString("rcvbuf"));
  auto sndbuf = ParseBytesFlag("sndbuf", flags.GetString("sndbuf"));
  for (const Error* e :
       {streams.ok() ? nullptr : &streams.error(), duration.ok() ? nullptr : &duration.error(),
        bytes.ok() ? nullptr : &bytes.error(), idle.ok() ? nullptr : &idle.error(),
        rcvbuf.ok() ? nullptr : &rcvbuf.error(), sndbuf.ok() ? nullptr : &sndbuf.error()}) {
    if (e != nullptr) return fail(e->message);
  }
  if (idle->count() < 100) return fail("--idle-timeout: at least 100ms");
  o.max_streams = static_cast<uint32_t>(*streams);
  o.max_duration = *duration;
  o.max_bytes = *bytes;
  o.idle_timeout = *idle;
  o.rcvbuf = static_cast<int>(std::min<uint64_t>(*rcvbuf, 1u << 30));
  o.sndbuf = static_cast<int>(std::min<uint64_t>(*sndbuf, 1u << 30));
  o.pin = flags.GetBool("pin");

  // Block the stop signals before any thread starts so sigwait sees them.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  signal(SIGPIPE, SIG_IGN);
  RdmaResponderOptions rdma;
  rdma.device = flags.GetString("rdma-device");
  auto region = ParseBytesFlag("rdma-max-region", flags.GetString("rdma-max-region"));
  if (!region.ok()) return fail(region.error().message);
  rdma.max_region_bytes = *region;
  AddRdmaSessionKind(o, DefaultRdmaBackend(), rdma);  // RDMA_TEST sessions (fabric_probe rdma)
  Responder responder(o);
  if (auto s = responder.Start(); !s.ok()) {
    std::fprintf(stderr, "fabric_probe serve: %s\n", s.error().message.c_str());
    return 1;
  }
  for (const auto& b : responder.bound()) {
    log::Info("probe responder listening", {{"address", b.host}, {"port", std::to_string(b.port)}});
  }
  int sig = 0;
  sigwait(&set, &sig);
  log::Info("probe responder stopping", {{"signal", std::to_string(sig)}});
  responder.Stop();
  return 0;
}

}  // namespace fabric::probe
