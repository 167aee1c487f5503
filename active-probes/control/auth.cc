#include "active-probes/control/auth.h"

#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <sys/stat.h>

#include <array>
#include <cerrno>
#include <cstring>

#include "common/unique_fd.h"

namespace fabric::probe {
namespace {

std::string Hex(const unsigned char* data, size_t len) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(len * 2);
  for (size_t i = 0; i < len; ++i) {
    out += kDigits[data[i] >> 4];
    out += kDigits[data[i] & 0xf];
  }
  return out;
}

}  // namespace

Result<std::string> LoadSecretFile(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) {
    return MakeError("secret file " + path + ": " + std::strerror(errno));
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return MakeError("secret file " + path + ": fstat failed");
  if ((st.st_mode & S_IROTH) != 0) {
    return MakeError("secret file " + path + " is readable by others; chmod o-r it");
  }
  std::string secret;
  std::array<char, 4096> buf{};
  for (;;) {
    ssize_t n = ::read(fd.get(), buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return MakeError("secret file " + path + ": " + std::strerror(errno));
    if (n == 0) break;
    secret.append(buf.data(), static_cast<size_t>(n));
    if (secret.size() > 4096) return MakeError("secret file " + path + " is over 4096 bytes");
  }
  while (!secret.empty() && (secret.back() == '\n' || secret.back() == '\r')) secret.pop_back();
  if (secret.size() < 16) {
    return MakeError("secret file " + path + " holds under 16 bytes; use a longer secret");
  }
  return secret;
}

std::string MakeNonce() {
  std::array<unsigned char, 16> bytes{};
  if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1) {
    // Without randomness challenge-response is replayable; refuse to go on.
    std::abort();
  }
  return Hex(bytes.data(), bytes.size());
}

std::string ComputeMac(std::string_view secret, std::string_view role,
                       std::string_view server_nonce, std::string_view client_nonce) {
  std::string msg = "fabric-probe-v1|";
  msg.append(role).append("|").append(server_nonce).append("|").append(client_nonce);
  std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
  unsigned int md_len = 0;
  HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()),
       reinterpret_cast<const unsigned char*>(msg.data()), msg.size(), md.data(), &md_len);
  return Hex(md.data(), md_len);
}

bool MacEqual(std::string_view a, std::string_view b) {
  return a.size() == b.size() && !a.empty() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace fabric::probe
