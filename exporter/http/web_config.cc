#include "exporter/http/web_config.h"

#include <openssl/ssl.h>
#include <unistd.h>

namespace fabric {
namespace {

void RequireReadableFile(const ConfigNode& section, std::string_view key, const std::string& path) {
  if (::access(path.c_str(), R_OK) != 0) {
    section.Fail(key, "cannot read \"" + path + "\"");
  }
}

int TlsVersion(const ConfigNode& section, std::string_view key) {
  auto value = section.String(key);
  if (!value) return 0;
  if (*value == "TLS10") return TLS1_VERSION;
  if (*value == "TLS11") return TLS1_1_VERSION;
  if (*value == "TLS12") return TLS1_2_VERSION;
  if (*value == "TLS13") return TLS1_3_VERSION;
  section.Fail(key, "expected TLS10, TLS11, TLS12 or TLS13, got \"" + *value + "\"");
}

ClientAuth ParseClientAuth(const ConfigNode& section) {
  auto value = section.String("client_auth_type");
  if (!value || *value == "NoClientCert") return ClientAuth::kNoClientCert;
  if (*value == "RequestClientCert") return ClientAuth::kRequestClientCert;
  if (*value == "RequireAnyClientCert") return ClientAuth::kRequireAnyClientCert;
  if (*value == "VerifyClientCertIfGiven") return ClientAuth::kVerifyClientCertIfGiven;
  if (*value == "RequireAndVerifyClientCert") return ClientAuth::kRequireAndVerifyClientCert;
  section.Fail("client_auth_type",
               "expected NoClientCert, RequestClientCert, RequireAnyClientCert, "
               "VerifyClientCertIfGiven or RequireAndVerifyClientCert, got \"" +
                   *value + "\"");
}

TlsServerConfig ParseTls(const ConfigNode& tls) {
  // The toolkit's cipher_suites, curve_preferences, prefer_server_cipher_suites
  // and client_allowed_sans are rejected rather than silently ignored.
  tls.ExpectMapWithKeys({"cert_file", "key_file", "client_ca_file", "client_auth_type",
                         "min_version", "max_version"});
  TlsServerConfig config;
  auto cert = tls.String("cert_file");
  auto key = tls.String("key_file");
  if (!cert || !key) {
    tls.Fail(cert ? "key_file" : "cert_file", "both cert_file and key_file are required for TLS");
  }
  config.cert_file = *cert;
  config.key_file = *key;
  RequireReadableFile(tls, "cert_file", config.cert_file);
  RequireReadableFile(tls, "key_file", config.key_file);
  config.client_ca_file = tls.String("client_ca_file").value_or("");
  if (!config.client_ca_file.empty()) {
    RequireReadableFile(tls, "client_ca_file", config.client_ca_file);
  }
  config.client_auth = ParseClientAuth(tls);
  bool verifies = config.client_auth == ClientAuth::kVerifyClientCertIfGiven ||
                  config.client_auth == ClientAuth::kRequireAndVerifyClientCert;
  if (verifies && config.client_ca_file.empty()) {
    tls.Fail("client_auth_type", "verifying client certificates needs client_ca_file");
  }
  config.min_version = TlsVersion(tls, "min_version");
  if (config.min_version == 0) config.min_version = TLS1_2_VERSION;
  config.max_version = TlsVersion(tls, "max_version");
  if (config.max_version != 0 && config.max_version < config.min_version) {
    tls.Fail("max_version", "is below min_version");
  }
  return config;
}

}  // namespace

WebConfig LoadWebConfig(const std::string& path) {
  return ParseWebConfig(ConfigNode::LoadFile(path));
}

WebConfig ParseWebConfig(const ConfigNode& root) {
  root.ExpectMapWithKeys({"tls_server_config", "basic_auth_users", "http_server_config"});
  WebConfig config;
  if (ConfigNode tls = root.Child("tls_server_config"); tls.present()) {
    config.tls = ParseTls(tls);
  }
  ConfigNode users = root.Child("basic_auth_users");
  for (const auto& user : users.MapKeys()) {
    auto hash = users.String(user);
    if (!hash || !(hash->rfind("$2a$", 0) == 0 || hash->rfind("$2b$", 0) == 0 ||
                   hash->rfind("$2y$", 0) == 0)) {
      users.Fail(user, "expected a bcrypt hash ($2a$, $2b$ or $2y$), not a plain password");
    }
    config.basic_auth_users[user] = *hash;
  }
  ConfigNode http = root.Child("http_server_config");
  // http2 is accepted for compatibility with the toolkit's files (civetweb
  // serves HTTP/1.1, which Prometheus scrapes use anyway). Extra `headers`
  // cannot be added to prometheus-cpp's /metrics responses, so they are
  // rejected rather than applied to some responses only.
  for (const auto& key : http.MapKeys()) {
    if (key != "http2") http.Fail(key, "not supported by fabric_exporter (only http2 is)");
  }
  http.Bool("http2");
  return config;
}

}  // namespace fabric
