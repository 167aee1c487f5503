// Splits one libFuzzer input into the entry point it exercises and the bytes
// it feeds there, so one target covers a parser family: the first byte picks
// the parser (modulo their count), the rest is its input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace fabric::fuzz {

struct Input {
  size_t selector = 0;
  std::string_view text;
};

inline Input Split(const uint8_t* data, size_t size, size_t choices) {
  if (size == 0) return {0, {}};
  return {data[0] % choices, std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1)};
}

}  // namespace fabric::fuzz
