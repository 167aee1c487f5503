// The flows collector's recording format (socket dumps and host addresses
// over time, the fixture stand-in for inet_diag) and the IP address and
// prefix parsers it uses.
#include <cstddef>
#include <cstdint>

#include "common/parse/flow_recording_parse.h"
#include "common/parse/ip_address.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto in = fabric::fuzz::Split(data, size, 2);
  if (in.selector == 0) {
    (void)fabric::ParseFlowRecording(in.text, "flows.rec");
  } else {
    (void)fabric::ParseIpAddress(in.text);
    (void)fabric::ParseIpPrefix(in.text);
  }
  return 0;
}
