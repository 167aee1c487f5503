// Shared-secret session authentication for the probe responder: an HMAC-SHA256
// challenge-response in both directions, so neither side learns anything from
// a peer that does not hold the secret and the secret never crosses the wire.
#pragma once

#include <string>
#include <string_view>

#include "common/result.h"

namespace fabric::probe {

// Reads a secret from a file. The secret never appears as a flag value (it
// would be visible in `ps` and shell history); the file must not be readable
// by others and must hold at least 16 bytes after trimming a trailing newline.
Result<std::string> LoadSecretFile(const std::string& path);

// 16 random bytes from the OpenSSL CSPRNG, as 32 lowercase hex digits.
std::string MakeNonce();

// Hex HMAC-SHA256 over "fabric-probe-v1|ROLE|SERVER_NONCE|CLIENT_NONCE". The
// role ("client" or "server") keeps one side's answer from being replayed as
// the other's.
std::string ComputeMac(std::string_view secret, std::string_view role,
                       std::string_view server_nonce, std::string_view client_nonce);

// Constant-time comparison of two hex MACs.
bool MacEqual(std::string_view a, std::string_view b);

}  // namespace fabric::probe
