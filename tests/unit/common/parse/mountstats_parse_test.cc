#include "common/parse/mountstats_parse.h"

#include <gtest/gtest.h>

#include <cctype>
#include <fstream>
#include <sstream>
#include <string>

#include "common/parse/fstab_parse.h"

namespace fabric {
namespace {

// One mount per format generation, in the layout the kernel prints
// (fs/nfs/super.c nfs_show_stats, net/sunrpc/stats.c, xprtsock.c and
// xprtrdma/transport.c print_stats of each era).
struct Generation {
  const char* name;
  const char* text;
  const char* protocol;
  size_t transports;
  bool has_max_slots;
  bool has_rdma;
  bool has_later_rdma;  // nomsg_call_count and after.
  bool has_op_errors;
  uint64_t sends;
  uint64_t write_transmissions;
};

const Generation kGenerations[] = {
    {"statvers 1.0 tcp (2.6.17)",
     "device srv:/home mounted on /home with fstype nfs statvers=1.0\n"
     "\topts:\trw,vers=3,rsize=32768,wsize=32768,hard,proto=tcp,timeo=600,retrans=2,sec=sys\n"
     "\tage:\t1021\n"
     "\tbytes:\t1 2 3 4 5 6 7 8\n"
     "\tRPC iostats version: 1.0  p/v: 100003/3 (nfs)\n"
     "\txprt:\ttcp 832 0 1 0 11 6428 6428 0 12154 0\n"
     "\tper-op statistics\n"
     "\t        NULL: 0 0 0 0 0 0 0 0\n"
     "\t       WRITE: 10 12 0 4000 1200 1 20 22\n",
     "tcp", 1, false, false, false, false, 6428, 12},
    {"statvers 1.0 udp (2.6.17)",
     "device srv:/home mounted on /home with fstype nfs statvers=1.0\n"
     "\topts:\trw,vers=3,rsize=8192,wsize=8192,proto=udp\n"
     "\txprt:\tudp 832 0 6428 6428 0 12154 0\n"
     "\tper-op statistics\n"
     "\t       WRITE: 10 10 0 4000 1200 1 20 22\n",
     "udp", 1, false, false, false, false, 6428, 10},
    {"statvers 1.1 tcp (3.10)",
     "device 192.168.1.1:/srv/test mounted on /mnt/nfs with fstype nfs4 statvers=1.1\n"
     "\topts:\trw,vers=4.0,rsize=1048576,wsize=1048576,namlen=255,hard,proto=tcp,port=0,"
     "timeo=600,retrans=2,sec=sys,clientaddr=192.168.1.5,local_lock=none\n"
     "\tage:\t13968\n"
     "\tcaps:\tcaps=0xfff7,wtmult=512,dtsize=32768,bsize=0,namlen=255\n"
     "\tnfsv4:\tbm0=0xfdffafff,bm1=0xf9be3e,acl=0x0,pnfs=not configured\n"
     "\tsec:\tflavor=1,pseudoflavor=1\n"
     "\tevents:\t52 226 0 0 1 13 398 0 0 331 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
     "\tbytes:\t1207640230 0 0 0 1210214218 0 295483 0\n"
     "\tRPC iostats version: 1.1  p/v: 100003/4 (nfs)\n"
     "\txprt:\ttcp 832 0 1 0 11 6428 6428 0 12154 0 24 26 5726\n"
     "\tper-op statistics\n"
     "\t        NULL: 0 0 0 0 0 0 0 0\n"
     "\t        READ: 1298 1298 0 207680 1210292152 6 79386 79407\n"
     "\t       WRITE: 0 0 0 0 0 0 0 0\n",
     "tcp", 1, true, false, false, false, 6428, 0},
    {"statvers 1.1 udp (3.10)",
     "device srv:/x mounted on /x with fstype nfs statvers=1.1\n"
     "\topts:\trw,vers=3,proto=udp\n"
     "\txprt:\tudp 832 0 6428 6428 0 12154 0 24 26 5726\n"
     "\tper-op statistics\n"
     "\t       WRITE: 3 4 1 40 12 1 2 2\n",
     "udp", 1, true, false, false, false, 6428, 4},
    {"xprt rdma, 20 numbers (3.10, early 4.x)",
     "device 10.0.0.2:/rdma mounted on /mnt/rdma with fstype nfs statvers=1.1\n"
     "\topts:\trw,vers=3,rsize=1048576,wsize=1048576,hard,proto=rdma,port=20049\n"
     "\tbytes:\t0 0 0 0 4096 8192 1 2\n"
     "\txprt:\trdma 0 0 1 0 0 900 900 0 1800 0 11 12 13 8192 4096 5 6 7 0 0\n"
     "\tper-op statistics\n"
     "\t       WRITE: 11 11 0 9000 1100 0 30 31\n",
     "rdma", 1, false, true, false, false, 900, 11},
    {"xprt rdma, 27 numbers and per-op errors (5.x, 6.x)",
     "device 10.0.0.2:/rdma mounted on /mnt/rdma with fstype nfs4 statvers=1.1\n"
     "\topts:\trw,vers=4.2,rsize=1048576,wsize=1048576,hard,proto=rdma,port=20049\n"
     "\tbytes:\t0 0 0 0 4096 8192 1 2\n"
     "\txprt:\trdma 0 0 1 0 0 900 900 0 1800 0 11 12 13 8192 4096 5 6 7 0 0 1 0 0 64 3 9 2\n"
     "\tper-op statistics\n"
     "\t       WRITE: 11 11 0 9000 1100 0 30 31 0\n",
     "rdma", 1, false, true, true, true, 900, 11},
    {"nconnect=2 tcp (5.3 and later)",
     "device srv:/x mounted on /x with fstype nfs statvers=1.1\n"
     "\topts:\trw,vers=3,nconnect=2,proto=tcp\n"
     "\txprt:\ttcp 700 0 1 0 0 100 100 0 100 0 2 0 100\n"
     "\txprt:\ttcp 701 0 1 0 0 200 200 0 200 0 2 0 200\n"
     "\tper-op statistics\n"
     "\t       WRITE: 300 301 0 9000 1100 0 30 31 0\n",
     "tcp", 2, true, false, false, true, 100, 301},
};

class MountStatsGenerationTest : public ::testing::TestWithParam<Generation> {};

TEST_P(MountStatsGenerationTest, ParsesWhatTheKernelPrints) {
  const Generation& g = GetParam();
  auto result = ParseMountStats(g.text, "mountstats");
  ASSERT_TRUE(result.ok()) << result.error().message;
  ASSERT_EQ(result->size(), 1u);
  const NfsMount& m = result->front();
  ASSERT_EQ(m.transports.size(), g.transports);
  const NfsTransportStats& t = m.transports.front();
  EXPECT_EQ(t.protocol, g.protocol);
  EXPECT_EQ(t.sends, g.sends);
  EXPECT_EQ(t.max_slots.has_value(), g.has_max_slots);
  ASSERT_EQ(t.rdma.has_value(), g.has_rdma);
  if (g.has_rdma) {
    EXPECT_EQ(t.rdma->nomsg_calls.has_value(), g.has_later_rdma);
  }
  const NfsOperationStats& last = m.operations.back();
  EXPECT_EQ(last.name, "WRITE");
  EXPECT_EQ(last.transmissions, g.write_transmissions);
  EXPECT_EQ(last.errors.has_value(), g.has_op_errors);
}

template <typename T>
std::string CaseName(const ::testing::TestParamInfo<T>& info) {
  std::string name;
  for (const char* c = info.param.name; *c; ++c) name += std::isalnum(*c) ? *c : '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(AllGenerations, MountStatsGenerationTest,
                         ::testing::ValuesIn(kGenerations), CaseName<Generation>);

TEST(MountStatsParseTest, ReadsEachFieldFromItsPlace) {
  auto result = ParseMountStats(kGenerations[5].text, "mountstats");
  ASSERT_TRUE(result.ok()) << result.error().message;
  const NfsMount& m = result->front();
  EXPECT_EQ(m.server, "10.0.0.2");
  EXPECT_EQ(m.export_path, "/rdma");
  EXPECT_EQ(m.mount_point, "/mnt/rdma");
  EXPECT_EQ(m.fstype, "nfs4");
  EXPECT_EQ(m.stat_version, "1.1");
  EXPECT_EQ(m.Option("rsize"), "1048576");
  EXPECT_EQ(m.Option("hard"), "");
  EXPECT_EQ(m.Option("nconnect"), std::nullopt);
  ASSERT_TRUE(m.bytes.has_value());
  EXPECT_EQ(m.bytes->server_read, 4096u);
  EXPECT_EQ(m.bytes->server_write, 8192u);
  EXPECT_EQ(m.bytes->write_pages, 2u);
  const NfsTransportStats& t = m.transports.front();
  EXPECT_EQ(t.connect_count, 1u);
  EXPECT_EQ(t.request_queue_sum, 1800u);
  const NfsRdmaStats& r = *t.rdma;
  EXPECT_EQ(r.read_chunks, 11u);
  EXPECT_EQ(r.write_chunks, 12u);
  EXPECT_EQ(r.reply_chunks, 13u);
  EXPECT_EQ(r.request_chunk_bytes, 8192u);
  EXPECT_EQ(r.reply_chunk_bytes, 4096u);
  EXPECT_EQ(r.pullup_copy_bytes, 5u);
  EXPECT_EQ(r.fixup_copy_bytes, 6u);
  EXPECT_EQ(r.hardway_register_bytes, 7u);
  EXPECT_EQ(r.nomsg_calls, 1u);
  EXPECT_EQ(r.mrs_allocated, 64u);
  EXPECT_EQ(r.local_inv_needed, 3u);
  EXPECT_EQ(r.empty_sendctx_q, 9u);
  EXPECT_EQ(r.reply_waits_for_send, 2u);
  const NfsOperationStats& op = m.operations.front();
  EXPECT_EQ(op.operations, 11u);
  EXPECT_EQ(op.bytes_sent, 9000u);
  EXPECT_EQ(op.bytes_received, 1100u);
  EXPECT_EQ(op.rtt_ms, 30u);
  EXPECT_EQ(op.execute_ms, 31u);
  EXPECT_EQ(op.errors, 0u);
}

TEST(MountStatsParseTest, UdpHasNoConnectionFields) {
  auto result = ParseMountStats(kGenerations[3].text, "mountstats");
  ASSERT_TRUE(result.ok()) << result.error().message;
  const NfsTransportStats& t = result->front().transports.front();
  EXPECT_EQ(t.connect_count, 0u);
  EXPECT_EQ(t.sends, 6428u);
  EXPECT_EQ(t.receives, 6428u);
  EXPECT_EQ(t.request_queue_sum, 12154u);
  EXPECT_EQ(t.max_slots, 24u);
  EXPECT_EQ(t.pending_queue_sum, 5726u);
}

TEST(MountStatsParseTest, SkipsOtherFilesystemsAndDecodesEscapes) {
  auto result = ParseMountStats(
      "device rootfs mounted on / with fstype rootfs\n"
      "device proc mounted on /proc with fstype proc\n"
      "device [fd00::20]:/a\\040b mounted on /mnt/with\\040space with fstype nfs4 statvers=1.1\n"
      "\topts:\trw,vers=4.1,proto=tcp6\n"
      "device tmpfs mounted on /run with fstype tmpfs\n",
      "mountstats");
  ASSERT_TRUE(result.ok()) << result.error().message;
  ASSERT_EQ(result->size(), 1u);
  EXPECT_EQ(result->front().server, "fd00::20");
  EXPECT_EQ(result->front().export_path, "/a b");
  EXPECT_EQ(result->front().mount_point, "/mnt/with space");
  EXPECT_TRUE(result->front().transports.empty());
}

TEST(MountStatsParseTest, TheFixtureNodeHasAnRdmaAndANconnectMount) {
  std::ifstream in(std::string(FABRIC_SOURCE_DIR) +
                   "/tests/fixtures/nfs-rdma/proc/self/mountstats");
  std::stringstream text;
  text << in.rdbuf();
  auto result = ParseMountStats(text.str(), "mountstats");
  ASSERT_TRUE(result.ok()) << result.error().message;
  ASSERT_EQ(result->size(), 2u);
  EXPECT_EQ((*result)[0].transports.front().protocol, "rdma");
  EXPECT_EQ((*result)[0].Option("rsize"), "1048576");
  EXPECT_EQ((*result)[1].transports.size(), 4u);
}

TEST(MountStatsParseTest, EmptyFileIsNoMounts) {
  auto result = ParseMountStats("", "mountstats");
  ASSERT_TRUE(result.ok());
  EXPECT_TRUE(result->empty());
}

struct Broken {
  const char* name;
  const char* text;
  const char* message_part;
};

const Broken kBroken[] = {
    {"device line cut short", "device srv:/x mounted on\n",
     "mountstats:1: expected \"device DEV mounted on MOUNT"},
    {"unknown statvers", "device srv:/x mounted on /x with fstype nfs statvers=2.0\n",
     "mountstats:1: unknown statvers"},
    {"short bytes line",
     "device srv:/x mounted on /x with fstype nfs statvers=1.1\n\tbytes:\t1 2 3\n",
     "mountstats:2: bytes: expected 8 numbers, got 3"},
    {"tcp line of the wrong length",
     "device srv:/x mounted on /x with fstype nfs statvers=1.1\n"
     "\txprt:\ttcp 1 2 3 4 5 6 7 8 9 10\n",
     "mountstats:2: xprt tcp (statvers=1.1): expected 13 numbers, got 10"},
    {"rdma line too short",
     "device srv:/x mounted on /x with fstype nfs statvers=1.1\n\txprt:\trdma 1 2 3\n",
     "mountstats:2: xprt rdma: expected 20 to 27 numbers, got 3"},
    {"unknown transport",
     "device srv:/x mounted on /x with fstype nfs statvers=1.1\n\txprt:\tsctp 1 2 3\n",
     "mountstats:2: xprt: unknown transport"},
    {"not a number in an op",
     "device srv:/x mounted on /x with fstype nfs statvers=1.1\n\tper-op statistics\n"
     "\t  READ: 1 2 x 4 5 6 7 8\n",
     "mountstats:3: READ: not a number: \"x\""},
    {"op of the wrong length",
     "device srv:/x mounted on /x with fstype nfs statvers=1.1\n\tper-op statistics\n"
     "\t  READ: 1 2 3\n",
     "mountstats:3: READ: expected 8 or 9 numbers, got 3"},
    {"bad age", "device srv:/x mounted on /x with fstype nfs statvers=1.1\n\tage:\tsoon\n",
     "mountstats:2: age:"},
};

class MountStatsBrokenTest : public ::testing::TestWithParam<Broken> {};

TEST_P(MountStatsBrokenTest, FailsWithFileLineAndReason) {
  auto result = ParseMountStats(GetParam().text, "mountstats");
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error().message.find(GetParam().message_part), std::string::npos)
      << result.error().message;
}

INSTANTIATE_TEST_SUITE_P(BrokenInputs, MountStatsBrokenTest, ::testing::ValuesIn(kBroken),
                         CaseName<Broken>);

TEST(FstabParseTest, ReadsTheOptionsAskedFor) {
  auto result = ParseFstab(
      "# comment\n"
      "UUID=1234 / ext4 defaults 0 1\n"
      "\n"
      "10.10.0.20:/backup /mnt/with\\040space nfs4 rsize=4194304,wsize=4194304,hard 0 0 # end\n",
      "fstab");
  ASSERT_TRUE(result.ok()) << result.error().message;
  ASSERT_EQ(result->size(), 2u);
  const FstabEntry& e = (*result)[1];
  EXPECT_EQ(e.source, "10.10.0.20:/backup");
  EXPECT_EQ(e.mount_point, "/mnt/with space");
  EXPECT_EQ(e.fstype, "nfs4");
  EXPECT_EQ(FindMountOption(e.options, "rsize"), "4194304");
  EXPECT_EQ(FindMountOption(e.options, "hard"), "");
}

TEST(FstabParseTest, TheLastOfARepeatedOptionApplies) {
  auto options = ParseMountOptions("rsize=65536,,rsize=1048576");
  EXPECT_EQ(options.size(), 2u);
  EXPECT_EQ(FindMountOption(options, "rsize"), "1048576");
}

TEST(FstabParseTest, AShortLineNamesFileAndLine) {
  auto result = ParseFstab("/dev/sda1 / ext4 defaults\nbroken line\n", "fstab");
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error().message.find("fstab:2: expected"), std::string::npos)
      << result.error().message;
}

}  // namespace
}  // namespace fabric
