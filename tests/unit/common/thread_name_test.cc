#include "common/thread_name.h"

#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <thread>

namespace fabric {
namespace {

// What `top -H` and /proc show for the calling thread.
std::string KernelNameOfThisThread() {
  std::ifstream comm("/proc/self/task/" + std::to_string(::syscall(SYS_gettid)) + "/comm");
  std::string name;
  std::getline(comm, name);
  return name;
}

std::string NamedOnAThread(const std::string& name) {
  std::string seen;
  std::thread([&] {
    NameThisThread(name);
    seen = KernelNameOfThisThread();
  }).join();
  return seen;
}

TEST(NameThisThread, TheKernelShowsTheName) {
  EXPECT_EQ(NamedOnAThread("probe-sched"), "probe-sched");
}

TEST(NameThisThread, LongNamesAreCutAtFifteenBytesNotRefused) {
  // pthread_setname_np refuses a name over 15 bytes (ERANGE) and leaves the old one.
  EXPECT_EQ(NamedOnAThread("resp-session-with-a-long-suffix"), "resp-session-wi");
}

}  // namespace
}  // namespace fabric
