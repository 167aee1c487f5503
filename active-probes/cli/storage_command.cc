// `fabric_probe storage`: the storage layer of the ladder from the command
// line. SIGINT/SIGTERM stop the probe, which removes its files before the
// process exits with the signal's status.
#include "active-probes/cli/storage_command.h"

#include <signal.h>

#include <cstdio>
#include <string>

#include "active-probes/probe/error_kinds.h"
#include "active-probes/storage/storage_probe.h"
#include "active-probes/storage/storage_report.h"
#include "common/clock.h"
#include "common/flags.h"
#include "common/read/sysroot.h"
#include "common/stop_token.h"

namespace fabric::probe {
namespace {

StopSource g_stop;
volatile sig_atomic_t g_signal = 0;

void OnSignal(int sig) {
  g_signal = sig;
  g_stop.RequestStop();
}

FlagSet MakeStorageFlags() {
  FlagSet f;
  f.AddString("path", "DIR", "directory to probe; the probe creates and removes its own files", "");
  f.AddString("file", "NAME",
              "read this existing regular file in --path instead (checked for holes, kept)", "");
  f.AddString("device", "BLOCKDEV", "read this block device instead of a directory (read-only)",
              "");
  f.AddString("mode", "MODE", "read, write, randread or randwrite", "read");
  f.AddString("block-size", "BYTES", "I/O size (default 1MiB sequential, 4KiB random)", "");
  f.AddString("queue-depth", "N", "I/Os in flight per job", "32");
  f.AddString("jobs", "N", "parallel jobs (threads, one io_uring each)", "1");
  f.AddString("files", "N",
              "spread jobs over N separate files (0: jobs share one file at separate offsets)",
              "0");
  f.AddString("size", "BYTES", "bytes per file (default 256MiB; an existing file: all of it)", "");
  f.AddString("duration", "SECONDS", "measured window", "3s");
  f.AddString("warmup", "SECONDS", "I/O before the window, not counted", "0.5s");
  f.AddBool("buffered", "go through the page cache instead of O_DIRECT", false);
  f.AddString("engine", "ENGINE", "auto (io_uring, else labelled psync), io_uring or psync",
              "auto");
  f.AddString("reserve", "BYTES", "refuse to write if less than this would stay free", "1GiB");
  f.AddBool("calibrate", "measure depth-1 latency first (for the latency_bound verdict)", true);
  f.AddBool("json", "print one JSON object instead of the table", false);
  f.AddString("path.procfs", "DIR", "procfs mount (for mountinfo)", "/proc");
  f.AddBool("help", "show this help", false);
  return f;
}

Result<storage::StorageProbeOptions> OptionsFromFlags(const FlagSet& f) {
  storage::StorageProbeOptions o;
  o.directory = f.GetString("path");
  o.existing_file = f.GetString("file");
  o.device = f.GetString("device");
  auto mode = storage::ParseMode(f.GetString("mode"));
  if (!mode.ok()) return MakeError(mode.error());
  o.mode = *mode;
  auto count = [&](const char* name, uint32_t& out) -> Status {
    auto v = storage::ParseBytes(f.GetString(name));
    if (!v.ok() || *v > UINT32_MAX) {
      return MakeError("--" + std::string(name) + ": want a whole number");
    }
    out = static_cast<uint32_t>(*v);
    return OkStatus();
  };
  if (!f.GetString("block-size").empty()) FABRIC_RETURN_IF_ERROR(count("block-size", o.block_size));
  FABRIC_RETURN_IF_ERROR(count("queue-depth", o.queue_depth));
  FABRIC_RETURN_IF_ERROR(count("jobs", o.jobs));
  FABRIC_RETURN_IF_ERROR(count("files", o.files));
  if (!f.GetString("size").empty()) {
    auto v = storage::ParseBytes(f.GetString("size"));
    if (!v.ok()) return MakeError("--size: " + v.error().message);
    o.size = *v;
  }
  auto reserve = storage::ParseBytes(f.GetString("reserve"));
  if (!reserve.ok()) return MakeError("--reserve: " + reserve.error().message);
  o.reserve_bytes = *reserve;
  auto duration = storage::ParseSeconds(f.GetString("duration"));
  if (!duration.ok()) return MakeError("--duration: " + duration.error().message);
  o.duration_seconds = *duration;
  auto warmup = storage::ParseSeconds(f.GetString("warmup"));
  if (!warmup.ok()) return MakeError("--warmup: " + warmup.error().message);
  o.warmup_seconds = *warmup;
  o.direct = !f.GetBool("buffered");
  std::string engine = f.GetString("engine");
  if (engine == "auto") {
    o.engine = storage::EngineChoice::kAuto;
  } else if (engine == "io_uring") {
    o.engine = storage::EngineChoice::kIoUring;
  } else if (engine == "psync") {
    o.engine = storage::EngineChoice::kPsync;
  } else {
    return MakeError("--engine: want auto, io_uring or psync");
  }
  o.calibrate = f.GetBool("calibrate");
  return o;
}

}  // namespace

int RunStorage(int argc, char** argv) {
  FlagSet flags = MakeStorageFlags();
  const int usage = KindOf(ErrorCode::kUsage).exit_status;
  if (auto parsed = flags.Parse(argc, argv); !parsed.ok()) {
    std::fprintf(stderr, "fabric_probe storage: %s\n", parsed.error().message.c_str());
    return usage;
  }
  if (flags.GetBool("help")) {
    std::printf(
        "Usage: fabric_probe storage --path DIR [FLAGS]\n\n"
        "Direct-I/O throughput, IOPS and latency of the filesystem holding DIR, measured with\n"
        "io_uring. Reads use a file written in full first; writes include fdatasync.\n\n%s",
        flags.Usage().c_str());
    return 0;
  }
  if (!flags.positional().empty()) {
    std::fprintf(stderr, "fabric_probe storage: unexpected argument \"%s\"\n",
                 flags.positional()[0].c_str());
    return usage;
  }
  auto options = OptionsFromFlags(flags);
  if (!options.ok()) {
    std::fprintf(stderr, "fabric_probe storage: %s\n", options.error().message.c_str());
    return usage;
  }
  const SysRoot root(flags.GetString("path.procfs"), std::string(SysRoot::kDefaultSysfs));
  SystemClock clock;
  const ProbeContext context{root, g_stop.token(), clock};

  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);

  auto result = storage::RunStorageProbe(*options, context);
  if (g_signal != 0) {
    // Files are gone (RunStorageProbe removed them); exit as the signal would.
    std::fprintf(stderr, "fabric_probe storage: stopped by signal %d; probe files removed\n",
                 static_cast<int>(g_signal));
    signal(g_signal, SIG_DFL);
    raise(g_signal);
    return 128 + g_signal;
  }
  if (!result.ok()) {
    std::fprintf(stderr, "fabric_probe storage: %s\n", result.error().message.c_str());
    return ExitStatus(result.error());
  }
  if (!result->engine_note.empty()) {
    std::fprintf(stderr, "fabric_probe storage: WARNING: io_uring not used: %s\n",
                 result->engine_note.c_str());
  }
  if (!result->direct_note.empty()) {
    std::fprintf(stderr, "fabric_probe storage: WARNING: %s\n", result->direct_note.c_str());
  }
  std::string out =
      flags.GetBool("json") ? storage::FormatJson(*result) : storage::FormatHuman(*result);
  std::fputs(out.c_str(), stdout);
  return 0;
}

}  // namespace fabric::probe
