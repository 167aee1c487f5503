// The web config file (--web.config.file: TLS and basic-auth users, the
// exporter-toolkit format). Rejections throw ConfigError; anything else
// escaping, or a crash, is a bug. Certificate paths are only checked for
// readability, never opened.
#include <cstddef>
#include <cstdint>
#include <string>

#include "exporter/http/web_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  try {
    (void)fabric::ParseWebConfig(fabric::ConfigNode::LoadString(text, "web.yml"));
  } catch (const fabric::ConfigError&) {
  }
  return 0;
}
