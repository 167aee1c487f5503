// ResultStore: the latest result of every probe, which scrapes read and the
// scheduler writes, persisted to a state file so a restart keeps the ladder.
#pragma once

#include <compare>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "active-probes/probe/direction.h"
#include "active-probes/probe/rungs.h"
#include "active-probes/probe/values.h"
#include "common/result.h"
#include "exporter/scheduled_probes/tcp_calibration.h"

namespace fabric {

struct ProbeKey {
  probe::Rung probe = probe::Rung::kTcpMulti;  // The `probe` label.
  std::string target;                          // Peer node name, or the storage directory.
  probe::Direction direction = probe::Direction::kNone;  // Send or receive, or none.
  // Ordered by the labels, as the exposition and the state file list them.
  std::strong_ordering operator<=>(const ProbeKey& other) const;
  bool operator==(const ProbeKey& other) const = default;
};

// A result a later run did not replace: when it ended and what it moved.
struct KeptResult {
  double timestamp_seconds = 0;
  double bytes_per_second = 0;
  bool operator==(const KeptResult& other) const = default;
};

struct ProbeRecord {
  ProbeKey key;
  double timestamp_seconds = 0;  // Unix time the run ended; 0: never ran.
  bool success = false;
  // Why it failed: a reason label of the error-kind table
  // (active-probes/probe/error_kinds.cc: refused, busy, auth, unreachable,
  // timeout, aborted, no_space, no_device, no_active_port, error, ...).
  std::string failure_reason;
  std::string failure_detail;  // Free text for the log and landing page.
  double duration_seconds = 0;
  // How often the schedule runs this record (a pair rung: the plan's period
  // for the pair; a comparison run: its rotation's; a local probe: its
  // interval); 0 when unknown. Staleness is judged against it.
  double period_seconds = 0;
  std::map<probe::ProbeValue, double> values;
  std::map<probe::Verdict, bool> verdicts;
  // Descriptive labels of the last run (e.g. the path's egress interface),
  // exported on fabric_probe_info.
  std::map<std::string, std::string> info;
  // The throughput of the last successful run that shared its path with no other traffic
  // (no contended verdict; cpu_bound allowed), and of the last that no harness limit touched
  // (neither contended nor cpu_bound): this run's own when it qualifies, else the previous
  // record's. A contended or failed run never replaces them (a transfer that shares the path
  // would otherwise take away the rung it is judged against); they are published with their
  // age as fabric_probe_uncontended_* and fabric_probe_clean_*.
  std::optional<KeptResult> uncontended;
  std::optional<KeptResult> clean;
  // The fastest clean result of the last `best_window_seconds` (ResultStore::SetBestWindow:
  // the rules' longBaselineWindow, 30 days): a clean run at least as fast replaces it, and so
  // does the next clean run once it is older than the window. So "this path used to do 194
  // Gbit/s" stays on the ladder page after a slow or stepwise decline that the 7-day baseline
  // absorbed; the rules keep their own from the series (long_baseline).
  std::optional<KeptResult> best;
};

// Sets `record`'s kept results from its own run where it qualifies, else from `previous`
// (the record it replaces; null for none), for the ladder's rungs (ladder_layer). Kept results
// `record` already has (a state file's) stay. `best_window_seconds` 0 keeps no best.
void KeepResults(ProbeRecord& record, const ProbeRecord* previous, double best_window_seconds = 0);

class ResultStore {
 public:
  // Declares a configured probe so its series exist before the first run,
  // with its planned period (kept across Record() and Load()).
  void Expect(const ProbeKey& key, double period_seconds = 0);
  // The latest record of `key`, if any.
  std::optional<ProbeRecord> Find(const ProbeKey& key) const;
  void Record(ProbeRecord record);
  std::vector<ProbeRecord> Snapshot() const;
  // How long a record's `best` stands (0, the default: none is kept).
  void SetBestWindow(double seconds);

  // The TCP rungs' calibration of each rung and direction to a peer (keyed
  // like their records), saved in the same state file so a restart does not
  // calibrate again.
  void SetCalibration(const ProbeKey& key, TcpCalibration calibration);
  std::optional<TcpCalibration> Calibration(const ProbeKey& key) const;
  std::map<ProbeKey, TcpCalibration> Calibrations() const;

  // Writes the state file atomically (temporary file, fsync, rename, fsync of
  // the directory): a crash leaves the old or the new file, never a torn one.
  Status Save(const std::string& path) const;
  // What Save writes: the real results and the calibrations (a config reload
  // hands them to the next runtime through LoadText).
  std::string SaveText() const;
  // Which saved results Load() takes back.
  enum class LoadScope {
    kExpected,    // Only probes still configured (a restart): a removed peer's result must not live
                  // on.
    kEverything,  // Every result in the file (a recording replayed in place of running probes).
  };
  // Loads results saved earlier. A missing file is absent (not an error); a corrupt one is an
  // error the caller reports and then ignores.
  Status Load(const std::string& path, LoadScope scope = LoadScope::kExpected);
  // Load's parsing half: `text` is a state file's contents, `source` names it in errors.
  Status LoadText(const std::string& text, const std::string& source,
                  LoadScope scope = LoadScope::kExpected);

 private:
  mutable std::mutex mutex_;
  double best_window_seconds_ = 0;
  std::map<ProbeKey, ProbeRecord> records_;
  std::map<ProbeKey, TcpCalibration> calibrations_;
};

}  // namespace fabric
