// The Prometheus exporter-toolkit web configuration file (--web.config.file):
// TLS for the metrics endpoint and HTTP basic auth with bcrypt-hashed
// passwords, in the same YAML format every Prometheus exporter reads, so one
// file serves node_exporter and fabric_exporter alike.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "exporter/config/config_node.h"

namespace fabric {

enum class ClientAuth {
  kNoClientCert,
  kRequestClientCert,
  kRequireAnyClientCert,
  kVerifyClientCertIfGiven,
  kRequireAndVerifyClientCert,
};

struct TlsServerConfig {
  std::string cert_file;
  std::string key_file;
  std::string client_ca_file;  // Empty: none.
  ClientAuth client_auth = ClientAuth::kNoClientCert;
  // OpenSSL protocol versions (TLS1_2_VERSION, ...); 0 means the library's
  // bound. The toolkit's default minimum is TLS 1.2.
  int min_version = 0;
  int max_version = 0;
};

struct WebConfig {
  std::optional<TlsServerConfig> tls;
  std::map<std::string, std::string> basic_auth_users;  // user -> bcrypt hash
};

// Loads and validates a web config file. Throws ConfigError naming
// file:line:key for unknown keys, wrong types, unknown enum values, unreadable
// certificate files and password entries that are not bcrypt hashes.
WebConfig LoadWebConfig(const std::string& path);
// The same for a file already parsed (tests and the fuzz target use
// ConfigNode::LoadString).
WebConfig ParseWebConfig(const ConfigNode& root);

}  // namespace fabric
