#include "cluster/collections_manifest.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cstdio>
#include <set>
#include <stdexcept>

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
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '-' || c == '%' || c == '$';
  });
}

std::string_view or_default(std::string_view name) { return name.empty() ? kDefault : name; }

std::string hex(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "%llx", static_cast<unsigned long long>(value));
  return text;
}

}  // namespace

CollectionsManifest::CollectionsManifest(uint64_t uid, std::vector<Scope> scopes)
    : uid_(uid), scopes_(std::move(scopes)) {
  std::set<std::string_view> scope_names;
  std::set<uint32_t> scope_ids;
  for (const Scope& scope : scopes_) {
    if (!scope_names.insert(scope.name).second) {
      throw std::invalid_argument("scope name repeats: " + scope.name);
    }
    if (!scope_ids.insert(scope.id).second) {
      throw std::invalid_argument("scope id repeats: " + hex(scope.id));
    }
    std::set<std::string_view> names;
    for (const Collection& collection : scope.collections) {
      if (!names.insert(collection.name).second) {
        throw std::invalid_argument("collection name repeats in scope " + scope.name + ": " +
                                    collection.name);
      }
      by_collection_id_.push_back({collection.id, scope.id});
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

std::optional<uint32_t> CollectionsManifest::scope_of(uint32_t collection_id) const {
  const auto it = std::lower_bound(
      by_collection_id_.begin(), by_collection_id_.end(), collection_id,
      [](const IdEntry& entry, uint32_t id) { return entry.collection_id < id; });
  if (it == by_collection_id_.end() || it->collection_id != collection_id) return std::nullopt;
  return it->scope_id;
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

std::string CollectionsManifest::json() const {
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
