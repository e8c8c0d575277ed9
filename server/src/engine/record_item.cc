#include "engine/record_item.h"

#include <algorithm>
#include <cstdint>
#include <limits>

#include "engine/stored_item.h"

namespace tern::engine {

MutableItemPtr item_of_record(const Engine& engine, const storage::Record& record) {
  auto item = make_item(record.key, {record.value});
  item->cas = record.cas;
  item->seqno = record.seqno;
  item->rev_seqno = record.rev_seqno;
  item->flags = record.flags;
  item->vbucket = record.vbucket;
  item->datatype = record.datatype;
  item->deleted = record.deleted;
  if (record.deleted) {
    const uint64_t purge_at = uint64_t{record.expiry} + engine.config().metadata_purge_seconds;
    item->expiry_ms = engine.expiry_deadline_ms(
        static_cast<uint32_t>(std::min<uint64_t>(purge_at, std::numeric_limits<uint32_t>::max())));
  } else {
    item->expiry_ms = engine.expiry_deadline_ms(record.expiry);
  }
  return item;
}

}  // namespace tern::engine
