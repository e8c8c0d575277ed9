#include "cluster/collections_manifest.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cstdio>
#include <set>
#include <stdexcept>

#include "cluster/collection_names.h"

namespace tern::cluster {

namespace {

using protocol::Status;

constexpr std::string_view kDefault = "_default";
// kv_engine's limit for scope and collection names.
constexpr size_t kMaxNameLength = 251;

// Names a manifest may hold: letters, digits and _ - % $. Malformed names in a path are
// Einval rather than "unknown", as in kv_engine.
bool is_valid_name(std::string_view name) {
  if (name.empty() || name.size() > kMaxNameLength) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '%' || c == '$';
  });
}

std::string_view or_default(std::string_view name) { return name.empty() ? kDefault : name; }

std::string hex(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "%llx", static_cast<unsigned long long>(value));
  return text;
}

ManifestEdit refused(ManifestError error) {
  return ManifestEdit{.error = error, .manifest = std::nullopt};
}

// The id after `ids`' highest, and never below the first a user may have.
uint32_t lowest_free_id(uint32_t highest_used) {
  return std::max(CollectionsManifest::kFirstUserId, highest_used + 1);
}

}  // namespace

std::string_view manifest_error_name(ManifestError error) {
  switch (error) {
    case ManifestError::None:
      return "None";
    case ManifestError::InvalidName:
      return "InvalidName";
    case ManifestError::ScopeExists:
      return "ScopeExists";
    case ManifestError::ScopeNotFound:
      return "ScopeNotFound";
    case ManifestError::CollectionExists:
      return "CollectionExists";
    case ManifestError::CollectionNotFound:
      return "CollectionNotFound";
    case ManifestError::LimitReached:
      return "LimitReached";
    case ManifestError::DefaultScopeUndroppable:
      return "DefaultScopeUndroppable";
    case ManifestError::InvalidMaxTtl:
      return "InvalidMaxTtl";
  }
  return "unknown";
}

CollectionsManifest::CollectionsManifest(uint64_t uid, std::vector<Scope> scopes,
                                         std::optional<uint32_t> next_scope_id,
                                         std::optional<uint32_t> next_collection_id)
    : uid_(uid), scopes_(std::move(scopes)) {
  std::set<std::string_view> scope_names;
  std::set<uint32_t> scope_ids;
  uint32_t highest_scope = 0;
  for (const Scope& scope : scopes_) {
    if (!scope_names.insert(scope.name).second) {
      throw std::invalid_argument("scope name repeats: " + scope.name);
    }
    if (!scope_ids.insert(scope.id).second) {
      throw std::invalid_argument("scope id repeats: " + hex(scope.id));
    }
    highest_scope = std::max(highest_scope, scope.id);
    std::set<std::string_view> names;
    for (const Collection& collection : scope.collections) {
      if (!names.insert(collection.name).second) {
        throw std::invalid_argument("collection name repeats in scope " + scope.name + ": " +
                                    collection.name);
      }
      by_collection_id_.push_back({collection.id, scope.id, collection.max_ttl});
      has_max_ttls_ = has_max_ttls_ || collection.max_ttl != 0;
    }
  }
  std::sort(by_collection_id_.begin(), by_collection_id_.end(),
            [](const IdEntry& a, const IdEntry& b) { return a.collection_id < b.collection_id; });
  const auto repeat = std::adjacent_find(
      by_collection_id_.begin(), by_collection_id_.end(),
      [](const IdEntry& a, const IdEntry& b) { return a.collection_id == b.collection_id; });
  if (repeat != by_collection_id_.end()) {
    throw std::invalid_argument("collection id repeats: " + hex(repeat->collection_id));
  }
  for (const IdEntry& entry : by_collection_id_) {
    if (entry.collection_id < small_ids_.size()) small_ids_.set(entry.collection_id);
  }
  const uint32_t highest_collection =
      by_collection_id_.empty() ? 0 : by_collection_id_.back().collection_id;
  // An id of UINT32_MAX leaves no next one: the next id then stays at it, and every create
  // answers LimitReached.
  next_scope_id_ = next_scope_id.value_or(
      highest_scope == UINT32_MAX ? UINT32_MAX : lowest_free_id(highest_scope));
  next_collection_id_ = next_collection_id.value_or(
      highest_collection == UINT32_MAX ? UINT32_MAX : lowest_free_id(highest_collection));
  const auto check_next = [](uint32_t next, uint32_t highest, const char* kind) {
    const bool exhausted = next == UINT32_MAX && highest == UINT32_MAX;
    if (next < kFirstUserId || (next <= highest && !exhausted)) {
      throw std::invalid_argument(std::string("next ") + kind + " id " + hex(next) +
                                  " is not above every " + kind + " id (highest " + hex(highest) +
                                  ")");
    }
  };
  check_next(next_scope_id_, highest_scope, "scope");
  check_next(next_collection_id_, highest_collection, "collection");
}

ManifestEdit CollectionsManifest::next(std::vector<Scope> scopes, uint32_t next_scope_id,
                                       uint32_t next_collection_id) const {
  return ManifestEdit{.manifest = CollectionsManifest(uid_ + 1, std::move(scopes), next_scope_id,
                                                      next_collection_id)};
}

ManifestEdit CollectionsManifest::with_scope(std::string_view name) const {
  if (scope_or_collection_name_problem(name)) return refused(ManifestError::InvalidName);
  if (find_scope(name) != nullptr) return refused(ManifestError::ScopeExists);
  if (scopes_.size() >= kMaxScopes || next_scope_id_ == UINT32_MAX) {
    return refused(ManifestError::LimitReached);
  }
  std::vector<Scope> scopes = scopes_;
  scopes.push_back(Scope{.name = std::string(name), .id = next_scope_id_, .collections = {}});
  return next(std::move(scopes), next_scope_id_ + 1, next_collection_id_);
}

ManifestEdit CollectionsManifest::without_scope(std::string_view name) const {
  if (name == kDefault) return refused(ManifestError::DefaultScopeUndroppable);
  std::vector<Scope> scopes = scopes_;
  const auto it = std::find_if(scopes.begin(), scopes.end(),
                               [name](const Scope& scope) { return scope.name == name; });
  if (it == scopes.end()) return refused(ManifestError::ScopeNotFound);
  scopes.erase(it);
  return next(std::move(scopes), next_scope_id_, next_collection_id_);
}

ManifestEdit CollectionsManifest::with_collection(std::string_view scope_name,
                                                  std::string_view name, uint32_t max_ttl) const {
  if (scope_or_collection_name_problem(name)) return refused(ManifestError::InvalidName);
  const Scope* scope = find_scope(scope_name);
  if (scope == nullptr) return refused(ManifestError::ScopeNotFound);
  for (const Collection& collection : scope->collections) {
    if (collection.name == name) return refused(ManifestError::CollectionExists);
  }
  if (name == kDefault) return refused(ManifestError::InvalidName);
  if (max_ttl > kMaxTtlSeconds) return refused(ManifestError::InvalidMaxTtl);
  if (collection_count() >= kMaxCollections || next_collection_id_ == UINT32_MAX) {
    return refused(ManifestError::LimitReached);
  }
  std::vector<Scope> scopes = scopes_;
  Scope& target = scopes[static_cast<size_t>(scope - scopes_.data())];
  target.collections.push_back(
      Collection{.name = std::string(name), .id = next_collection_id_, .max_ttl = max_ttl});
  return next(std::move(scopes), next_scope_id_, next_collection_id_ + 1);
}

ManifestEdit CollectionsManifest::without_collection(std::string_view scope_name,
                                                     std::string_view name) const {
  const Scope* scope = find_scope(scope_name);
  if (scope == nullptr) return refused(ManifestError::ScopeNotFound);
  std::vector<Scope> scopes = scopes_;
  std::vector<Collection>& collections =
      scopes[static_cast<size_t>(scope - scopes_.data())].collections;
  const auto it =
      std::find_if(collections.begin(), collections.end(),
                   [name](const Collection& collection) { return collection.name == name; });
  if (it == collections.end()) return refused(ManifestError::CollectionNotFound);
  collections.erase(it);
  return next(std::move(scopes), next_scope_id_, next_collection_id_);
}

const Collection* CollectionsManifest::collection(uint32_t collection_id) const {
  const std::optional<uint32_t> scope_id = scope_of(collection_id);
  if (!scope_id) return nullptr;
  for (const Scope& scope : scopes_) {
    if (scope.id != *scope_id) continue;
    for (const Collection& collection : scope.collections) {
      if (collection.id == collection_id) return &collection;
    }
  }
  return nullptr;
}

CollectionsManifest CollectionsManifest::default_only() {
  return CollectionsManifest(
      0, {Scope{.name = std::string(kDefault),
                .id = 0,
                .collections = {Collection{.name = std::string(kDefault), .id = 0}}}});
}

bool CollectionsManifest::has_collection(uint32_t collection_id) const {
  if (collection_id < small_ids_.size()) return small_ids_.test(collection_id);
  return scope_of(collection_id).has_value();
}

const CollectionsManifest::IdEntry* CollectionsManifest::find_entry(
    uint32_t collection_id) const {
  const auto it =
      std::lower_bound(by_collection_id_.begin(), by_collection_id_.end(), collection_id,
                       [](const IdEntry& entry, uint32_t id) { return entry.collection_id < id; });
  if (it == by_collection_id_.end() || it->collection_id != collection_id) return nullptr;
  return &*it;
}

std::optional<uint32_t> CollectionsManifest::scope_of(uint32_t collection_id) const {
  const IdEntry* entry = find_entry(collection_id);
  if (entry == nullptr) return std::nullopt;
  return entry->scope_id;
}

uint32_t CollectionsManifest::max_ttl_of(uint32_t collection_id) const {
  if (!has_max_ttls_) return 0;
  const IdEntry* entry = find_entry(collection_id);
  return entry == nullptr ? 0 : entry->max_ttl;
}

const Scope* CollectionsManifest::find_scope(std::string_view name) const {
  for (const Scope& scope : scopes_) {
    if (scope.name == name) return &scope;
  }
  return nullptr;
}

PathLookup CollectionsManifest::lookup_collection(std::string_view path) const {
  const size_t dot = path.find('.');
  if (dot == std::string_view::npos || path.find('.', dot + 1) != std::string_view::npos) {
    return {Status::Einval};
  }
  const std::string_view scope_name = or_default(path.substr(0, dot));
  const std::string_view collection_name = or_default(path.substr(dot + 1));
  if (!is_valid_name(scope_name) || !is_valid_name(collection_name)) return {Status::Einval};
  const Scope* scope = find_scope(scope_name);
  if (scope == nullptr) return {Status::UnknownScope};
  for (const Collection& collection : scope->collections) {
    if (collection.name == collection_name) return {Status::Success, collection.id};
  }
  return {Status::UnknownCollection};
}

std::optional<uint32_t> CollectionsManifest::collection_id(std::string_view path) const {
  const PathLookup found = lookup_collection(path);
  if (found.status != Status::Success) return std::nullopt;
  return found.id;
}

PathLookup CollectionsManifest::lookup_scope(std::string_view path) const {
  const size_t dot = path.find('.');
  if (dot != std::string_view::npos && path.find('.', dot + 1) != std::string_view::npos) {
    return {Status::Einval};
  }
  const std::string_view scope_name = or_default(path.substr(0, dot));
  if (!is_valid_name(scope_name)) return {Status::Einval};
  const Scope* scope = find_scope(scope_name);
  if (scope == nullptr) return {Status::UnknownScope};
  return {Status::Success, scope->id};
}

std::optional<uint32_t> CollectionsManifest::scope_id(std::string_view scope_name) const {
  const PathLookup found = lookup_scope(scope_name);
  if (found.status != Status::Success) return std::nullopt;
  return found.id;
}

std::string CollectionsManifest::json() const { return write_json(false); }

std::string CollectionsManifest::rest_json() const { return write_json(true); }

std::string CollectionsManifest::write_json(bool every_max_ttl) const {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  const auto write_named = [&writer](const std::string& name, uint64_t id) {
    writer.Key("name");
    writer.String(name.data(), static_cast<rapidjson::SizeType>(name.size()));
    writer.Key("uid");
    writer.String(hex(id).c_str());
  };
  writer.StartObject();
  writer.Key("uid");
  writer.String(hex(uid_).c_str());
  writer.Key("scopes");
  writer.StartArray();
  for (const Scope& scope : scopes_) {
    writer.StartObject();
    write_named(scope.name, scope.id);
    writer.Key("collections");
    writer.StartArray();
    for (const Collection& collection : scope.collections) {
      writer.StartObject();
      write_named(collection.name, collection.id);
      if (every_max_ttl || collection.max_ttl != 0) {
        writer.Key("maxTTL");
        writer.Uint(collection.max_ttl);
      }
      writer.EndObject();
    }
    writer.EndArray();
    writer.EndObject();
  }
  writer.EndArray();
  writer.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace tern::cluster
