#pragma once
// One range scan between its create and its end: the keys its create took (key_snapshot.h)
// and how far the continues have got through them. Each RANGE_SCAN_CONTINUE (0xdb) hands
// out the next keys, or documents read as they are now, up to its limits; kv_engine's
// docs/range_scans/range_scan_continue.md gives the encoding:
//
//   keys only:  per key, its length as LEB128, then the key (without collection prefix)
//   documents:  per document, flags u32, expiry u32, seqno u64, CAS u64, datatype u8 (all
//               big-endian), the key's length as LEB128 and the key, the value's length as
//               LEB128 and the value (without extended attributes)
//
// The items go in frames of up to kFrameBytes (one larger item alone); the last frame's
// status says whether more remain (RangeScanMore) or not (RangeScanComplete).
//
// Thread-safety: continue_scan() runs for one continue at a time (the registry sees to that);
// cancel() may be called from any thread meanwhile.

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/clock.h"
#include "engine/engine.h"
#include "protocol/status.h"
#include "storage/store.h"

namespace tern::scan {

// A scan's identity on the wire: 16 bytes, random.
using ScanId = std::array<uint8_t, 16>;

inline constexpr size_t kFrameBytes = 16 * 1024;

// A continue's limits; 0 is no limit. Each continue returns at least one item (unless the
// scan has none left), whatever its limits.
struct ContinueLimits {
  uint32_t items = 0;
  uint32_t time_ms = 0;
  uint32_t bytes = 0;  // of the items' encoding
};

struct ContinueAnswer {
  // The frames' values, in order; the last frame carries `status`.
  std::vector<std::string> frames;
  // RangeScanMore, RangeScanComplete, or (with no frames) RangeScanCancelled when the scan
  // was cancelled meanwhile, or Etmpfail when its next document could not be read.
  protocol::Status status = protocol::Status::RangeScanComplete;
};

class RangeScan {
 public:
  // `keys`: stored keys in key order, none of them empty of meaning (take_key_snapshot()).
  RangeScan(ScanId id, uint16_t vbucket, bool key_only, std::vector<std::string> keys);
  RangeScan(const RangeScan&) = delete;
  RangeScan& operator=(const RangeScan&) = delete;

  const ScanId& id() const { return id_; }
  uint16_t vbucket() const { return vbucket_; }
  bool key_only() const { return key_only_; }

  // Hands out the next items. Documents are read from `engine` as they are now: one removed
  // or expired since the create is skipped; one whose value memory does not hold is read from
  // `store` (null: an ephemeral bucket), as the disk has it, without bringing it back into
  // memory (a scan would push out what clients use) and without a background fetch (whose
  // task this one would wait for); so this runs where a thread may block. `clock` times the
  // time limit and tells expiries on disk.
  ContinueAnswer continue_scan(engine::Engine& engine, storage::Store* store,
                               const ContinueLimits& limits, const Clock& clock);

  // Makes a continue in progress, and every later one, answer RangeScanCancelled.
  void cancel() { cancelled_.store(true, std::memory_order_relaxed); }
  bool cancelled() const { return cancelled_.load(std::memory_order_relaxed); }
  bool complete() const { return next_ == keys_.size(); }

 private:
  // Appends the document at `key` to `out`, unless it is gone (removed or expired) or cannot
  // be read (a value memory lacks in an ephemeral bucket, a malformed one).
  enum class Read { Appended, Gone, Unavailable };
  Read append_document(engine::Engine& engine, storage::Store* store, const Clock& clock,
                       const std::string& key, std::string& out) const;

  const ScanId id_;
  const uint16_t vbucket_;
  const bool key_only_;
  const std::vector<std::string> keys_;
  size_t next_ = 0;
  std::atomic<bool> cancelled_{false};
};

}  // namespace tern::scan
