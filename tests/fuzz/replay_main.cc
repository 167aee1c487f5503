// Stands in for libFuzzer's driver in the normal (gcc) builds: runs a fuzz
// target over the given files and the files in the given directories, once
// each, so the committed crash inputs are regression tests under the plain
// and the ASan+UBSan build alike. Flags (-runs=0, ...) are accepted and
// ignored, so one ctest command line serves both drivers.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int* argc, char*** argv);

namespace {

int Replay(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "replay: cannot read %s\n", path.c_str());
    return 1;
  }
  std::vector<uint8_t> data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::fprintf(stderr, "replay: %s (%zu bytes)\n", path.c_str(), data.size());
  // A copy of exactly the input's size, as libFuzzer passes it, so reads past
  // the end are caught under ASan.
  std::vector<uint8_t> exact(data);
  LLVMFuzzerTestOneInput(exact.data(), exact.size());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (LLVMFuzzerInitialize != nullptr) LLVMFuzzerInitialize(&argc, &argv);
  int failures = 0;
  int replayed = 0;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind('-', 0) == 0) continue;
    std::filesystem::path path(arg);
    std::vector<std::filesystem::path> files;
    if (std::filesystem::is_directory(path)) {
      for (const auto& entry : std::filesystem::directory_iterator(path)) {
        if (entry.is_regular_file()) files.push_back(entry.path());
      }
    } else {
      files.push_back(path);
    }
    for (const auto& file : files) {
      failures += Replay(file);
      ++replayed;
    }
  }
  std::fprintf(stderr, "replay: %d inputs, all returned\n", replayed);
  return failures == 0 && replayed > 0 ? 0 : 1;
}
