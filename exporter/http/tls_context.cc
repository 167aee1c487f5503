#include "exporter/http/tls_context.h"

#include <openssl/err.h>

namespace fabric {
namespace {

std::string OpenSslError(const std::string& what) {
  std::string message = what;
  while (unsigned long err = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(err, buf, sizeof buf);
    message += ": ";
    message += buf;
  }
  return message;
}

// For RequestClientCert / RequireAnyClientCert: ask for a certificate but do
// not judge it (the toolkit's semantics).
int AcceptAnyCertificate(int, X509_STORE_CTX*) { return 1; }

}  // namespace

Status ConfigureTlsContext(SSL_CTX* ctx, const TlsServerConfig& config) {
  ERR_clear_error();
  if (SSL_CTX_use_certificate_chain_file(ctx, config.cert_file.c_str()) != 1) {
    return MakeError(OpenSslError("loading certificate " + config.cert_file));
  }
  if (SSL_CTX_use_PrivateKey_file(ctx, config.key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
    return MakeError(OpenSslError("loading private key " + config.key_file + " (is it the key of " +
                                  config.cert_file + "?)"));
  }
  if (SSL_CTX_check_private_key(ctx) != 1) {
    return MakeError(
        OpenSslError("key " + config.key_file + " does not match certificate " + config.cert_file));
  }
  if (config.min_version != 0 && SSL_CTX_set_min_proto_version(ctx, config.min_version) != 1) {
    return MakeError(OpenSslError("setting the minimum TLS version"));
  }
  if (config.max_version != 0 && SSL_CTX_set_max_proto_version(ctx, config.max_version) != 1) {
    return MakeError(OpenSslError("setting the maximum TLS version"));
  }
  if (!config.client_ca_file.empty() &&
      SSL_CTX_load_verify_locations(ctx, config.client_ca_file.c_str(), nullptr) != 1) {
    return MakeError(OpenSslError("loading client CA " + config.client_ca_file));
  }
  switch (config.client_auth) {
    case ClientAuth::kNoClientCert:
      SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nullptr);
      break;
    case ClientAuth::kRequestClientCert:
      SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, &AcceptAnyCertificate);
      break;
    case ClientAuth::kRequireAnyClientCert:
      SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT,
                         &AcceptAnyCertificate);
      break;
    case ClientAuth::kVerifyClientCertIfGiven:
      SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
      break;
    case ClientAuth::kRequireAndVerifyClientCert:
      SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
      break;
  }
  return OkStatus();
}

}  // namespace fabric
