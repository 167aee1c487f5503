#include "exporter/scheduled_probes/fleet_agreement.h"

#include <gtest/gtest.h>
#include <prometheus/text_serializer.h>

namespace fabric {
namespace {

Fleet ThreeNodes() {
  Fleet fleet;
  fleet.self = "a";
  fleet.nodes = {{"a", "198.18.0.1", "", 0}, {"b", "198.18.0.2", "", 0}, {"c", "fd00::3", "", 0}};
  fleet.digest = FleetDigest(fleet.nodes);
  return fleet;
}

std::string Scrape(const FleetAgreement& agreement) {
  MetricSink sink;
  EXPECT_TRUE(agreement.MakeCollector()->Collect(sink).ok());
  return prometheus::TextSerializer().Serialize(sink.TakeSorted());
}

TEST(FleetAgreementTest, AnAgreeingFleetPublishesNothing) {
  const Fleet fleet = ThreeNodes();
  FleetAgreement agreement(fleet);
  agreement.Observe("198.18.0.2", fleet.digest);
  agreement.Observe("fd00:0::3", fleet.digest);
  EXPECT_EQ(Scrape(agreement), "");
}

TEST(FleetAgreementTest, NamesThePeerAndItsDigestUntilItAgrees) {
  const Fleet fleet = ThreeNodes();
  FleetAgreement agreement(fleet);
  agreement.Observe("198.18.0.2", "00000000deadbeef");
  agreement.Observe("fd00:0:0::3", "");                 // An older version: no digest on the wire.
  agreement.Observe("198.18.0.9", "00000000deadbeef");  // Not in this node's list.
  const std::string text = Scrape(agreement);
  EXPECT_NE(text.find("fabric_fleet_peer_digest_info{agreement=\"differs\",peer=\"b\","
                      "peer_digest=\"00000000deadbeef\"} 1"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("fabric_fleet_peer_digest_info{agreement=\"unknown\",peer=\"c\","
                      "peer_digest=\"\"} 1"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("peer=\"198.18.0.9\""), std::string::npos) << text;
  // A digest that is no digest is not copied into a label.
  agreement.Observe("198.18.0.2", std::string(70, 'a'));
  EXPECT_NE(Scrape(agreement).find("peer=\"b\",peer_digest=\"malformed\""), std::string::npos);
  agreement.Observe("198.18.0.2", "DEAD beef");
  EXPECT_NE(Scrape(agreement).find("peer=\"b\",peer_digest=\"malformed\""), std::string::npos);
  // The peer's next session opens on this node's list: it is no longer listed.
  agreement.Observe("198.18.0.2", fleet.digest);
  EXPECT_EQ(Scrape(agreement).find("peer=\"b\""), std::string::npos);
  EXPECT_EQ(agreement.Disagreeing().size(), 2u);
}

}  // namespace
}  // namespace fabric
