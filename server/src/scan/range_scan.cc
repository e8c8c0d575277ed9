#include "scan/range_scan.h"

#include "engine/collection_key.h"
#include "protocol/codec.h"
#include "protocol/datatype.h"
#include "xattr/blob.h"

namespace tern::scan {
namespace {

void append_length_and_bytes(std::string_view bytes, std::string& out) {
  uint8_t length[5];
  const size_t used = protocol::leb128_encode(static_cast<uint32_t>(bytes.size()), length);
  out.append(reinterpret_cast<const char*>(length), used);
  out.append(bytes);
}

std::string_view logical_of(const std::string& stored) {
  return engine::logical_key_of(stored).value_or(std::string_view());
}

}  // namespace

RangeScan::RangeScan(ScanId id, uint16_t vbucket, bool key_only, std::vector<std::string> keys)
    : id_(id), vbucket_(vbucket), key_only_(key_only), keys_(std::move(keys)) {}

// A document's metadata and body as a continue encodes them.
struct Document {
  uint32_t flags = 0;
  uint32_t expiry = 0;  // Unix seconds, 0 for never
  uint64_t seqno = 0;
  uint64_t cas = 0;
  uint8_t datatype = 0;
  std::string_view value;  // with its XATTR section, as stored
};

RangeScan::Read RangeScan::append_document(engine::Engine& engine, storage::Store* store,
                                           const Clock& clock, const std::string& key,
                                           std::string& out) const {
  const engine::GetResult read = engine.get_document(key, false);
  Document document;
  std::optional<storage::OwnedRecord> record;
  if (read.status == engine::Status::Success) {
    const engine::Item& item = *read.item;
    document = {item.flags,  engine.expiry_unix_seconds(item), item.seqno, item.cas, item.datatype,
                item.value()};
  } else if (read.status == engine::Status::NotResident && store != nullptr) {
    record = store->get(vbucket_, key);
    if (!record || record->deleted ||
        (record->expiry != 0 && record->expiry <= clock.unix_seconds())) {
      return Read::Gone;
    }
    document = {record->flags, record->expiry,   record->seqno,
                record->cas,   record->datatype, record->value};
  } else {
    return read.status == engine::Status::NotFound ? Read::Gone : Read::Unavailable;
  }
  xattr::Split split;
  if (!xattr::split(document.value, document.datatype, split)) return Read::Unavailable;
  uint8_t meta[25];
  protocol::store_be32(meta, document.flags);
  protocol::store_be32(meta + 4, document.expiry);
  protocol::store_be64(meta + 8, document.seqno);
  protocol::store_be64(meta + 16, document.cas);
  meta[24] = static_cast<uint8_t>(document.datatype & ~protocol::datatype::kXattr);
  out.append(reinterpret_cast<const char*>(meta), sizeof meta);
  append_length_and_bytes(logical_of(key), out);
  append_length_and_bytes(split.body, out);
  return Read::Appended;
}

ContinueAnswer RangeScan::continue_scan(engine::Engine& engine, storage::Store* store,
                                        const ContinueLimits& limits, const Clock& clock) {
  ContinueAnswer answer;
  const int64_t started_ms = clock.steady_ms();
  std::string frame;
  size_t items = 0;
  size_t bytes = 0;
  const auto limit_reached = [&] {
    if (items == 0) return false;  // at least one item per continue
    return (limits.items != 0 && items >= limits.items) ||
           (limits.bytes != 0 && bytes >= limits.bytes) ||
           (limits.time_ms != 0 && clock.steady_ms() - started_ms >= limits.time_ms);
  };
  while (next_ < keys_.size() && !limit_reached()) {
    if (cancelled()) return {.frames = {}, .status = protocol::Status::RangeScanCancelled};
    const size_t before = frame.size();
    if (key_only_) {
      append_length_and_bytes(logical_of(keys_[next_]), frame);
    } else {
      const Read read = append_document(engine, store, clock, keys_[next_], frame);
      if (read == Read::Unavailable) {
        // Tried again by the next continue; a continue that has nothing to show fails.
        if (items == 0) return {.frames = {}, .status = protocol::Status::Etmpfail};
        break;
      }
      if (read == Read::Gone) {
        ++next_;
        continue;
      }
    }
    ++next_;
    ++items;
    bytes += frame.size() - before;
    if (frame.size() >= kFrameBytes) {
      answer.frames.push_back(std::move(frame));
      frame.clear();
    }
  }
  if (!frame.empty() || answer.frames.empty()) answer.frames.push_back(std::move(frame));
  answer.status =
      complete() ? protocol::Status::RangeScanComplete : protocol::Status::RangeScanMore;
  return answer;
}

}  // namespace tern::scan
