#include "common/parse/rdma_netlink_parse.h"

#include <gtest/gtest.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>

#include <fstream>
#include <sstream>
#include <string>

#include "tests/unit/common/parse/netlink_reply.h"

namespace fabric {
namespace {

using testing::NlAttrs;

const std::string kDumps = std::string(FABRIC_SOURCE_DIR) + "/tests/fixtures/nics/rdma-netlink/";

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string Message(uint16_t command, const NlAttrs& attributes, uint16_t flags = NLM_F_MULTI) {
  nlmsghdr h{};
  h.nlmsg_len = static_cast<uint32_t>(NLMSG_HDRLEN + attributes.bytes().size());
  h.nlmsg_type = static_cast<uint16_t>(RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, command));
  h.nlmsg_flags = flags;
  std::string out(reinterpret_cast<const char*>(&h), sizeof h);
  return out + attributes.bytes();
}

std::string Done() {
  nlmsghdr h{};
  h.nlmsg_len = NLMSG_HDRLEN + sizeof(int);
  h.nlmsg_type = NLMSG_DONE;
  std::string out(reinterpret_cast<const char*>(&h), sizeof h);
  return out.append(sizeof(int), '\0');
}

std::string QpDump(const NlAttrs& entry) {
  NlAttrs table;
  table.Nest(RDMA_NLDEV_ATTR_RES_QP_ENTRY, entry);
  NlAttrs message;
  message.PutU32(RDMA_NLDEV_ATTR_DEV_INDEX, 4).PutString(RDMA_NLDEV_ATTR_DEV_NAME, "rxe0");
  message.Nest(RDMA_NLDEV_ATTR_RES_QP, table);
  return Message(RDMA_NLDEV_CMD_RES_QP_GET, message);
}

TEST(RdmaNetlinkParseTest, DeviceDump) {
  std::vector<RdmaDeviceRecord> devices;
  bool done = false;
  ASSERT_TRUE(ParseRdmaDeviceBuffer(ReadBytes(kDumps + "devices.nl"), devices, done).ok());
  EXPECT_TRUE(done);
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_EQ(devices[0].index, 1u);
  EXPECT_EQ(devices[0].name, "mlx5_0");
  EXPECT_EQ(devices[1].index, 3u);
  EXPECT_EQ(devices[1].name, "mlx5_2");
}

TEST(RdmaNetlinkParseTest, RecordedQueuePairDump) {
  std::vector<RdmaQpRecord> qps;
  bool done = false;
  ASSERT_TRUE(ParseRdmaQpBuffer(ReadBytes(kDumps + "mlx5_0.qp.nl"), qps, done).ok());
  EXPECT_TRUE(done);
  ASSERT_EQ(qps.size(), 12u);
  // QP1, the GSI QP of the kernel's MAD layer.
  EXPECT_EQ(qps[0].device, "mlx5_0");
  EXPECT_EQ(qps[0].lqpn, 1u);
  EXPECT_EQ(RdmaQpTypeName(qps[0].type), "GSI");
  EXPECT_EQ(qps[0].owner.kernel_name, "ib_core");
  EXPECT_FALSE(qps[0].owner.pid);
  EXPECT_FALSE(qps[0].rqpn);
  // A connected RC QP of NFS over RDMA.
  EXPECT_EQ(qps[1].lqpn, 264u);
  EXPECT_EQ(qps[1].rqpn, 1185u);
  EXPECT_EQ(qps[1].port, 1u);
  EXPECT_EQ(RdmaQpStateName(qps[1].state), "RTS");
  EXPECT_EQ(qps[1].owner.kernel_name, "rpcrdma");
  // A user QP in error.
  EXPECT_EQ(qps[8].lqpn, 304u);
  EXPECT_EQ(RdmaQpStateName(qps[8].state), "ERR");
  EXPECT_EQ(qps[8].owner.pid, 31337u);
  EXPECT_TRUE(qps[8].owner.kernel_name.empty());
}

TEST(RdmaNetlinkParseTest, QueuePairWithoutPortIsPortZero) {
  std::vector<RdmaQpRecord> qps;
  bool done = false;
  ASSERT_TRUE(ParseRdmaQpBuffer(ReadBytes(kDumps + "mlx5_2.qp.nl"), qps, done).ok());
  ASSERT_EQ(qps.size(), 4u);
  EXPECT_EQ(RdmaQpTypeName(qps[0].type), "SMI");  // QP0: an InfiniBand port's.
  EXPECT_EQ(qps[3].lqpn, 401u);
  EXPECT_EQ(qps[3].port, 0u);
  EXPECT_EQ(RdmaQpStateName(qps[3].state), "RESET");
}

TEST(RdmaNetlinkParseTest, RecordedCmIdDump) {
  std::vector<RdmaCmIdRecord> ids;
  bool done = false;
  ASSERT_TRUE(ParseRdmaCmIdBuffer(ReadBytes(kDumps + "mlx5_0.cm_id.nl"), ids, done).ok());
  EXPECT_TRUE(done);
  ASSERT_EQ(ids.size(), 5u);
  EXPECT_EQ(ids[0].lqpn, 264u);
  EXPECT_EQ(RdmaCmStateName(ids[0].state), "CONNECT");
  EXPECT_EQ(RdmaPortSpaceName(ids[0].port_space), "TCP");
  ASSERT_TRUE(ids[0].source && ids[0].destination);
  EXPECT_EQ(ids[0].source->address.ToString(), "198.18.0.1");
  EXPECT_EQ(ids[0].destination->address.ToString(), "198.18.0.2");
  EXPECT_EQ(ids[0].destination->port, 20049);
  // IPv6, a user process.
  ASSERT_TRUE(ids[3].destination);
  EXPECT_EQ(ids[3].destination->address.ToString(), "2001:db8::7");
  EXPECT_EQ(ids[3].destination->port, 18515);
  EXPECT_EQ(ids[3].owner.pid, 7001u);
  // A listener: no QP, no destination.
  EXPECT_EQ(RdmaCmStateName(ids[4].state), "LISTEN");
  EXPECT_FALSE(ids[4].lqpn);
  EXPECT_FALSE(ids[4].destination);
}

TEST(RdmaNetlinkParseTest, EmptyDumpIsDoneAlone) {
  std::vector<RdmaCmIdRecord> ids;
  bool done = false;
  ASSERT_TRUE(ParseRdmaCmIdBuffer(ReadBytes(kDumps + "mlx5_2.cm_id.nl"), ids, done).ok());
  EXPECT_TRUE(done);
  EXPECT_TRUE(ids.empty());
}

TEST(RdmaNetlinkParseTest, UnknownAttributesAreSkipped) {
  NlAttrs entry;
  entry.PutU32(RDMA_NLDEV_ATTR_RES_LQPN, 17).PutU32(999, 5).PutU8(RDMA_NLDEV_ATTR_RES_TYPE, 2);
  entry.PutU32(RDMA_NLDEV_ATTR_RES_PID, 12);
  std::vector<RdmaQpRecord> qps;
  bool done = false;
  ASSERT_TRUE(ParseRdmaQpBuffer(QpDump(entry) + Done(), qps, done).ok());
  ASSERT_EQ(qps.size(), 1u);
  EXPECT_EQ(qps[0].device, "rxe0");
  EXPECT_EQ(qps[0].lqpn, 17u);
  EXPECT_EQ(RdmaQpTypeName(qps[0].type), "RC");
  EXPECT_EQ(qps[0].owner.pid, 12u);
}

TEST(RdmaNetlinkParseTest, EnumNamesOutsideTheTablesAreNumbers) {
  EXPECT_EQ(RdmaQpTypeName(7), "7");
  EXPECT_EQ(RdmaQpTypeName(0xff), "DRIVER");
  EXPECT_EQ(RdmaQpStateName(9), "9");
  EXPECT_EQ(RdmaCmStateName(200), "200");
  EXPECT_EQ(RdmaPortSpaceName(0x999), "2457");
}

TEST(RdmaNetlinkParseTest, TruncatedMessageFails) {
  std::string dump = ReadBytes(kDumps + "mlx5_0.qp.nl");
  std::vector<RdmaQpRecord> qps;
  bool done = false;
  Status s = ParseRdmaQpBuffer(dump.substr(0, dump.size() / 2), qps, done);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("truncated"), std::string::npos) << s.error().message;
}

TEST(RdmaNetlinkParseTest, EntryWithoutQpNumberFails) {
  NlAttrs entry;
  entry.PutU8(RDMA_NLDEV_ATTR_RES_TYPE, 2);
  std::vector<RdmaQpRecord> qps;
  bool done = false;
  Status s = ParseRdmaQpBuffer(QpDump(entry), qps, done);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("rxe0"), std::string::npos);
}

TEST(RdmaNetlinkParseTest, MessageWithoutDeviceOrTableFails) {
  NlAttrs no_name;
  no_name.PutU32(RDMA_NLDEV_ATTR_DEV_INDEX, 1);
  std::vector<RdmaQpRecord> qps;
  bool done = false;
  EXPECT_FALSE(ParseRdmaQpBuffer(Message(RDMA_NLDEV_CMD_RES_QP_GET, no_name), qps, done).ok());
  NlAttrs no_table;
  no_table.PutU32(RDMA_NLDEV_ATTR_DEV_INDEX, 1).PutString(RDMA_NLDEV_ATTR_DEV_NAME, "mlx5_0");
  EXPECT_FALSE(ParseRdmaQpBuffer(Message(RDMA_NLDEV_CMD_RES_QP_GET, no_table), qps, done).ok());
  std::vector<RdmaDeviceRecord> devices;
  EXPECT_FALSE(ParseRdmaDeviceBuffer(Message(RDMA_NLDEV_CMD_GET, no_name), devices, done).ok());
}

TEST(RdmaNetlinkParseTest, KernelErrorFails) {
  // What a kernel without the resource command answers: NLMSG_ERROR -EOPNOTSUPP.
  nlmsghdr h{};
  h.nlmsg_len = NLMSG_HDRLEN + sizeof(nlmsgerr);
  h.nlmsg_type = NLMSG_ERROR;
  nlmsgerr e{};
  e.error = -95;
  std::string reply(reinterpret_cast<const char*>(&h), sizeof h);
  reply.append(reinterpret_cast<const char*>(&e), sizeof e);
  std::vector<RdmaCmIdRecord> ids;
  bool done = false;
  EXPECT_FALSE(ParseRdmaCmIdBuffer(reply, ids, done).ok());
}

TEST(RdmaNetlinkParseTest, GarbageFailsWithoutReadingPastTheBuffer) {
  std::vector<RdmaQpRecord> qps;
  bool done = false;
  EXPECT_FALSE(ParseRdmaQpBuffer(std::string(37, '\x7f'), qps, done).ok());
  // A message whose table length runs past the message: the nest is skipped.
  std::string dump = ReadBytes(kDumps + "mlx5_2.qp.nl");
  dump[36] = '\xff';  // The RES_QP table's nla_len low byte.
  dump[37] = '\x7f';
  EXPECT_FALSE(ParseRdmaQpBuffer(dump, qps, done).ok());
}

}  // namespace
}  // namespace fabric
