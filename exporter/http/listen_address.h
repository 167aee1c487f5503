// Translates a Prometheus-style listen address into civetweb's
// `listening_ports` syntax.
#pragma once

#include <string>
#include <string_view>

#include "common/result.h"

namespace fabric {

// "127.0.0.1:9877" -> "127.0.0.1:9877"; ":9877" (every address) -> "9877";
// "[::1]:9877" -> "[::1]:9877". Host names are rejected: civetweb binds
// numeric addresses only, and resolving a name at start-up would make the
// bound address depend on DNS.
Result<std::string> ToCivetListeningPort(std::string_view address);

}  // namespace fabric
