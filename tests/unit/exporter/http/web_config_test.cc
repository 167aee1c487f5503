#include "exporter/http/web_config.h"

#include <gtest/gtest.h>
#include <openssl/ssl.h>

#include "exporter/config/config_node.h"
#include "tests/unit/test_dir.h"

namespace fabric {
namespace {

std::string ErrorOf(const std::string& yaml) {
  testing::TestDir dir;
  auto path = dir.Write("web.yml", yaml);
  try {
    LoadWebConfig(path);
  } catch (const ConfigError& e) {
    std::string msg = e.what();
    return msg.substr(msg.find("web.yml"));
  }
  return "";
}

TEST(WebConfigTest, BasicAuthUsers) {
  testing::TestDir dir;
  auto path = dir.Write("web.yml", "basic_auth_users:\n  alice: $2y$10$abcdefghijklmnopqrstuu\n");
  WebConfig config = LoadWebConfig(path);
  EXPECT_FALSE(config.tls.has_value());
  EXPECT_EQ(config.basic_auth_users.at("alice"), "$2y$10$abcdefghijklmnopqrstuu");
}

TEST(WebConfigTest, TlsDefaultsToTls12AndNoClientCert) {
  testing::TestDir dir;
  auto cert = dir.Write("c.pem", "x");
  auto key = dir.Write("k.pem", "x");
  auto path = dir.Write("web.yml",
                        "tls_server_config:\n  cert_file: " + cert + "\n  key_file: " + key + "\n");
  WebConfig config = LoadWebConfig(path);
  ASSERT_TRUE(config.tls.has_value());
  EXPECT_EQ(config.tls->min_version, TLS1_2_VERSION);
  EXPECT_EQ(config.tls->client_auth, ClientAuth::kNoClientCert);
}

TEST(WebConfigTest, ErrorsNameLineAndKey) {
  EXPECT_EQ(ErrorOf("basic_auth_users:\n  bob: hunter2\n"),
            "web.yml:2:8: key basic_auth_users.bob: expected a bcrypt hash ($2a$, $2b$ or $2y$), "
            "not a plain password");
  EXPECT_EQ(ErrorOf("tls_server_config:\n  cert_file: /a\n"),
            "web.yml:2:3: key tls_server_config.key_file: both cert_file and key_file are "
            "required for TLS");
  EXPECT_EQ(ErrorOf("tls_server_config:\n  cert_file: /a\n  key_file: /b\n  min_version: SSL3\n"),
            "web.yml:2:14: key tls_server_config.cert_file: cannot read \"/a\"");
  EXPECT_EQ(
      ErrorOf("basic_auth_user: {}\n").rfind("web.yml:1:1: key basic_auth_user: unknown key", 0),
      0u);
}

// ParseWebConfig (the fuzz target's entry point) on an in-memory file.
TEST(WebConfigTest, ParseFromString) {
  auto config =
      ParseWebConfig(ConfigNode::LoadString("basic_auth_users:\n  alice: $2y$10$abc\n", "mem.yml"));
  EXPECT_EQ(config.basic_auth_users.at("alice"), "$2y$10$abc");
  EXPECT_FALSE(config.tls);
  EXPECT_THROW(ParseWebConfig(ConfigNode::LoadString("tls_server_config: 3\n", "mem.yml")),
               ConfigError);
}

}  // namespace
}  // namespace fabric
