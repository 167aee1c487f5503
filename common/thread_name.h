// Names the calling thread, so `top -H`, `ps -L`, perf and a test's diagnosis of a stuck
// exporter tell the scheduler, a probe's stream workers and the web server apart (all of
// them were "fabric_exporter"). Linux keeps 15 bytes of a name; longer ones are cut there.
#pragma once

#include <pthread.h>

#include <string>
#include <string_view>

namespace fabric {

inline void NameThisThread(std::string_view name) {
  constexpr size_t kMaxNameBytes = 15;  // TASK_COMM_LEN less the terminating NUL.
  std::string kept(name.substr(0, kMaxNameBytes));
  pthread_setname_np(pthread_self(), kept.c_str());
}

}  // namespace fabric
