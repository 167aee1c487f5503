#include "exporter/http/basic_auth.h"

#include <crypt.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/sha.h>

#include <memory>
#include <optional>
#include <vector>

namespace fabric {
namespace {

constexpr size_t kMaxCachedCredentials = 1024;

// Strict RFC 4648 base64: EVP_DecodeBlock alone also takes '=' inside the
// text (as zero bits) and surrounding whitespace, so text that is not the
// base64 of the credentials would still decode to them.
std::optional<std::string> DecodeBase64(std::string_view in) {
  if (in.empty() || in.size() % 4 != 0 || in.size() > 4096) return std::nullopt;
  size_t data_end = in.size();
  while (data_end > in.size() - 2 && in[data_end - 1] == '=') --data_end;
  for (size_t i = 0; i < data_end; ++i) {
    char c = in[i];
    bool alphabet = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                    c == '+' || c == '/';
    if (!alphabet) return std::nullopt;
  }
  std::vector<unsigned char> out(in.size() / 4 * 3 + 1);
  int n = EVP_DecodeBlock(out.data(), reinterpret_cast<const unsigned char*>(in.data()),
                          static_cast<int>(in.size()));
  if (n < 0) return std::nullopt;
  // EVP_DecodeBlock counts padding as zero bytes; drop them.
  size_t len = static_cast<size_t>(n);
  if (in.back() == '=') --len;
  if (in.size() >= 2 && in[in.size() - 2] == '=') --len;
  return std::string(reinterpret_cast<const char*>(out.data()), len);
}

std::string Sha256(std::string_view a, std::string_view b) {
  std::string input(a);
  input.push_back('\0');
  input.append(b);
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(input.data()), input.size(), digest);
  OPENSSL_cleanse(input.data(), input.size());
  return std::string(reinterpret_cast<const char*>(digest), sizeof digest);
}

}  // namespace

BasicAuthenticator::BasicAuthenticator(std::map<std::string, std::string> users)
    : users_(std::move(users)) {}

bool BasicAuthenticator::VerifyBcrypt(const std::string& password, const std::string& hash) const {
  auto data = std::make_unique<crypt_data>();  // ~32 KiB: not on the stack.
  const char* computed = crypt_r(password.c_str(), hash.c_str(), data.get());
  if (computed == nullptr || computed[0] == '*') return false;
  std::string_view result(computed);
  return result.size() == hash.size() &&
         CRYPTO_memcmp(result.data(), hash.data(), hash.size()) == 0;
}

bool BasicAuthenticator::Check(std::string_view authorization) {
  constexpr std::string_view kScheme = "Basic ";
  if (authorization.substr(0, kScheme.size()) != kScheme) return false;
  auto decoded = DecodeBase64(authorization.substr(kScheme.size()));
  if (!decoded) return false;
  auto colon = decoded->find(':');
  if (colon == std::string::npos) return false;
  // crypt_r() reads the password as a C string: "secret\0anything" would pass
  // as "secret". No user name or password of the web config holds a NUL.
  bool has_nul = decoded->find('\0') != std::string::npos;
  std::string user = decoded->substr(0, colon);
  std::string password = decoded->substr(colon + 1);
  OPENSSL_cleanse(decoded->data(), decoded->size());
  if (has_nul) {
    OPENSSL_cleanse(password.data(), password.size());
    return false;
  }
  auto it = users_.find(user);
  if (it == users_.end()) {
    // Spend the same time as for a known user so timing does not reveal
    // which user names exist.
    VerifyBcrypt(password, "$2b$10$abcdefghijklmnopqrstuuj7m4XYqbm74SxoBcXyw8to0CQ061DVG");
    return false;
  }
  std::string key = Sha256(user, password);
  {
    std::lock_guard<std::mutex> lock(cache_mutex_);
    if (verified_.count(key) > 0) return true;
  }
  bool ok = VerifyBcrypt(password, it->second);
  OPENSSL_cleanse(password.data(), password.size());
  if (ok) {
    std::lock_guard<std::mutex> lock(cache_mutex_);
    if (verified_.size() >= kMaxCachedCredentials) verified_.clear();
    verified_.insert(key);
  }
  return ok;
}

}  // namespace fabric
