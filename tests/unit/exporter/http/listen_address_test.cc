#include "exporter/http/listen_address.h"

#include <gtest/gtest.h>

namespace fabric {
namespace {

TEST(ListenAddressTest, TranslatesPrometheusStyle) {
  EXPECT_EQ(*ToCivetListeningPort("127.0.0.1:9877"), "127.0.0.1:9877");
  EXPECT_EQ(*ToCivetListeningPort(":9877"), "9877");
  EXPECT_EQ(*ToCivetListeningPort("[::1]:9877"), "[::1]:9877");
  EXPECT_EQ(*ToCivetListeningPort("127.0.0.1:0"), "127.0.0.1:0");
}

TEST(ListenAddressTest, RejectsWhatCivetwebCannotBind) {
  EXPECT_FALSE(ToCivetListeningPort("9877").ok());
  EXPECT_FALSE(ToCivetListeningPort("localhost:9877").ok());
  EXPECT_FALSE(ToCivetListeningPort("127.0.0.1:99999").ok());
  EXPECT_FALSE(ToCivetListeningPort("[::1:9877").ok());
  EXPECT_FALSE(ToCivetListeningPort("1.2.3:80").ok());
}

}  // namespace
}  // namespace fabric
