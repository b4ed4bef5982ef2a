// A libFuzzer target for the safetensors header parser, for longer runs
// than the deterministic fuzzer in make test (SafetensorsFuzzTest.cpp).
// Not built by CMake (it needs clang's -fsanitize=fuzzer); by hand:
//
//   T=.venv/lib/python3.11/site-packages/torch
//   clang++-19 -std=c++17 -O1 -g -fsanitize=fuzzer,address,undefined \
//     -Ilib/runtime -Iinclude -I$T/include \
//     -I$T/include/torch/csrc/api/include \
//     test/runtime/SafetensorsLibFuzzer.cpp \
//     lib/runtime/checkpoint/Json.cpp \
//     lib/runtime/checkpoint/SafetensorsHeader.cpp \
//     -L$T/lib -lc10 -Wl,-rpath,$T/lib -o /tmp/safetensors-fuzz
//   /tmp/safetensors-fuzz CORPUS -max_total_time=120 -max_len=4096
//
// (CORPUS: a folder of .safetensors files, e.g. a checkpoint's.) Every
// input must be a c10::Error or a header whose tensors tile the data
// section.

#include <cstdint>
#include <string>

#include <c10/util/Exception.h>

#include "checkpoint/Safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const auto h = meshguard::checkpoint::parse_safetensors(
        std::string(reinterpret_cast<const char*>(data), size), "input");
    uint64_t at = h.data_start;
    for (const auto& t : h.tensors) {
      if (t.begin != at || t.end < t.begin || t.end > size) {
        __builtin_trap();
      }
      at = t.end;
    }
    if (at != size) {
      __builtin_trap();
    }
  } catch (const c10::Error&) {
  }
  return 0;
}
