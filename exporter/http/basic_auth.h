// HTTP basic auth against bcrypt hashes from the web config file.
#pragma once

#include <map>
#include <mutex>
#include <set>
#include <string>
#include <string_view>

namespace fabric {

class BasicAuthenticator {
 public:
  // `users` maps user names to bcrypt hashes; empty disables authentication.
  explicit BasicAuthenticator(std::map<std::string, std::string> users);

  bool enabled() const { return !users_.empty(); }

  // True if `authorization` (an Authorization header value, may be empty)
  // carries a known user with the right password.
  bool Check(std::string_view authorization);

 private:
  bool VerifyBcrypt(const std::string& password, const std::string& hash) const;

  const std::map<std::string, std::string> users_;
  // bcrypt costs tens of milliseconds by design; a scrape every 15 s must not
  // pay that each time, so successful (user, password) pairs are remembered
  // by their SHA-256 (never in plain text).
  std::mutex cache_mutex_;
  std::set<std::string> verified_;
};

}  // namespace fabric
