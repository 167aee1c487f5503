#include "common/parse/nvme_address_parse.h"

#include <gtest/gtest.h>

#include <string>

namespace fabric {
namespace {

TEST(NvmeAddressParseTest, ReadsRdmaTcpAndFcAddresses) {
  auto rdma = ParseNvmeAddress("traddr=10.10.0.20,trsvcid=4420\n", "address");
  ASSERT_TRUE(rdma.ok()) << rdma.error().message;
  EXPECT_EQ(rdma->traddr, "10.10.0.20");
  EXPECT_EQ(rdma->trsvcid, "4420");
  EXPECT_EQ(rdma->src_addr, "");

  auto tcp = ParseNvmeAddress("traddr=fd00::21,trsvcid=4420,src_addr=fd00::11", "address");
  ASSERT_TRUE(tcp.ok()) << tcp.error().message;
  EXPECT_EQ(tcp->traddr, "fd00::21");
  EXPECT_EQ(tcp->src_addr, "fd00::11");

  auto fc = ParseNvmeAddress(
      "traddr=nn-0x200000109b579ef3:pn-0x100000109b579ef3,"
      "host_traddr=nn-0x200000109b579ef6:pn-0x100000109b579ef6",
      "address");
  ASSERT_TRUE(fc.ok()) << fc.error().message;
  EXPECT_EQ(fc->traddr, "nn-0x200000109b579ef3:pn-0x100000109b579ef3");
  EXPECT_EQ(fc->trsvcid, "");
  EXPECT_EQ(fc->host_traddr, "nn-0x200000109b579ef6:pn-0x100000109b579ef6");
}

TEST(NvmeAddressParseTest, AnAddressWithoutTraddrIsAnError) {
  auto r = ParseNvmeAddress("trsvcid=4420", "ctl/nvme1/address");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("ctl/nvme1/address: no traddr"), std::string::npos);
}

}  // namespace
}  // namespace fabric
