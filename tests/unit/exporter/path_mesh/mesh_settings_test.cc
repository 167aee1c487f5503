#include "exporter/path_mesh/mesh_settings.h"

#include <gtest/gtest.h>

namespace fabric {
namespace {

std::string ErrorOf(const std::string& yaml) {
  try {
    ParseMeshSettings(ConfigNode::LoadString(yaml, "m.yml").Child("mesh"), true);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(MeshSettingsTest, DefaultsFollowTheTcpProbe) {
  MeshSettings on = ParseMeshSettings(ConfigNode(), true);
  EXPECT_TRUE(on.enabled);
  EXPECT_EQ(on.interval_seconds, 5);
  EXPECT_EQ(on.timeout_seconds, 0.5);
  EXPECT_EQ(on.max_peers, 16u);
  EXPECT_FALSE(ParseMeshSettings(ConfigNode(), false).enabled);
}

TEST(MeshSettingsTest, Values) {
  auto s = ParseMeshSettings(
      ConfigNode::LoadString("mesh: {enabled: false, interval: 10s, timeout: 200ms, max_peers: 4}",
                             "m.yml")
          .Child("mesh"),
      true);
  EXPECT_FALSE(s.enabled);
  EXPECT_EQ(s.interval_seconds, 10);
  EXPECT_DOUBLE_EQ(s.timeout_seconds, 0.2);
  EXPECT_EQ(s.max_peers, 4u);
}

TEST(MeshSettingsTest, ErrorsNameFileLineAndKey) {
  EXPECT_EQ(ErrorOf("mesh:\n  intervl: 5s\n").rfind("m.yml:2:3: key mesh.intervl: unknown key", 0),
            0u)
      << ErrorOf("mesh:\n  intervl: 5s\n");
  EXPECT_EQ(ErrorOf("mesh:\n  max_peers: 0\n"),
            "m.yml:2:14: key mesh.max_peers: value 0 is out of range [1, 256]");
  EXPECT_NE(ErrorOf("mesh:\n  interval: 2s\n  timeout: 3s\n")
                .find("m.yml:3:12: key mesh.timeout: the mesh's timeout must be shorter"),
            std::string::npos)
      << ErrorOf("mesh:\n  interval: 2s\n  timeout: 3s\n");
  EXPECT_NE(ErrorOf("mesh:\n  interval: 0.5s\n").find("key mesh.interval:"), std::string::npos);
}

}  // namespace
}  // namespace fabric
