// The HTTP Authorization header, the only input /metrics reads from a client
// before it is authenticated: scheme, base64, user:password split, bcrypt
// check and the verified-credentials cache. The known user's hash has cost 4
// so a right guess is cheap; an unknown user still pays the cost-10 decoy
// (that is the point of it), so inputs reaching it run at tens per second.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "exporter/http/basic_auth.h"

namespace {

// A strict base64 decoder of the harness's own (RFC 4648, padding only at the
// end), so a bug shared with the code under test cannot hide itself.
std::optional<std::string> Decode(std::string_view in) {
  static constexpr std::string_view kAlphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  uint32_t bits = 0;
  int count = 0;
  size_t end = in.size();
  while (end > 0 && in[end - 1] == '=') --end;
  for (size_t i = 0; i < end; ++i) {
    auto v = kAlphabet.find(in[i]);
    if (v == std::string_view::npos) return std::nullopt;
    bits = (bits << 6) | static_cast<uint32_t>(v);
    count += 6;
    if (count >= 8) {
      count -= 8;
      out.push_back(static_cast<char>((bits >> count) & 0xff));
    }
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Password "s3cret".
  static fabric::BasicAuthenticator* auth =
      new fabric::BasicAuthenticator(std::map<std::string, std::string>{
          {"prometheus", "$2b$04$Eg4oItWVxxywvPfmzku1I.4IM/zHdDAK4z4Z44HU/KRAlauZugAHq"}});
  std::string_view header(reinterpret_cast<const char*>(data), size);
  if (!auth->Check(header)) return 0;
  // Passing means the header carries exactly "prometheus:s3cret"; anything
  // else is an authentication bypass.
  constexpr std::string_view kScheme = "Basic ";
  auto decoded = header.substr(0, kScheme.size()) == kScheme ? Decode(header.substr(kScheme.size()))
                                                             : std::nullopt;
  if (!decoded || *decoded != "prometheus:s3cret") std::abort();
  return 0;
}
