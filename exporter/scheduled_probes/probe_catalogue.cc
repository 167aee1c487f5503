#include "exporter/scheduled_probes/probe_catalogue.h"

#include <algorithm>

#include "active-probes/probe/error_kinds.h"
#include "common/json.h"
#include "exporter/path_mesh/path_stats.h"
#include "exporter/scheduled_probes/path_probe.h"
#include "exporter/scheduled_probes/probe_results_collector.h"
#include "exporter/scheduled_probes/rdma_ladder_probe.h"
#include "exporter/scheduled_probes/storage_comparison_probe.h"
#include "exporter/scheduled_probes/storage_ladder_probe.h"
#include "exporter/scheduled_probes/tcp_comparison_probe.h"
#include "exporter/scheduled_probes/tcp_ladder_probe.h"

namespace fabric {
namespace {

template <typename T, typename Member>
std::vector<probe::Rung> Producers(T id, Member member) {
  std::vector<probe::Rung> out;
  for (const auto& info : probe::Rungs()) {
    for (const probe::ProbeDeclaration* d : ProbeDeclarations()) {
      const auto& produced = d->*member;
      if (std::find(d->rungs.begin(), d->rungs.end(), info.id) != d->rungs.end() &&
          std::find(produced.begin(), produced.end(), id) != produced.end()) {
        out.push_back(info.id);
      }
    }
  }
  return out;
}

std::string Labels(const std::vector<probe::Rung>& rungs) {
  std::string out = "[";
  for (size_t i = 0; i < rungs.size(); ++i) {
    out += (i ? "," : "") + JsonString(probe::RungLabel(rungs[i]));
  }
  return out + "]";
}

// One item per line, so a change to the committed file reads as a diff.
std::string List(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? ",\n  " : "\n  ") + items[i];
  return out + "\n ]";
}

}  // namespace

std::span<const probe::ProbeDeclaration* const> ProbeDeclarations() {
  static const probe::ProbeDeclaration* const kDeclarations[] = {
      &RdmaRungDeclaration(),         &TcpRungDeclaration(), &StorageRungDeclaration(),
      &PathProbeDeclaration(),        &TcpCopyDeclaration(), &TcpSweepDeclaration(),
      &StorageComparisonDeclaration()};
  return kDeclarations;
}

std::vector<probe::Rung> ProducersOf(probe::ProbeValue value) {
  return Producers(value, &probe::ProbeDeclaration::values);
}

std::vector<probe::Rung> ProducersOf(probe::Verdict verdict) {
  return Producers(verdict, &probe::ProbeDeclaration::verdicts);
}

std::string ProbeCatalogueJson() {
  std::vector<std::string> rungs, values, verdicts, families, reasons;
  for (const auto& r : probe::Rungs()) {
    std::string directions = "[";
    for (size_t i = 0; i < r.directions.size(); ++i) {
      directions += (i ? "," : "") + JsonString(probe::DirectionName(r.directions[i]));
    }
    rungs.push_back(
        "{\"label\":" + JsonString(r.label) + ",\"title\":" + JsonString(r.title) +
        ",\"target\":" + JsonString(r.target == probe::RungTarget::kPeer ? "peer" : "directory") +
        ",\"directions\":" + directions + "]" + ",\"ladder_layer\":" + JsonBool(r.ladder_layer) +
        ",\"ceiling\":" + JsonBool(r.ceiling) + "}");
  }
  for (const auto& v : probe::ValueCatalogue()) {
    values.push_back("{\"name\":" + JsonString(v.name) +
                     ",\"metric\":" + JsonString("fabric_probe_" + std::string(v.name)) +
                     ",\"unit\":" + JsonString(probe::UnitName(v.unit)) + ",\"help\":" +
                     JsonString(v.help) + ",\"producers\":" + Labels(ProducersOf(v.id)) + "}");
  }
  for (const auto& v : probe::Verdicts()) {
    verdicts.push_back("{\"name\":" + JsonString(v.name) +
                       ",\"producers\":" + Labels(ProducersOf(v.id)) + "}");
  }
  for (std::string_view family : ProbeRecordFamilies()) families.push_back(JsonString(family));
  for (std::string_view family : kPathMeshSeries) families.push_back(JsonString(family));
  for (const auto& kind : probe::ErrorKinds()) {
    if (kind.code == ErrorCode::kInterrupted) continue;  // Records nothing.
    std::string reason = JsonString(kind.reason);
    // Several codes share a label (error): list each label once.
    if (std::find(reasons.begin(), reasons.end(), reason) == reasons.end()) {
      reasons.push_back(reason);
    }
  }
  return "{\n \"rungs\": " + List(rungs) + ",\n \"values\": " + List(values) +
         ",\n \"verdicts\": " + List(verdicts) + ",\n \"families\": " + List(families) +
         ",\n \"reasons\": " + List(reasons) + "\n}\n";
}

}  // namespace fabric
