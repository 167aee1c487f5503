// The verbs backend's pure helpers, and its behaviour on a host without an
// RDMA device: errors, never a crash. Built only with FABRIC_WITH_VERBS.
#include <arpa/inet.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "active-probes/rdma/backend.h"
#include "active-probes/rdma/verbs_handles.h"

namespace fabric::probe {
namespace {

TEST(VerbsHelpers, MtuConversions) {
  EXPECT_EQ(verbs::MtuBytes(IBV_MTU_256), 256u);
  EXPECT_EQ(verbs::MtuBytes(IBV_MTU_4096), 4096u);
  EXPECT_EQ(verbs::MtuEnum(4096), IBV_MTU_4096);
  EXPECT_EQ(verbs::MtuEnum(9000), IBV_MTU_4096);  // RoCE caps at 4096
  EXPECT_EQ(verbs::MtuEnum(1500), IBV_MTU_1024);  // a 1500-byte netdev carries 1024
  EXPECT_EQ(verbs::MtuEnum(2048), IBV_MTU_2048);
  EXPECT_EQ(verbs::MtuEnum(100), IBV_MTU_256);
}

TEST(VerbsHelpers, WithPortUnmapsIpv4) {
  sockaddr_storage ss{};
  auto* in6 = reinterpret_cast<sockaddr_in6*>(&ss);
  in6->sin6_family = AF_INET6;
  ASSERT_EQ(inet_pton(AF_INET6, "::ffff:198.18.7.1", &in6->sin6_addr), 1);
  auto out = verbs::WithPort(ss, 4791);
  ASSERT_EQ(out.ss_family, AF_INET);
  const auto* in4 = reinterpret_cast<const sockaddr_in*>(&out);
  char text[INET_ADDRSTRLEN];
  inet_ntop(AF_INET, &in4->sin_addr, text, sizeof(text));
  EXPECT_STREQ(text, "198.18.7.1");
  EXPECT_EQ(ntohs(in4->sin_port), 4791);
}

TEST(VerbsBackend, NoDeviceIsAnErrorNotACrash) {
  ASSERT_TRUE(RdmaBuiltWithVerbs());
  if (std::filesystem::exists("/sys/class/infiniband") &&
      !std::filesystem::is_empty("/sys/class/infiniband")) {
    GTEST_SKIP() << "this host has RDMA devices";
  }
  sockaddr_storage local{};
  auto* in4 = reinterpret_cast<sockaddr_in*>(&local);
  in4->sin_family = AF_INET;
  in4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  auto target = DefaultRdmaBackend().NewTarget();
  ASSERT_TRUE(target.ok());
  RdmaTargetRequest req;
  req.local = local;
  req.peer = local;
  req.qps = 1;
  req.region_bytes = 4096;
  req.token = std::string(32, 'a');
  auto region = (*target)->Prepare(req);
  ASSERT_FALSE(region.ok());
  EXPECT_EQ(region.error().message.rfind("no-device:", 0), 0u) << region.error().message;

  auto init = DefaultRdmaBackend().NewInitiator();
  ASSERT_TRUE(init.ok());
  RdmaInitiatorRequest ireq;
  ireq.local = local;
  ireq.peer = local;
  ireq.qps = 1;
  ireq.size = 4096;
  ireq.tx_depth = 4;
  ireq.remote.cm_port = 1;
  ireq.timeout = std::chrono::milliseconds(200);
  auto info = (*init)->Connect(ireq);
  ASSERT_FALSE(info.ok());
  EXPECT_EQ(info.error().message.rfind("no-device:", 0), 0u) << info.error().message;
}

}  // namespace
}  // namespace fabric::probe
