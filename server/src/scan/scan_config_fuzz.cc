// libFuzzer target: RANGE_SCAN_CREATE's configuration parser (scan_config.h) on any bytes.
// Invariants checked besides ASan's and UBSan's (a broken one aborts): a configuration that
// parses keeps the limits (bounds of at most kMaxKeyBytes, a name of at most kMaxNameBytes,
// samples above 0, a seqno wait of at most kMaxSeqnoWaitMs), and its range agrees with its
// bounds: a bound is in the range exactly when it is inclusive and the range is not empty
// there.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/fuzz_check.h"
#include "scan/scan_config.h"

namespace tern::scan {
namespace {

void check(const ScanConfig& config) {
  TERN_FUZZ_CHECK(config.name.size() <= kMaxNameBytes);
  if (config.snapshot) TERN_FUZZ_CHECK(config.snapshot->timeout_ms <= kMaxSeqnoWaitMs);
  if (config.sampling()) {
    TERN_FUZZ_CHECK(config.in_range(config.start.key) && config.in_range("anything"));
    return;
  }
  TERN_FUZZ_CHECK(config.start.key.size() <= kMaxKeyBytes);
  TERN_FUZZ_CHECK(config.end.key.size() <= kMaxKeyBytes);
  const int order = config.start.key.compare(config.end.key);
  const bool start_in =
      config.start.inclusive && (order < 0 || (order == 0 && config.end.inclusive));
  TERN_FUZZ_CHECK(config.in_range(config.start.key) == start_in);
  const bool end_in = config.end.inclusive && (order < 0 || (order == 0 && config.start.inclusive));
  TERN_FUZZ_CHECK(config.in_range(config.end.key) == end_in);
}

}  // namespace
}  // namespace tern::scan

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tern::scan::ScanConfig config;
  const std::string_view json(reinterpret_cast<const char*>(data), size);
  if (!tern::scan::parse_scan_config(json, config)) tern::scan::check(config);
  return 0;
}
