#include "exporter/collectors/nfs_collector.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/unit/exporter/collectors/collector_harness.h"
#include "tests/unit/test_dir.h"

namespace fabric {
namespace {

using testing::Has;
using testing::ScrapeWith;

const std::string kTree = std::string(FABRIC_SOURCE_DIR) + "/tests/fixtures/nfs-rdma";
const std::string kBackup = "mountpoint=\"/mnt/backup\",server=\"storage1\",transport=\"rdma\"";
const std::string kScratch = "mountpoint=\"/mnt/scratch\",server=\"10.10.0.21\",transport=\"tcp\"";

TEST(NfsCollectorTest, RdmaMountNegotiatedBelowWhatWasAsked) {
  auto s =
      ScrapeWith(&MakeNfsCollector, kTree, "{requested_options_file: \"" + kTree + "/fstab\"}");
  ASSERT_TRUE(s.status.ok()) << s.status.error().message;
  const std::string& t = s.text;
  EXPECT_TRUE(Has(t, "fabric_nfs_mount_rsize_bytes{" + kBackup + "} 1048576")) << t;
  EXPECT_TRUE(Has(t, "fabric_nfs_mount_requested_rsize_bytes{" + kBackup + "} 4194304"));
  EXPECT_TRUE(Has(t, "fabric_nfs_mount_requested_wsize_bytes{" + kBackup + "} 4194304"));
  EXPECT_TRUE(Has(t, "fabric_nfs_write_bytes_total{" + kBackup + "} 3418793209856"));
  EXPECT_TRUE(Has(t, "fabric_nfs_rdma_read_chunks_total{" + kBackup + "} 3260218"));
  EXPECT_TRUE(Has(t, "fabric_nfs_rdma_empty_sendctx_queue_total{" + kBackup + "} 2196"));
  // Labels in order: mountpoint, operation, server, transport.
  EXPECT_TRUE(Has(t,
                  "fabric_nfs_rpc_rtt_seconds_total{mountpoint=\"/mnt/backup\","
                  "operation=\"WRITE\",server=\"storage1\",transport=\"rdma\"} 5843.912"))
      << t;
  // Operations never used are left out.
  EXPECT_EQ(t.find("operation=\"OPEN_NOATTR\""), std::string::npos);
  // The tcp mount asked for what it got: requested equals negotiated.
  EXPECT_TRUE(Has(t, "fabric_nfs_mount_requested_rsize_bytes{" + kScratch + "} 1048576"));
}

TEST(NfsCollectorTest, NconnectTransportsAreSummed) {
  auto s = ScrapeWith(&MakeNfsCollector, kTree);
  ASSERT_TRUE(s.status.ok()) << s.status.error().message;
  const std::string& t = s.text;
  EXPECT_TRUE(Has(t, "fabric_nfs_transport_connections{" + kScratch + "} 4")) << t;
  EXPECT_TRUE(Has(t, "fabric_nfs_transport_sends_total{" + kScratch + "} 263164"));
  EXPECT_TRUE(Has(t,
                  "fabric_nfs_rpc_retransmissions_total{mountpoint=\"/mnt/scratch\","
                  "operation=\"WRITE\",server=\"10.10.0.21\",transport=\"tcp\"} 27"));
  // No requested_options_file: nothing claims what was asked.
  EXPECT_EQ(t.find("fabric_nfs_mount_requested_"), std::string::npos);
  // No rdma counters on a tcp mount.
  EXPECT_EQ(t.find("fabric_nfs_rdma_read_chunks_total{" + kScratch), std::string::npos);
}

constexpr char kMount[] =
    "device srv:/x mounted on %s with fstype nfs statvers=1.1\n"
    "\topts:\trw,vers=3,rsize=65536,wsize=65536,proto=tcp\n"
    "\tage:\t100\n"
    "\tbytes:\t10 20 0 0 10 20 1 1\n"
    "\txprt:\ttcp 700 0 1 0 0 100 100 0 100 0 2 0 100\n"
    "\tper-op statistics\n"
    "\t        READ: 1 1 0 100 110 0 2 2 0\n";

std::string Mount(const std::string& point) {
  std::string s = kMount;
  return s.replace(s.find("%s"), 2, point);
}

TEST(NfsCollectorTest, TwoMountPointsOfOneSuperblockCountOnce) {
  fabric::testing::TestDir dir;
  dir.Write("proc/self/mountstats", Mount("/a") + "\n" + Mount("/b"));
  auto s = ScrapeWith(&MakeNfsCollector, dir.path().string());
  ASSERT_TRUE(s.status.ok()) << s.status.error().message;
  EXPECT_NE(s.text.find("fabric_nfs_mount_info{export=\"/x\",mountpoint=\"/b\""), std::string::npos)
      << s.text;
  EXPECT_NE(s.text.find("fabric_nfs_read_bytes_total{mountpoint=\"/a\""), std::string::npos);
  EXPECT_EQ(s.text.find("fabric_nfs_read_bytes_total{mountpoint=\"/b\""), std::string::npos);
}

TEST(NfsCollectorTest, NoMountstatsIsSuccessWithoutSamples) {
  fabric::testing::TestDir dir;
  dir.Write("proc/net/dev", "");
  auto s = ScrapeWith(&MakeNfsCollector, dir.path().string());
  EXPECT_TRUE(s.status.ok());
  EXPECT_EQ(s.text, "");
}

TEST(NfsCollectorTest, ABrokenRequestFileFailsOnlyItsOwnPart) {
  fabric::testing::TestDir dir;
  dir.Write("proc/self/mountstats", Mount("/a"));
  std::string fstab = dir.Write("fstab", "srv:/x /a nfs\n");
  auto s = ScrapeWith(&MakeNfsCollector, dir.path().string(),
                      "{requested_options_file: \"" + fstab + "\"}");
  ASSERT_TRUE(s.status.ok()) << s.status.error().message;
  EXPECT_NE(s.text.find("fabric_nfs_read_bytes_total{mountpoint=\"/a\""), std::string::npos);
  EXPECT_NE(s.text.find("fabric_collector_device_errors{collector=\"nfs\",device=\"" + fstab +
                        "\",source=\"requested_options\"} 1"),
            std::string::npos)
      << s.text;
}

TEST(NfsCollectorTest, ABrokenMountstatsFailsTheCollector) {
  fabric::testing::TestDir dir;
  dir.Write("proc/self/mountstats",
            "device srv:/x mounted on /a with fstype nfs statvers=1.1\n\tbytes:\t1 2\n");
  auto s = ScrapeWith(&MakeNfsCollector, dir.path().string());
  ASSERT_FALSE(s.status.ok());
  EXPECT_NE(s.status.error().message.find("self/mountstats:2: bytes: expected 8 numbers"),
            std::string::npos)
      << s.status.error().message;
}

}  // namespace
}  // namespace fabric
