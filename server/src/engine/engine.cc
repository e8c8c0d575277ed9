#include "engine/engine.h"

#include <algorithm>

#include "engine/counter_value.h"
#include "engine/engine_impl.h"
#include "engine/key_hash.h"
#include "engine/mutation.h"
#include "engine/stored_item.h"
#include "protocol/datatype.h"
#include "xattr/blob.h"

namespace tern::engine {
namespace {

constexpr uint32_t kNoCreateExpiry = 0xffffffff;

// What a value computed from the current one keeps of it.
void copy_user_metadata(const Item& from, Item& to) {
  to.flags = from.flags;
  to.datatype = from.datatype;
  to.expiry_ms = from.expiry_ms;
}

// An item's extended attributes' section and its body. The engine never stores a broken
// section (the commands check what clients send); were one there, it would read as body.
xattr::Split parts_of(const Item& item) {
  xattr::Split parts;
  if (!xattr::split(item.value(), item.datatype, parts)) parts = {{}, item.value()};
  return parts;
}

constexpr uint8_t kXattr = protocol::datatype::kXattr;
constexpr uint8_t kJson = protocol::datatype::kJson;

}  // namespace

KeyAccess::KeyAccess(EngineImpl& impl, std::string_view key)
    : impl_(impl),
      key_(key),
      hash_(hash_key(key)),
      shard_(impl.shard_for(key)),
      now_(impl.clock.steady_ms()) {
  shard_.mutex.lock();
  impl.settle_flush(shard_, now_);
  index_ = impl.find_entry(shard_, hash_, key, now_, graveyard_, wake_flusher_);
}

KeyAccess::~KeyAccess() {
  shard_.mutex.unlock();
  if (wake_flusher_) impl_.notify_dirty();  // the listener runs with no engine lock held
}

MutableItemPtr make_tombstone(const Item& document, int64_t purge_at_ms, MutableItemPtr bare) {
  MutableItemPtr tombstone;
  if ((document.datatype & kXattr) != 0) {
    const std::string kept = xattr::system_section(parts_of(document).attributes);
    if (!kept.empty()) {
      tombstone = make_item(document.key(), {kept});
      tombstone->datatype = kXattr;
    }
  }
  if (!tombstone) tombstone = bare ? std::move(bare) : make_item(document.key(), {});
  tombstone->deleted = true;
  tombstone->flags = document.flags;
  tombstone->expiry_ms = purge_at_ms;
  return tombstone;
}

GetResult Engine::get(std::string_view key) {
  GetResult result;
  bool locked = false;
  {
    KeyAccess access(*impl_, key);
    ShardCounters& counters = access.shard().counters;
    Slot* slot = access.slot();
    // Not counted: the retry after the fetch is the get that counts.
    if ((slot && !slot->item->resident) || access.on_disk_only()) {
      return {Status::NotResident, nullptr};
    }
    counters.add(Counter::cmd_get);
    if (!slot) {
      counters.add(Counter::get_misses);
      return result;
    }
    counters.add(Counter::get_hits);
    slot->item->touch_access(access.now());
    locked = EngineImpl::is_locked(*slot, access.now());
    result = {Status::Success, slot->item};
  }
  if (locked) {
    auto hidden = remeta_item(result.item);
    hidden->cas = kLockedCas;
    result.item = std::move(hidden);
  }
  return result;
}

GetResult Engine::get_and_touch(std::string_view key, uint32_t expiry) {
  const int64_t deadline = write_deadline_ms(key, expiry);
  // A deadline already past removes the item rather than publishing it, yet the touch
  // still answers with the item it touched.
  ItemPtr touched;
  // The value too: the disk holds a document as one record, which a new expiry rewrites.
  Applied applied = mutate(*impl_,
                           {.key = key,
                            .command = Counter::cmd_touch,
                            .reads_value = ValueUse::Whole},
                           [&](const ItemPtr& current, ShardCounters& counters, int64_t) {
                             if (!current) {
                               counters.add(Counter::touch_misses);
                               return fail(Status::NotFound);
                             }
                             counters.add(Counter::touch_hits);
                             auto item = remeta_item(current);
                             item->expiry_ms = deadline;
                             touched = item;
                             return Change{Status::Success, std::move(item), false};
                           });
  if (applied.status != Status::Success) return {applied.status, nullptr};
  return {applied.status, std::move(touched)};
}

MutationResult Engine::touch(std::string_view key, uint32_t expiry) {
  GetResult touched = get_and_touch(key, expiry);
  return {touched.status, touched.item ? touched.item->cas : 0};
}

GetResult Engine::get_locked(std::string_view key, uint32_t lock_seconds) {
  const uint32_t seconds = lock_seconds == 0
                               ? config_.default_lock_seconds
                               : std::min(lock_seconds, config_.max_lock_seconds);
  Applied applied = mutate(*impl_,
                           {.key = key, .command = Counter::cmd_get, .reads_value = ValueUse::Whole},
                           [&](const ItemPtr& current, ShardCounters& counters, int64_t now) {
                             if (!current) {
                               counters.add(Counter::get_misses);
                               return fail(Status::NotFound);
                             }
                             counters.add(Counter::get_hits);
                             Change change{Status::Success, remeta_item(current), false};
                             // Only the lock and its CAS change, neither of which is
                             // persisted: the copy keeps the item's seqno, so it is on disk
                             // as soon as the item is.
                             change.new_revision = false;
                             change.lock_until_ms = now + int64_t{seconds} * 1000;
                             return change;
                           });
  return {applied.status, std::move(applied.item)};
}

Status Engine::unlock(std::string_view key, uint64_t cas) {
  KeyAccess access(*impl_, key);
  if (access.on_disk_only()) return Status::NotResident;
  Slot* slot = access.slot();
  if (!slot) return Status::NotFound;
  if (!EngineImpl::is_locked(*slot, access.now())) return Status::NotLocked;
  if (slot->item->cas != cas) return Status::Locked;
  slot->item->set_lock(0, access.now());
  return Status::Success;
}

MutationResult Engine::store(StoreMode mode, std::string_view key, std::string_view value,
                             uint32_t flags, uint32_t expiry, uint8_t datatype, uint64_t cas,
                             MutationOptions options) {
  if (value.size() > config_.max_item_size) return {Status::TooBig};
  // Built before taking the shard lock, which then only has to link it in.
  MutableItemPtr item = make_item(key, {value});
  item->flags = flags;
  item->datatype = datatype;
  const int64_t deadline = write_deadline_ms(key, expiry);
  Applied applied = mutate(*impl_,
                           {.key = key,
                            .cas = cas,
                            .command = Counter::cmd_set,
                            .vbucket = options.vbucket,
                            .prepare = options.prepare,
                            // The document's attributes, unless the value brings its own.
                            .reads_value = (datatype & kXattr) != 0 ? ValueUse::None
                                                                    : ValueUse::Attributes},
                           [&](const ItemPtr& current, ShardCounters&, int64_t) {
                             if (mode == StoreMode::Add && current) {
                               return fail(Status::Exists);
                             }
                             if (mode == StoreMode::Replace && !current) {
                               return fail(Status::NotFound);
                             }
                             // A whole new body keeps the document's extended attributes
                             // (Couchbase's rule: transactions and replication keep their
                             // metadata there), unless the value brings its own.
                             MutableItemPtr stored = item;
                             if (current && (current->datatype & kXattr) != 0 &&
                                 (datatype & kXattr) == 0) {
                               const std::string_view kept = parts_of(*current).attributes;
                               if (kept.size() + value.size() > config_.max_item_size) {
                                 return fail(Status::TooBig);
                               }
                               stored = make_item(key, {kept, value});
                               stored->flags = flags;
                               stored->datatype = datatype | kXattr;
                             }
                             // Set on every attempt: a retry may find the document gone.
                             stored->expiry_ms = options.preserve_ttl && current
                                                     ? current->expiry_ms
                                                     : deadline;
                             return publish(std::move(stored));
                           });
  return {applied.status, applied.cas, applied.seqno};
}

MutationResult Engine::remove(std::string_view key, uint64_t cas, MutationOptions options) {
  // A persistent bucket always makes one: it is what deletes the document on disk (kept in
  // memory only for metadata_purge_seconds, as in any bucket).
  const bool keeps_tombstone = impl_->tombstone_ms > 0 || impl_->persistent;
  // Built before taking the shard lock, as store's item is; wasted on a miss. A document
  // with system attributes needs one holding them, built under the lock from what it finds.
  MutableItemPtr bare_tombstone = keeps_tombstone ? make_item(key, {}) : nullptr;
  Applied applied = mutate(
      *impl_,
      {.key = key,
       .cas = cas,
       .vbucket = options.vbucket,
       .prepare = options.prepare,
       .reads_value = ValueUse::Attributes},  // the tombstone keeps the system attributes
      [&](const ItemPtr& current, ShardCounters& counters, int64_t now) {
        if (!current) {
          counters.add(Counter::delete_misses);
          return fail(Status::NotFound);
        }
        counters.add(Counter::delete_hits);
        if (!keeps_tombstone) return Change{Status::Success, nullptr, false};
        return Change{Status::Success,
                      make_tombstone(*current, impl_->tombstone_deadline(now), bare_tombstone),
                      false};
      });
  return {applied.status, applied.cas, applied.seqno};
}

MetaResult Engine::get_meta(std::string_view key) {
  KeyAccess access(*impl_, key);
  if (access.on_disk_only()) return {.status = Status::NotResident};
  Slot* entry = access.entry();
  if (!entry) return {};
  const Item& item = *entry->item;
  MetaResult meta;
  meta.status = Status::Success;
  meta.deleted = item.deleted;
  meta.flags = item.flags;
  meta.rev_seqno = item.rev_seqno;
  meta.datatype = item.datatype;
  meta.cas = item.cas;
  if (item.deleted) {
    meta.expiry = impl_->unix_seconds_at(item.expiry_ms - impl_->tombstone_ms, access.now());
  } else {
    meta.expiry = impl_->unix_seconds_at(item.expiry_ms, access.now());
    if (EngineImpl::is_locked(*entry, access.now())) meta.cas = kLockedCas;
  }
  return meta;
}

ArithmeticResult Engine::arithmetic(std::string_view key, bool increment, uint64_t delta,
                                    uint64_t initial, uint32_t expiry, uint64_t cas,
                                    MutationOptions options) {
  const int64_t create_deadline =
      expiry == kNoCreateExpiry ? 0 : write_deadline_ms(key, expiry);
  const Counter hit = increment ? Counter::incr_hits : Counter::decr_hits;
  const Counter miss = increment ? Counter::incr_misses : Counter::decr_misses;
  uint64_t result = 0;
  char digits[20];
  Applied applied = mutate(
      *impl_,
      {.key = key,
       .cas = cas,
       .vbucket = options.vbucket,
       .prepare = options.prepare,
       .reads_value = ValueUse::Whole},
      [&](const ItemPtr& current, ShardCounters& counters, int64_t) {
        if (!current) {
          counters.add(miss);
          if (expiry == kNoCreateExpiry) return fail(Status::NotFound);
          result = initial;
          auto item = make_item(key, {format_counter(result, digits)});
          item->expiry_ms = create_deadline;
          return publish(std::move(item));
        }
        // The counter is the body; the document's extended attributes stay as they are.
        const xattr::Split parts = parts_of(*current);
        const std::optional<uint64_t> value = parse_counter(parts.body);
        if (!value) return fail(Status::NotANumber);
        counters.add(hit);
        result = apply_delta(*value, increment, delta);
        auto item = make_item(key, {parts.attributes, format_counter(result, digits)});
        copy_user_metadata(*current, *item);
        return publish(std::move(item));
      });
  if (applied.status != Status::Success) return {applied.status};
  return {applied.status, applied.cas, result, applied.seqno};
}

MutationResult Engine::concat(ConcatMode mode, std::string_view key, std::string_view value,
                              uint64_t cas, MutationOptions options, JsonCheck is_json) {
  Applied applied = mutate(
      *impl_,
      {.key = key,
       .cas = cas,
       .command = Counter::cmd_set,
       .vbucket = options.vbucket,
       .prepare = options.prepare,
       .reads_value = ValueUse::Whole},
      [&](const ItemPtr& current, ShardCounters&, int64_t) {
        if (!current) return fail(Status::NotStored);
        if (current->value().size() + value.size() > config_.max_item_size) {
          return fail(Status::TooBig);
        }
        // Only the body changes: a prepended value goes after the extended attributes.
        const xattr::Split parts = parts_of(*current);
        auto item = mode == ConcatMode::Append
                        ? make_item(key, {current->value(), value})
                        : make_item(key, {parts.attributes, value, parts.body});
        copy_user_metadata(*current, *item);
        const std::string_view body = item->value().substr(parts.attributes.size());
        item->datatype = static_cast<uint8_t>((current->datatype & kXattr) |
                                              (is_json != nullptr && is_json(body) ? kJson : 0));
        return publish(std::move(item));
      });
  return {applied.status, applied.cas, applied.seqno};
}

}  // namespace tern::engine
