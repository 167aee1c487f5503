// The value catalogue against its producers: every catalogue value and
// verdict has a probe kind that declares it, and each kind's producer (the
// pure function that turns its probe's result into measurements) emits what
// its declaration says, no more (an undeclared value would never be
// published) and no less (a declared value it never sets would be a producer
// on paper only). And --print-probe-catalogue's JSON says the same.
#include "exporter/scheduled_probes/probe_catalogue.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "exporter/scheduled_probes/path_probe.h"
#include "exporter/scheduled_probes/rdma_ladder_probe.h"
#include "exporter/scheduled_probes/storage_comparison_probe.h"
#include "exporter/scheduled_probes/storage_ladder_probe.h"
#include "exporter/scheduled_probes/tcp_comparison_probe.h"
#include "exporter/scheduled_probes/tcp_ladder_probe.h"

namespace fabric {
namespace {

using probe::Measurement;
using probe::ProbeValue;
using probe::Verdict;

struct Emitted {
  std::set<ProbeValue> values;
  std::set<Verdict> verdicts;
};

Emitted Of(const std::vector<Measurement>& measurements) {
  Emitted e;
  for (const auto& m : measurements) {
    for (const auto& [id, _] : m.values) e.values.insert(id);
    for (const auto& [id, _] : m.verdicts) e.verdicts.insert(id);
  }
  return e;
}

// Every kind's producer on a result with everything set (both directions,
// an interface expectation, a jumbo echo that ran).
Emitted Produced(const probe::ProbeDeclaration& d) {
  if (&d == &TcpRungDeclaration() || &d == &TcpCopyDeclaration()) {
    probe::TcpProbeResult r;
    r.directions.resize(2);
    r.directions[0].direction = probe::Direction::kSend;
    r.directions[1].direction = probe::Direction::kReceive;
    for (auto& d : r.directions) d.min_rtt_seconds = 40e-6;  // Absent when the kernel has none.
    r.link_bits_per_second = 200e9;  // The path's line rate: absent when an end reports none.
    r.responder_link_bits_per_second = 25e9;
    const std::vector<Measurement> rung = TcpMeasurements(r);
    if (&d == &TcpRungDeclaration()) return Of(rung);
    // The copy run with its sendfile reference.
    return Of(
        CopyComparisonMeasurements({probe::Direction::kSend, DefaultTcpCandidate()}, rung, rung));
  }
  if (&d == &RdmaRungDeclaration()) return Of({RdmaMeasurement(probe::RdmaProbeResult{})});
  if (&d == &StorageRungDeclaration()) {
    return Of({StorageMeasurement(storage::StorageProbeResult{})});
  }
  if (&d == &TcpSweepDeclaration()) {
    // A sweep that saturated (so saturating_streams is set) and one still growing.
    return Of({SweepMeasurement(probe::Direction::kSend, {{8, 10e9}, {16, 10.1e9}}),
               SweepMeasurement(probe::Direction::kReceive, {{8, 5e9}, {16, 9e9}})});
  }
  if (&d == &StorageComparisonDeclaration()) {
    // The buffered read with its direct reference.
    const storage::StorageProbeResult direct;
    return Of({StorageComparisonMeasurement(storage::StorageProbeResult{}, &direct)});
  }
  if (&d == &PathProbeDeclaration()) {
    FleetNode self{"a", "10.0.0.1", "eth1", 9000};
    RouteInfo route{"eth1", "10.0.0.1", "", 9000};
    return Of({PathMeasurement(self, route, 9000, Result<bool>(true))});
  }
  ADD_FAILURE() << "no producer in this test for kind " << d.kind;
  return {};
}

template <typename T>
std::set<T> AsSet(const std::vector<T>& v) {
  return {v.begin(), v.end()};
}

TEST(ProbeCatalogue, EveryValueAndVerdictHasAProducer) {
  for (const auto& v : probe::ValueCatalogue()) {
    EXPECT_FALSE(ProducersOf(v.id).empty())
        << v.name << " is in the catalogue, nothing produces it";
  }
  for (const auto& v : probe::Verdicts()) {
    EXPECT_FALSE(ProducersOf(v.id).empty()) << v.name << ": no producer";
  }
}

TEST(ProbeCatalogue, EachKindEmitsExactlyWhatItDeclares) {
  for (const probe::ProbeDeclaration* d : ProbeDeclarations()) {
    SCOPED_TRACE(std::string(d->kind));
    Emitted e = Produced(*d);
    for (ProbeValue id : e.values) {
      EXPECT_TRUE(AsSet(d->values).count(id)) << "emits undeclared " << probe::ValueName(id);
    }
    for (ProbeValue id : d->values) {
      EXPECT_TRUE(e.values.count(id)) << "declares " << probe::ValueName(id) << ", never sets it";
    }
    for (Verdict id : e.verdicts) {
      EXPECT_TRUE(AsSet(d->verdicts).count(id)) << "emits undeclared " << probe::VerdictName(id);
    }
    for (Verdict id : d->verdicts) {
      EXPECT_TRUE(e.verdicts.count(id))
          << "declares " << probe::VerdictName(id) << ", never sets it";
    }
  }
}

TEST(ProbeCatalogue, EveryRungHasOneKind) {
  for (const auto& rung : probe::Rungs()) {
    int kinds = 0;
    for (const probe::ProbeDeclaration* d : ProbeDeclarations()) {
      kinds += static_cast<int>(std::count(d->rungs.begin(), d->rungs.end(), rung.id));
    }
    EXPECT_EQ(kinds, 1) << rung.label;
  }
}

TEST(ProbeCatalogue, JsonListsRungsValuesWithProducersAndVerdicts) {
  const std::string json = ProbeCatalogueJson();
  EXPECT_NE(json.find("{\"label\":\"tcp_multi\",\"title\":\"N-stream TCP\",\"target\":\"peer\","
                      "\"directions\":[\"send\",\"receive\"],\"ladder_layer\":true"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"label\":\"path\",\"title\":\"path check\",\"target\":\"peer\","
                      "\"directions\":[\"\"],\"ladder_layer\":false"),
            std::string::npos);
  EXPECT_NE(
      json.find("{\"name\":\"iops\",\"metric\":\"fabric_probe_iops\",\"unit\":\"per_second\""),
      std::string::npos);
  EXPECT_NE(json.find("\"producers\":[\"storage_read\",\"storage_write\",\"storage_read_buffered\","
                      "\"storage_read_shared_file\",\"storage_read_separate_files\","
                      "\"storage_read_depth1\",\"storage_write_depth1\"]}"),
            std::string::npos)
      << json;
  EXPECT_NE(
      json.find("{\"name\":\"saturating_streams\",\"metric\":\"fabric_probe_saturating_streams\","),
      std::string::npos);
  EXPECT_NE(json.find("{\"name\":\"congested\",\"producers\":[\"rdma\"]}"), std::string::npos);
  EXPECT_NE(json.find("\"fabric_probe_failure_info\""), std::string::npos);
  EXPECT_NE(json.find("\"no_active_port\""), std::string::npos);
  EXPECT_EQ(json.find("\"interrupted\""), std::string::npos);  // Records nothing.
}

}  // namespace
}  // namespace fabric
