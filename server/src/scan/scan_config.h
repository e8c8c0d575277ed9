#pragma once
// What a RANGE_SCAN_CREATE (0xda) asks for: its value is a JSON object, as kv_engine's
// docs/range_scans/range_scan_create.md specifies it.
//
//   {"collection": "8",                      the collection id in hex (omitted: _default)
//    "key_only": true,                       keys only (default: whole documents)
//    "range": {"start"|"excl_start": "<base64 key>", "end"|"excl_end": "<base64 key>"},
//    "sampling": {"samples": 100, "seed": 7}, instead of "range"
//    "snapshot_requirements": {"vb_uuid": "<decimal>", "seqno": 12, "seqno_exists": false,
//                              "timeout_ms": 2500},
//    "name": "..."}                          at most 50 bytes, for logs
//
// Keys unknown here are ignored, as kv_engine ignores them.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tern::scan {

// The longest key a bound may name (Couchbase's key limit).
inline constexpr size_t kMaxKeyBytes = 250;
inline constexpr size_t kMaxNameBytes = 50;
// The longest a create waits for its vbucket to reach a seqno: longer timeouts are cut to it
// (the SDKs' scan timeout is 75 s by default), so that no request parks for weeks.
inline constexpr uint32_t kMaxSeqnoWaitMs = 120 * 1000;

// One end of a range: a logical key (no collection prefix), and whether it is in the range.
struct KeyBound {
  std::string key;
  bool inclusive = true;
};

struct SnapshotRequirements {
  uint64_t vb_uuid = 0;
  uint64_t seqno = 0;
  bool seqno_exists = false;  // a document of the vbucket must still carry `seqno`
  uint32_t timeout_ms = 0;    // how long to wait for the vbucket to reach `seqno`, at most
                              // kMaxSeqnoWaitMs
};

struct ScanConfig {
  uint32_t collection_id = 0;
  bool key_only = false;
  // A range scan (when `samples` is 0), or a random sample of `samples` keys.
  KeyBound start;
  KeyBound end;
  uint64_t samples = 0;
  uint64_t seed = 0;
  std::optional<SnapshotRequirements> snapshot;
  std::string name;

  bool sampling() const { return samples != 0; }
  // Whether a logical key lies within the range (a sampling scan's range is every key).
  bool in_range(std::string_view key) const;
};

// Parses `json` into `out`. Returns nullopt, or why the request is invalid (kv_engine
// answers Einval with that reason as the error context): JSON that is no object; a key of
// the wrong type; a collection that is no hex number of at most 32 bits; both or neither of
// "range" and "sampling"; a range without a start or an end, or with both forms of one, or
// with a bound that is no base64 or decodes to more than kMaxKeyBytes (or to nothing, for an
// end); "samples" missing or 0; snapshot requirements without "vb_uuid" (a decimal string)
// or "seqno"; "include_xattrs" (not offered here: no HELLO of RangeScanIncludeXattr); a
// name over kMaxNameBytes.
std::optional<std::string> parse_scan_config(std::string_view json, ScanConfig& out);

}  // namespace tern::scan
