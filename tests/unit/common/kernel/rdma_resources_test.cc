#include "common/kernel/rdma_resources.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/unit/test_dir.h"

namespace fabric {
namespace {

const std::string kRecording = std::string(FABRIC_SOURCE_DIR) + "/tests/fixtures/nics/rdma-netlink";

TEST(RdmaResourcesTest, RecordingHoldsEveryDevicesDumps) {
  auto r = LoadRdmaResourceRecording(kRecording);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->qps.size(), 12u + 4u);  // mlx5_0's and mlx5_2's.
  EXPECT_EQ(r->cm_ids.size(), 5u);     // mlx5_2 has none: its dump is NLMSG_DONE alone.
  EXPECT_EQ(r->qps.back().device, "mlx5_2");
}

TEST(RdmaResourcesTest, RecordingWithoutDeviceListOrDoneFails) {
  fabric::testing::TestDir dir;
  EXPECT_FALSE(LoadRdmaResourceRecording(dir.path().string()).ok());
  // A dump cut before its NLMSG_DONE: the recording is incomplete.
  dir.Write("devices.nl", "");
  auto r = LoadRdmaResourceRecording(dir.path().string());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("NLMSG_DONE"), std::string::npos) << r.error().message;
}

// On a host without RDMA netlink (ib_core not loaded, as on the test hosts) or without an RDMA
// device the dump is absent, never an error; on one with devices it lists them.
TEST(RdmaResourcesTest, LiveDumpIsAbsentOrAnswers) {
  auto r = DumpRdmaResources();
  EXPECT_TRUE(r.ok() || r.absent()) << r.error().message;
}

}  // namespace
}  // namespace fabric
