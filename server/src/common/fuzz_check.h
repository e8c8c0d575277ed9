#pragma once
// An invariant check for fuzz targets (src/*/*_fuzz.cc): when `condition` is false it names
// the check and aborts, which libFuzzer reports as a crash and saves the input that did it.
// Unlike assert() it stays on in every build type.

#include <cstdio>
#include <cstdlib>

namespace tern::fuzz {

[[noreturn]] inline void check_failed(const char* condition, const char* file, int line) {
  std::fprintf(stderr, "%s:%d: fuzz invariant failed: %s\n", file, line, condition);
  std::abort();
}

}  // namespace tern::fuzz

#define TERN_FUZZ_CHECK(condition) \
  ((condition) ? static_cast<void>(0) : ::tern::fuzz::check_failed(#condition, __FILE__, __LINE__))
