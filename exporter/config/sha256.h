// SHA-256 of a byte string as 64 lowercase hex digits: the config file's
// hash (fabric_exporter_config_info) and the fleet list's digest.
#pragma once

#include <string>
#include <string_view>

namespace fabric {

std::string Sha256Hex(std::string_view data);

}  // namespace fabric
