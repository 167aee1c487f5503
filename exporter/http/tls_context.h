// Configures the OpenSSL context civetweb hands us from the web config's
// tls_server_config (certificate, key, client CA, client-auth policy, versions).
#pragma once

#include <openssl/ssl.h>

#include "common/result.h"
#include "exporter/http/web_config.h"

namespace fabric {

Status ConfigureTlsContext(SSL_CTX* ctx, const TlsServerConfig& config);

}  // namespace fabric
