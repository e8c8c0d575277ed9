// The engine's read-modify-write of whole documents, what the sub-document commands build
// on: get_document() reads a document (or its tombstone) with its real CAS, and
// write_document() publishes a value computed from it, through the same mutate() as every
// other mutation, if the key still holds what was read.
#include "engine/engine.h"
#include "engine/engine_impl.h"
#include "engine/mutation.h"
#include "engine/stored_item.h"

namespace tern::engine {

GetResult Engine::get_document(std::string_view key, bool include_deleted) {
  KeyAccess access(*impl_, key);
  ShardCounters& counters = access.shard().counters;
  Slot* found = include_deleted ? access.entry() : access.slot();
  // Not counted: the retry after the fetch is the get that counts.
  if ((found && !found->item->resident) || access.on_disk_only()) {
    return {Status::NotResident, nullptr};
  }
  counters.add(Counter::cmd_get);
  if (!found) {
    counters.add(Counter::get_misses);
    return {};
  }
  counters.add(Counter::get_hits);
  found->item->touch_access(access.now());
  return {Status::Success, found->item, EngineImpl::is_locked(*found, access.now())};
}

MutationResult Engine::write_document(std::string_view key, const DocumentWrite& write,
                                      MutationOptions options) {
  if (write.value.size() > config_.max_item_size) return {Status::TooBig};
  // Built before taking the shard lock, which then only has to link it in.
  MutableItemPtr item = make_item(key, {write.value});
  item->flags = write.flags;
  item->datatype = write.datatype;
  item->deleted = write.deleted;
  const int64_t deadline = write.deleted ? 0 : write_deadline_ms(key, write.expiry);
  const bool keep_expiry = write.keep_expiry || options.preserve_ttl;
  Applied applied = mutate(
      *impl_,
      {.key = key,
       .cas = write.expected_cas,
       .command = Counter::cmd_set,
       .vbucket = options.vbucket,
       .include_deleted = true,
       .prepare = options.prepare},
      [&](const ItemPtr& current, ShardCounters&, int64_t now) {
        // Read as absent, but a document (or a tombstone the read would have seen) appeared
        // since: two creations racing must not both succeed.
        if (write.expected_cas == 0 && current && (!current->deleted || write.read_deleted)) {
          return fail(Status::Exists);
        }
        // Set on every attempt: a retry may find the document gone.
        if (write.deleted) {
          item->expiry_ms = impl_->tombstone_deadline(now);
        } else {
          item->expiry_ms =
              keep_expiry && current && !current->deleted ? current->expiry_ms : deadline;
        }
        Change change = publish(item);
        change.stores_value = !write.deleted;
        change.before_publish = &write.before_publish;
        return change;
      });
  // What was read is gone: for this caller, as much a changed document as any other.
  if (applied.status == Status::NotFound) return {Status::CasMismatch};
  return {applied.status, applied.cas, applied.seqno};
}

uint32_t Engine::expiry_unix_seconds(const Item& item) const {
  // Most documents never expire: the flusher asks for each one it writes, so no clock read.
  if (item.expiry_ms == 0) return 0;
  return impl_->unix_seconds_at(item.expiry_ms, impl_->clock.steady_ms());
}

}  // namespace tern::engine
