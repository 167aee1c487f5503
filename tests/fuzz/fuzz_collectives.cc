// Collective measurement parsers: the Prometheus textfile subset, NCCL
// Inspector's textfile and nccl-tests' JSON output. Results are walked so a
// parser that returned garbage shows up under ASan.
#include <cstddef>
#include <cstdint>

#include "common/parse/nccl_inspector_parse.h"
#include "common/parse/nccl_tests_parse.h"
#include "common/parse/prom_text_parse.h"
#include "tests/fuzz/fuzz_input.h"

namespace {

void Walk(const fabric::CollectiveParse& r) {
  double sum = 0;
  for (const auto& m : r.measurements) {
    sum += m.bus_gbs + m.algorithm_gbs.value_or(0) + static_cast<double>(m.message_bytes) +
           static_cast<double>(m.collective.size() + m.nodes + m.ranks);
  }
  (void)sum;
  (void)r.message.size();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto in = fabric::fuzz::Split(data, size, 5);
  switch (in.selector) {
    case 0: {
      auto r = fabric::ParsePromText(in.text, 1000);
      size_t n = 0;
      for (const auto& s : r.samples) n += s.name.size() + s.labels.size();
      (void)n;
      break;
    }
    case 1:
      Walk(fabric::ParseNcclInspectorProm(in.text));
      break;
    case 2:
      Walk(fabric::ParseNcclTestsJson(in.text));
      break;
    case 3:
      (void)fabric::ParseInspectorMessageSize(in.text);
      (void)fabric::ParseUtcTimestamp(in.text);
      break;
    case 4:
      (void)fabric::CollectiveOfProgram(in.text);
      break;
  }
  return 0;
}
