// The generic adapter of the probe seam (active-probes/probe/probe.h): runs
// one Probe with its context and turns what it returned into ProbeRecords for
// the ResultStore, and into the scheduler's outcome. Every probe kind goes
// through here, so the timestamp, the failure reason (from the error-kind
// table), the records of a failed run and the treatment of an interrupted one
// are the same for all of them.
#pragma once

#include <string>
#include <vector>

#include "active-probes/probe/probe.h"
#include "exporter/scheduled_probes/result_store.h"
#include "exporter/scheduled_probes/scheduler.h"

namespace fabric {

// The records a rung's run makes on `target`, one per direction of the rung
// table, for ResultStore::Expect.
std::vector<ProbeKey> KeysOf(probe::Rung rung, const std::string& target);

struct RunRecords {
  // Empty when the run was interrupted: a run cut short is no result and no
  // failure of the peer, so the previous result stands.
  std::vector<ProbeRecord> records;
  ProbeOutcome outcome = ProbeOutcome::kFailure;
};

// Pure: the records of `probe`'s run that returned `run`, ended at Unix time
// `timestamp_seconds` and took `duration_seconds`. A success makes one record
// per measurement, with only the values and verdicts the probe's kind
// declares; a failure one per direction of the rung, with the error code's
// reason label. `stop_requested`: the owner stopped the run, so a failure is
// an interruption whatever its code.
RunRecords RecordsOfRun(const probe::Probe& probe,
                        const Result<std::vector<probe::Measurement>>& run,
                        double timestamp_seconds, double duration_seconds, bool stop_requested);

// Runs `probe` once, logs and records the result in `store`, returns the
// scheduler's outcome (kBusy when the peer's responder stayed busy).
ProbeOutcome RunAndRecord(probe::Probe& probe, const probe::ProbeContext& context,
                          ResultStore& store);

}  // namespace fabric
