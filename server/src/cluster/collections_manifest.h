#pragma once
// A bucket's collections manifest: its scopes, the collections in each, and a uid that grows
// whenever the set changes. Clients read it with GET_COLLECTIONS_MANIFEST (0xba) and turn
// "scope.collection" paths into ids with GET_COLLECTION_ID (0xbb) and GET_SCOPE_ID (0xbc);
// with Collections negotiated, every document key then starts with its collection id.
//
// Ids are u32; 0 is the _default scope and the _default collection, 1-7 are reserved. The
// manifest is immutable once built, so it is shared between threads without locking.
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

class CollectionsManifest {
 public:
  // Throws std::invalid_argument when scope names or ids repeat, a collection id repeats
  // (ids are unique across scopes) or a collection name repeats within its scope.
  CollectionsManifest(uint64_t uid, std::vector<Scope> scopes);

  // Uid 0: the _default scope holding only the _default collection (what a bucket has
  // before anyone creates a collection).
  static CollectionsManifest default_only();

  uint64_t uid() const { return uid_; }
  const std::vector<Scope>& scopes() const { return scopes_; }

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
  // "uid":"0"}]}, ...]}
  std::string json() const;

 private:
  struct IdEntry {
    uint32_t collection_id;
    uint32_t scope_id;
  };

  const Scope* find_scope(std::string_view name) const;

  uint64_t uid_;
  std::vector<Scope> scopes_;
  std::vector<IdEntry> by_collection_id_;  // sorted by collection_id
  // has_collection() runs on every keyed request: ids below 256 (all a manifest has in
  // practice, as ids count up from 8) are answered from a bit each.
  std::bitset<256> small_ids_;
};

}  // namespace tern::cluster
