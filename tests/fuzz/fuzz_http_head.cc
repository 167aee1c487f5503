// The request head the TLS listener parses itself (civetweb parses the plain
// HTTP one): request line and headers from an unauthenticated client.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "exporter/http/tls_server.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view head(reinterpret_cast<const char*>(data), size);
  auto request = fabric::ParseRequestHead(head);
  if (!request) return 0;
  // The router sees the path without its query and one header value on one
  // line; anything else would let a request smuggle a second one.
  if (request->path.find('?') != std::string::npos) std::abort();
  if (request->authorization.find_first_of("\r\n") != std::string::npos) std::abort();
  return 0;
}
