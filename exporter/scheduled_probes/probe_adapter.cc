#include "exporter/scheduled_probes/probe_adapter.h"

#include <algorithm>
#include <chrono>

#include "active-probes/probe/error_kinds.h"
#include "common/log.h"

namespace fabric {
namespace {

using probe::Measurement;

template <typename T>
bool Declared(const std::vector<T>& declared, T id) {
  return std::find(declared.begin(), declared.end(), id) != declared.end();
}

// How the log names the target: the peer of a path, the directory of a storage run.
const char* TargetKey(probe::Rung rung) {
  return probe::InfoOf(rung).target == probe::RungTarget::kPeer ? "peer" : "directory";
}

ProbeRecord Record(const probe::Probe& probe, probe::Direction direction, double timestamp,
                   double duration) {
  ProbeRecord record;
  record.key = {probe.rung(), probe.target(), direction};
  record.timestamp_seconds = timestamp;
  record.duration_seconds = duration;
  return record;
}

}  // namespace

std::vector<ProbeKey> KeysOf(probe::Rung rung, const std::string& target) {
  std::vector<ProbeKey> keys;
  for (probe::Direction direction : probe::InfoOf(rung).directions) {
    keys.push_back({rung, target, direction});
  }
  return keys;
}

RunRecords RecordsOfRun(const probe::Probe& probe, const Result<std::vector<Measurement>>& run,
                        double timestamp_seconds, double duration_seconds, bool stop_requested) {
  RunRecords out;
  const probe::ProbeDeclaration& declared = probe.declaration();
  if (!run.ok()) {
    const Error& error = run.error();
    if (error.code == ErrorCode::kInterrupted || stop_requested) {
      out.outcome = ProbeOutcome::kFailure;
      return out;
    }
    for (probe::Direction direction : probe::InfoOf(probe.rung()).directions) {
      ProbeRecord record = Record(probe, direction, timestamp_seconds, duration_seconds);
      record.failure_reason = std::string(probe::KindOf(error.code).reason);
      record.failure_detail = error.message;
      out.records.push_back(std::move(record));
    }
    out.outcome = error.code == ErrorCode::kBusy ? ProbeOutcome::kBusy : ProbeOutcome::kFailure;
    return out;
  }
  for (const Measurement& m : *run) {
    ProbeRecord record = Record(probe, m.direction, timestamp_seconds, duration_seconds);
    record.success = true;
    record.failure_detail = m.note;
    // What the kind did not declare is not published: the catalogue and its
    // producer table (and the rules linted against them) stay the truth.
    for (const auto& [id, value] : m.values) {
      if (Declared(declared.values, id)) {
        record.values[id] = value;
      } else {
        log::Error("probe produced an undeclared value",
                   {{"probe", std::string(probe::RungLabel(probe.rung()))},
                    {"value", std::string(probe::ValueName(id))}});
      }
    }
    for (const auto& [id, raised] : m.verdicts) {
      if (Declared(declared.verdicts, id)) {
        record.verdicts[id] = raised;
      } else {
        log::Error("probe produced an undeclared verdict",
                   {{"probe", std::string(probe::RungLabel(probe.rung()))},
                    {"verdict", std::string(probe::VerdictName(id))}});
      }
    }
    record.info = m.info;
    out.records.push_back(std::move(record));
  }
  out.outcome = ProbeOutcome::kSuccess;
  return out;
}

ProbeOutcome RunAndRecord(probe::Probe& probe, const probe::ProbeContext& context,
                          ResultStore& store) {
  const SteadyTime start = context.clock.Now();
  auto run = probe.Run(context);
  const double duration = std::chrono::duration<double>(context.clock.Now() - start).count();
  RunRecords made = RecordsOfRun(probe, run, context.clock.WallSeconds(), duration,
                                 context.stop.stop_requested());
  const std::string kind(probe.declaration().kind);
  const std::string label(probe::RungLabel(probe.rung()));
  if (!run.ok() && made.records.empty()) {
    // Shutdown: a cut-short run is no result and no failure of the peer.
    log::Info(kind + " probe interrupted",
              {{"probe", label}, {TargetKey(probe.rung()), probe.target()}});
  } else if (!run.ok()) {
    log::Warn(kind + " probe failed", {{"probe", label},
                                       {TargetKey(probe.rung()), probe.target()},
                                       {"err", run.error().message}});
  } else {
    for (const Measurement& m : *run) {
      if (!m.note.empty()) {
        log::Warn(
            kind + " probe",
            {{"probe", label}, {TargetKey(probe.rung()), probe.target()}, {"detail", m.note}});
      }
    }
  }
  for (auto& record : made.records) store.Record(std::move(record));
  return made.outcome;
}

}  // namespace fabric
