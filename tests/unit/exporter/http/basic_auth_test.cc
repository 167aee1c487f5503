#include "exporter/http/basic_auth.h"

#include <crypt.h>
#include <gtest/gtest.h>

#include <memory>

namespace fabric {
namespace {

std::string Bcrypt(const std::string& password) {
  auto data = std::make_unique<crypt_data>();
  // Cost 4 keeps the test fast; the format is the same as htpasswd -B.
  return crypt_r(password.c_str(), "$2b$04$abcdefghijklmnopqrstuu", data.get());
}

// "Basic " + base64("user:password").
std::string Header(const std::string& b64) { return "Basic " + b64; }

TEST(BasicAuthTest, DisabledWithoutUsers) {
  BasicAuthenticator auth({});
  EXPECT_FALSE(auth.enabled());
}

TEST(BasicAuthTest, AcceptsOnlyTheRightPassword) {
  BasicAuthenticator auth({{"prometheus", Bcrypt("s3cret")}});
  ASSERT_TRUE(auth.enabled());
  EXPECT_TRUE(auth.Check(Header("cHJvbWV0aGV1czpzM2NyZXQ=")));   // prometheus:s3cret
  EXPECT_TRUE(auth.Check(Header("cHJvbWV0aGV1czpzM2NyZXQ=")));   // cached
  EXPECT_FALSE(auth.Check(Header("cHJvbWV0aGV1czpzM2NyZVQ=")));  // prometheus:s3creT
  EXPECT_FALSE(auth.Check(Header("bm9ib2R5OnMzY3JldA==")));      // nobody:s3cret
  EXPECT_FALSE(auth.Check(""));
  EXPECT_FALSE(auth.Check("Bearer cHJvbWV0aGV1czpzM2NyZXQ="));
  EXPECT_FALSE(auth.Check(Header("not base64!")));
  EXPECT_FALSE(auth.Check(Header("bm9jb2xvbg==")));  // "nocolon"
}

TEST(BasicAuthTest, PasswordMayContainColons) {
  BasicAuthenticator auth({{"u", Bcrypt("a:b")}});
  EXPECT_TRUE(auth.Check(Header("dTphOmI=")));  // u:a:b
}

// Found by fuzz_basic_auth: crypt_r() stops at a NUL, so "s3cret\0junk" was
// accepted as "s3cret", and base64 with '=' inside decoded (to a NUL).
TEST(BasicAuthTest, RejectsNulInCredentialsAndPaddingInside) {
  BasicAuthenticator auth({{"prometheus", Bcrypt("s3cret")}});
  EXPECT_FALSE(auth.Check(Header("cHJvbWV0aGV1czpzM2NyZXQAeA==")));  // prometheus:s3cret\0x
  EXPECT_FALSE(auth.Check(Header("cHJvbWV0aGV1czpzM2NyZXQ=cHJvbWY0aGV1czpzM2NyZXQ=")));
  EXPECT_FALSE(auth.Check(Header(" HJvbWV0aGV1czpzM2NyZXQ=")));
  EXPECT_TRUE(auth.Check(Header("cHJvbWV0aGV1czpzM2NyZXQ=")));
}

}  // namespace
}  // namespace fabric
