#pragma once
// A bucket's collections manifest: its scopes, the collections in each, and a uid that grows
// whenever the set changes. Clients read it with GET_COLLECTIONS_MANIFEST (0xba) and turn
// "scope.collection" paths into ids with GET_COLLECTION_ID (0xbb) and GET_SCOPE_ID (0xbc);
// with Collections negotiated, every document key then starts with its collection id.
//
// Ids are u32; 0 is the _default scope and the _default collection, 1-7 are reserved. The
// manifest is immutable once built, so it is shared between threads without locking. It is
// changed by building the next one (with_scope(), without_scope(), with_collection(),
// without_collection()): each raises the uid by one and takes ids from the manifest's next
// ids, which only grow, so an id is never given twice in a bucket (a collection created with
// a dropped one's name is a new one, with a new id, whose documents are not the old ones).
// Paths follow kv_engine (docs/Collections.md): a collection path is "scope.collection" with
// exactly one dot, and an empty part means _default ("." is _default._default, ".c1" is
// _default.c1); a scope path is "scope", "" meaning _default, and a ".collection" part
// after it is ignored.

#include <bitset>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/status.h"

namespace tern::cluster {

struct Collection {
  std::string name;
  uint32_t id;
  // Couchbase's maxTTL, in seconds: the longest expiry a document of the collection may have
  // (a write with no expiry gets this one). 0: the bucket's maxTTL applies.
  uint32_t max_ttl = 0;
};

struct Scope {
  std::string name;
  uint32_t id;
  std::vector<Collection> collections;
};

// What a path lookup found: status Success and the id, or why not (Einval for a malformed
// path or name, UnknownScope, UnknownCollection) — the answer GET_COLLECTION_ID and
// GET_SCOPE_ID send.
struct PathLookup {
  protocol::Status status;
  uint32_t id = 0;
};

// Why a change to a manifest was refused (None: it was made).
enum class ManifestError : uint8_t {
  None,
  InvalidName,  // not a name Couchbase accepts (collection_names.h), or _default created
  ScopeExists,
  ScopeNotFound,
  CollectionExists,
  CollectionNotFound,
  LimitReached,             // kMaxScopes / kMaxCollections, or the ids ran out
  DefaultScopeUndroppable,  // the _default scope cannot be dropped (its collection can)
  InvalidMaxTtl,            // above kMaxTtlSeconds
};

// The enumerator's name ("ScopeExists"), for logs and test messages.
std::string_view manifest_error_name(ManifestError error);

// A change as a bucket answers it: the error, or None and the manifest's new uid.
struct ManifestChange {
  ManifestError error = ManifestError::None;
  uint64_t uid = 0;
};

// The outcome of building the next manifest: `manifest` when error is None.
struct ManifestEdit;

class CollectionsManifest {
 public:
  // Couchbase's limits (per bucket here; a cluster of one node has one set of them).
  static constexpr size_t kMaxScopes = 1000;
  static constexpr size_t kMaxCollections = 1000;
  // The largest maxTTL Couchbase accepts (a signed 32-bit number of seconds).
  static constexpr uint32_t kMaxTtlSeconds = 0x7fffffff;
  // The first id a created scope or collection gets (Couchbase reserves 1-7).
  static constexpr uint32_t kFirstUserId = 8;

  // Throws std::invalid_argument when scope names or ids repeat, a collection id repeats
  // (ids are unique across scopes) or a collection name repeats within its scope, or when a
  // next id given is not above every id of its kind (and kFirstUserId). A next id not given
  // is the lowest that is.
  CollectionsManifest(uint64_t uid, std::vector<Scope> scopes,
                      std::optional<uint32_t> next_scope_id = std::nullopt,
                      std::optional<uint32_t> next_collection_id = std::nullopt);

  // Uid 0: the _default scope holding only the _default collection (what a bucket has
  // before anyone creates a collection).
  static CollectionsManifest default_only();

  uint64_t uid() const { return uid_; }
  const std::vector<Scope>& scopes() const { return scopes_; }
  // The ids the next scope and the next collection created get: what a state file keeps
  // beside the scopes, so that ids are never reused across restarts either.
  uint32_t next_scope_id() const { return next_scope_id_; }
  uint32_t next_collection_id() const { return next_collection_id_; }
  size_t collection_count() const { return by_collection_id_.size(); }

  // The next manifest, or why not. Names must pass scope_or_collection_name_problem (else
  // InvalidName; a collection named _default is never created: it exists in the _default
  // scope from the start, and once dropped it stays so, as in Couchbase 7). A dropped scope
  // takes its collections with it.
  ManifestEdit with_scope(std::string_view name) const;
  ManifestEdit without_scope(std::string_view name) const;
  ManifestEdit with_collection(std::string_view scope, std::string_view name,
                               uint32_t max_ttl) const;
  ManifestEdit without_collection(std::string_view scope, std::string_view name) const;

  // The collection with this id, or null.
  const Collection* collection(uint32_t collection_id) const;

  // The collection's maxTTL (0 when it has none, or there is no such collection), and
  // whether any collection has one: what every write with an expiry asks, so both are
  // answered without a scan.
  uint32_t max_ttl_of(uint32_t collection_id) const;
  bool has_max_ttls() const { return has_max_ttls_; }

  // Whether a collection has this id. Runs on every keyed request: a binary search over a
  // sorted array of ids, with no allocation.
  bool has_collection(uint32_t collection_id) const;

  // The id of the scope holding the collection; nullopt when there is no such collection.
  std::optional<uint32_t> scope_of(uint32_t collection_id) const;

  // "scope.collection" -> collection id, under the path rules above.
  PathLookup lookup_collection(std::string_view path) const;
  std::optional<uint32_t> collection_id(std::string_view path) const;

  // "scope" -> scope id, under the path rules above.
  PathLookup lookup_scope(std::string_view path) const;
  std::optional<uint32_t> scope_id(std::string_view scope_name) const;

  // The manifest as GET_COLLECTIONS_MANIFEST answers it, ids and uid as lowercase hex strings:
  // {"uid":"2","scopes":[{"name":"_default","uid":"0","collections":[{"name":"_default",
  // "uid":"0"}]}, ...]}; a collection with a maxTTL has "maxTTL":N too (seconds, a number).
  std::string json() const;

  // The same as the management port's GET .../scopes answers it: every collection has
  // "maxTTL" (0 when it has none of its own).
  std::string rest_json() const;

 private:
  struct IdEntry {
    uint32_t collection_id;
    uint32_t scope_id;
    uint32_t max_ttl;
  };
  // The entry of the collection with this id, or null.
  const IdEntry* find_entry(uint32_t collection_id) const;

  const Scope* find_scope(std::string_view name) const;
  std::string write_json(bool every_max_ttl) const;
  // The next manifest: `scopes` with the uid one higher and the given next ids.
  ManifestEdit next(std::vector<Scope> scopes, uint32_t next_scope_id,
                    uint32_t next_collection_id) const;

  uint64_t uid_;
  std::vector<Scope> scopes_;
  uint32_t next_scope_id_;
  uint32_t next_collection_id_;
  std::vector<IdEntry> by_collection_id_;  // sorted by collection_id
  // has_collection() runs on every keyed request: ids below 256 (all a manifest has in
  // practice, as ids count up from 8) are answered from a bit each.
  std::bitset<256> small_ids_;
  bool has_max_ttls_ = false;
};

struct ManifestEdit {
  ManifestError error = ManifestError::None;
  std::optional<CollectionsManifest> manifest;
};

}  // namespace tern::cluster
