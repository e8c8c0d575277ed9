#include "storage/store.h"

namespace tern::storage {

OwnedRecord OwnedRecord::copy(const Record& r) {
  return OwnedRecord{r, std::string(r.key), std::string(r.value), r.expiry};
}

Record OwnedRecord::view() const { return Record{*this, key, value, expiry}; }

void Store::remove_ranges(std::span<const KeyRange>, const std::function<void(const Record&)>&) {
  throw StoreError("this store cannot delete ranges of keys");
}

void Store::scan_vbucket(uint16_t vbucket, const KeyRange& range,
                         const std::function<bool(const Record&)>& visit) {
  scan([&](const Record& record) {
    if (record.vbucket < vbucket || record.key < range.begin) return true;
    if (record.vbucket > vbucket) return false;
    if (!range.end.empty() && record.key >= range.end) return false;
    return visit(record);
  });
}

}  // namespace tern::storage
