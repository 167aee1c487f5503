// The probe state file (ResultStore::Load): written by the exporter itself,
// but read back after crashes, disk errors and hand edits, so a corrupt file
// must come back as an error, never an exception or a crash. Every rung is
// Expect()ed for the targets the seeds use so loaded records are kept.
#include <cstddef>
#include <cstdint>
#include <string>

#include "exporter/scheduled_probes/result_store.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fabric::ResultStore store;
  for (const auto& rung : fabric::probe::Rungs()) {
    for (auto direction : {fabric::probe::Direction::kNone, fabric::probe::Direction::kSend,
                           fabric::probe::Direction::kReceive}) {
      store.Expect({rung.id, "node-b", direction});
    }
  }
  std::string text(reinterpret_cast<const char*>(data), size);
  (void)store.LoadText(text, "state.yml");
  (void)store.Snapshot();
  return 0;
}
