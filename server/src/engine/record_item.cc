#include "engine/record_item.h"

#include <algorithm>
#include <cstdint>
#include <limits>

#include "engine/stored_item.h"

namespace tern::engine {

MutableItemPtr item_of_record(const Engine& engine, const storage::Record& record) {
  return item_of_record(record, expiry_ms_of_record(engine, record));
}

int64_t expiry_ms_of_record(const Engine& engine, const storage::Record& record) {
  uint64_t expiry = record.expiry;
  if (record.deleted) expiry += engine.config().metadata_purge_seconds;
  return engine.expiry_deadline_ms(
      static_cast<uint32_t>(std::min<uint64_t>(expiry, std::numeric_limits<uint32_t>::max())));
}

MutableItemPtr item_of_record(const storage::Record& record, int64_t expiry_ms) {
  auto item = make_item(record.key, {record.value});
  static_cast<DocumentMeta&>(*item) = record;
  item->expiry_ms = expiry_ms;
  return item;
}

storage::Record record_of_item(const Engine& engine, const Item& item) {
  uint32_t expiry = engine.expiry_unix_seconds(item);
  if (item.deleted) {
    const uint32_t purge = engine.config().metadata_purge_seconds;
    expiry = expiry > purge ? expiry - purge : expiry;
  }
  return storage::Record{item, item.key(), item.value(), expiry};
}

}  // namespace tern::engine
