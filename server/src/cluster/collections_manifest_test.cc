#include "cluster/collections_manifest.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace tern::cluster {
namespace {

using protocol::Status;

// _default{_default=0, brewery=8}, inventory(8){airline=9, route=a}, tenant-1(b){} — uid 0x1f.
CollectionsManifest sample() {
  return CollectionsManifest(
      0x1f, {Scope{"_default", 0, {{"_default", 0}, {"brewery", 8}}},
             Scope{"inventory", 8, {{"airline", 9}, {"route", 0xa}}},
             Scope{"tenant-1", 0xb, {}}});
}

TEST(CollectionsManifest, DefaultOnly) {
  const CollectionsManifest manifest = CollectionsManifest::default_only();
  EXPECT_EQ(manifest.uid(), 0u);
  EXPECT_TRUE(manifest.has_collection(0));
  EXPECT_FALSE(manifest.has_collection(8));
  EXPECT_EQ(manifest.scope_of(0), 0u);
  EXPECT_EQ(manifest.collection_id("_default._default"), 0u);
  EXPECT_EQ(manifest.collection_id("."), 0u);
  EXPECT_EQ(manifest.scope_id(""), 0u);
  EXPECT_EQ(manifest.json(),
            R"({"uid":"0","scopes":[{"name":"_default","uid":"0","collections":)"
            R"([{"name":"_default","uid":"0"}]}]})");
}

TEST(CollectionsManifest, HasCollectionAndScopeOf) {
  const CollectionsManifest manifest = sample();
  const std::vector<std::pair<uint32_t, std::optional<uint32_t>>> cases = {
      {0, 0}, {8, 0}, {9, 8}, {0xa, 8}, {1, std::nullopt}, {0xb, std::nullopt},
      {0xffffffff, std::nullopt},
  };
  for (const auto& [collection, scope] : cases) {
    EXPECT_EQ(manifest.has_collection(collection), scope.has_value()) << collection;
    EXPECT_EQ(manifest.scope_of(collection), scope) << collection;
  }
}

struct PathVector {
  std::string path;
  Status status;
  uint32_t id;
};

TEST(CollectionsManifest, LookupCollection) {
  const CollectionsManifest manifest = sample();
  const std::vector<PathVector> vectors = {
      {"_default._default", Status::Success, 0},
      {".", Status::Success, 0},
      {"_default.", Status::Success, 0},
      {"._default", Status::Success, 0},
      {".brewery", Status::Success, 8},
      {"_default.brewery", Status::Success, 8},
      {"inventory.airline", Status::Success, 9},
      {"inventory.route", Status::Success, 0xa},
      {"inventory.", Status::UnknownCollection, 0},  // no _default collection there
      {"inventory.brewery", Status::UnknownCollection, 0},
      {"tenant-1.x", Status::UnknownCollection, 0},
      {"nowhere.airline", Status::UnknownScope, 0},
      {"Inventory.airline", Status::UnknownScope, 0},  // names are case-sensitive
      {"inventory", Status::Einval, 0},                // needs exactly one dot
      {"", Status::Einval, 0},
      {"a.b.c", Status::Einval, 0},
      {"inventory.air line", Status::Einval, 0},
      {"inv/entory.airline", Status::Einval, 0},
      {"_default." + std::string(252, 'c'), Status::Einval, 0},
  };
  for (const PathVector& v : vectors) {
    const PathLookup found = manifest.lookup_collection(v.path);
    EXPECT_EQ(found.status, v.status) << v.path;
    if (v.status == Status::Success) {
      EXPECT_EQ(found.id, v.id) << v.path;
      EXPECT_EQ(manifest.collection_id(v.path), v.id) << v.path;
    } else {
      EXPECT_EQ(manifest.collection_id(v.path), std::nullopt) << v.path;
    }
  }
}

TEST(CollectionsManifest, LookupScope) {
  const CollectionsManifest manifest = sample();
  const std::vector<PathVector> vectors = {
      {"_default", Status::Success, 0},
      {"", Status::Success, 0},
      {"inventory", Status::Success, 8},
      {"inventory.airline", Status::Success, 8},  // the collection part is ignored
      {"inventory.nothing", Status::Success, 8},
      {".airline", Status::Success, 0},
      {"tenant-1", Status::Success, 0xb},
      {"nowhere", Status::UnknownScope, 0},
      {"a.b.c", Status::Einval, 0},
      {"in ventory", Status::Einval, 0},
  };
  for (const PathVector& v : vectors) {
    const PathLookup found = manifest.lookup_scope(v.path);
    EXPECT_EQ(found.status, v.status) << v.path;
    if (v.status == Status::Success) {
      EXPECT_EQ(found.id, v.id) << v.path;
      EXPECT_EQ(manifest.scope_id(v.path), v.id) << v.path;
    } else {
      EXPECT_EQ(manifest.scope_id(v.path), std::nullopt) << v.path;
    }
  }
}

TEST(CollectionsManifest, JsonAsGetCollectionsManifestAnswersIt) {
  const CollectionsManifest manifest = sample();
  rapidjson::Document doc;
  const std::string text = manifest.json();
  doc.Parse(text.c_str());
  ASSERT_FALSE(doc.HasParseError()) << text;
  ASSERT_TRUE(doc.IsObject());
  EXPECT_STREQ(doc["uid"].GetString(), "1f");
  const auto& scopes = doc["scopes"];
  ASSERT_EQ(scopes.Size(), 3u);

  struct Expected {
    const char* name;
    const char* uid;
    std::vector<std::pair<const char*, const char*>> collections;
  };
  const std::vector<Expected> expected = {
      {"_default", "0", {{"_default", "0"}, {"brewery", "8"}}},
      {"inventory", "8", {{"airline", "9"}, {"route", "a"}}},
      {"tenant-1", "b", {}},
  };
  for (size_t i = 0; i < expected.size(); ++i) {
    const auto& scope = scopes[static_cast<rapidjson::SizeType>(i)];
    EXPECT_EQ(scope.MemberCount(), 3u);
    EXPECT_STREQ(scope["name"].GetString(), expected[i].name);
    EXPECT_STREQ(scope["uid"].GetString(), expected[i].uid);
    const auto& collections = scope["collections"];
    ASSERT_EQ(collections.Size(), expected[i].collections.size()) << expected[i].name;
    for (size_t j = 0; j < expected[i].collections.size(); ++j) {
      const auto& collection = collections[static_cast<rapidjson::SizeType>(j)];
      EXPECT_EQ(collection.MemberCount(), 2u);
      EXPECT_STREQ(collection["name"].GetString(), expected[i].collections[j].first);
      EXPECT_STREQ(collection["uid"].GetString(), expected[i].collections[j].second);
    }
  }
}

TEST(CollectionsManifest, RejectsRepeats) {
  EXPECT_THROW(CollectionsManifest(1, {Scope{"a", 8, {}}, Scope{"a", 9, {}}}),
               std::invalid_argument);
  EXPECT_THROW(CollectionsManifest(1, {Scope{"a", 8, {}}, Scope{"b", 8, {}}}),
               std::invalid_argument);
  EXPECT_THROW(CollectionsManifest(1, {Scope{"a", 8, {{"c", 9}, {"c", 10}}}}),
               std::invalid_argument);
  EXPECT_THROW(CollectionsManifest(1, {Scope{"a", 8, {{"c", 9}}}, Scope{"b", 10, {{"d", 9}}}}),
               std::invalid_argument);
  // The same collection name in two scopes is fine.
  EXPECT_NO_THROW(CollectionsManifest(1, {Scope{"a", 8, {{"c", 9}}}, Scope{"b", 10, {{"c", 11}}}}));
}

// The manifest an edit built; fails the test when the edit was refused.
CollectionsManifest edited(const ManifestEdit& edit) {
  EXPECT_EQ(edit.error, ManifestError::None) << manifest_error_name(edit.error);
  if (!edit.manifest) throw std::logic_error("the edit was refused");
  return *edit.manifest;
}

TEST(CollectionsManifestEdits, CreateAndDropRaiseTheUidAndTakeFreshIds) {
  const CollectionsManifest start = CollectionsManifest::default_only();
  EXPECT_EQ(start.next_scope_id(), 8u);
  EXPECT_EQ(start.next_collection_id(), 8u);

  const CollectionsManifest with_app = edited(start.with_scope("app"));
  EXPECT_EQ(with_app.uid(), 1u);
  EXPECT_EQ(with_app.scope_id("app"), 8u);
  EXPECT_EQ(with_app.next_scope_id(), 9u);

  const CollectionsManifest with_users = edited(with_app.with_collection("app", "users", 60));
  EXPECT_EQ(with_users.uid(), 2u);
  EXPECT_EQ(with_users.collection_id("app.users"), 8u);
  EXPECT_EQ(with_users.collection(8)->max_ttl, 60u);
  EXPECT_EQ(with_users.next_collection_id(), 9u);
  EXPECT_TRUE(with_users.has_collection(8));

  const CollectionsManifest dropped = edited(with_users.without_collection("app", "users"));
  EXPECT_EQ(dropped.uid(), 3u);
  EXPECT_FALSE(dropped.has_collection(8));
  EXPECT_EQ(dropped.collection(8), nullptr);
  EXPECT_EQ(dropped.next_collection_id(), 9u);  // not given back

  // The same name again is a new collection.
  const CollectionsManifest again = edited(dropped.with_collection("app", "users", 0));
  EXPECT_EQ(again.uid(), 4u);
  EXPECT_EQ(again.collection_id("app.users"), 9u);
  EXPECT_FALSE(again.has_collection(8));

  // A dropped scope takes its collections; a scope of the same name is a new scope.
  const CollectionsManifest no_app = edited(again.without_scope("app"));
  EXPECT_EQ(no_app.uid(), 5u);
  EXPECT_FALSE(no_app.has_collection(9));
  EXPECT_EQ(no_app.scope_id("app"), std::nullopt);
  const CollectionsManifest app_again = edited(no_app.with_scope("app"));
  EXPECT_EQ(app_again.scope_id("app"), 9u);
  EXPECT_EQ(edited(app_again.with_collection("app", "users", 0)).collection_id("app.users"),
            10u);
  // The manifest an edit started from is unchanged.
  EXPECT_EQ(with_users.uid(), 2u);
  EXPECT_EQ(with_users.collection_id("app.users"), 8u);
}

TEST(CollectionsManifestEdits, DefaultCollectionDropsForGoodAndDefaultScopeStays) {
  const CollectionsManifest start = CollectionsManifest::default_only();
  EXPECT_EQ(start.without_scope("_default").error, ManifestError::DefaultScopeUndroppable);
  const CollectionsManifest no_default = edited(start.without_collection("_default", "_default"));
  EXPECT_FALSE(no_default.has_collection(0));
  EXPECT_EQ(no_default.scope_id("_default"), 0u);
  EXPECT_EQ(no_default.with_collection("_default", "_default", 0).error,
            ManifestError::InvalidName);
  EXPECT_EQ(start.with_collection("_default", "_default", 0).error,
            ManifestError::CollectionExists);
}

TEST(CollectionsManifestEdits, RefusalsSayWhy) {
  const CollectionsManifest manifest = sample();
  const std::vector<std::pair<ManifestEdit, ManifestError>> cases = {
      {manifest.with_scope("inventory"), ManifestError::ScopeExists},
      {manifest.with_scope("_default"), ManifestError::ScopeExists},
      {manifest.with_scope("_system"), ManifestError::InvalidName},
      {manifest.with_scope(""), ManifestError::InvalidName},
      {manifest.with_scope("a.b"), ManifestError::InvalidName},
      {manifest.with_scope(std::string(252, 's')), ManifestError::InvalidName},
      {manifest.without_scope("nowhere"), ManifestError::ScopeNotFound},
      {manifest.with_collection("inventory", "airline", 0), ManifestError::CollectionExists},
      {manifest.with_collection("nowhere", "c", 0), ManifestError::ScopeNotFound},
      {manifest.with_collection("inventory", "%c", 0), ManifestError::InvalidName},
      {manifest.with_collection("inventory", "_default", 0), ManifestError::InvalidName},
      {manifest.with_collection("inventory", "c", CollectionsManifest::kMaxTtlSeconds + 1),
       ManifestError::InvalidMaxTtl},
      {manifest.without_collection("inventory", "nothing"), ManifestError::CollectionNotFound},
      {manifest.without_collection("nowhere", "airline"), ManifestError::ScopeNotFound},
  };
  for (const auto& [edit, error] : cases) {
    EXPECT_EQ(edit.error, error) << manifest_error_name(edit.error);
    EXPECT_FALSE(edit.manifest.has_value());
  }
  EXPECT_EQ(manifest.with_collection("inventory", "c", CollectionsManifest::kMaxTtlSeconds).error,
            ManifestError::None);
}

TEST(CollectionsManifestEdits, LimitsAndExhaustedIds) {
  // kMaxScopes scopes, s1 holding kMaxCollections - 1 collections besides _default.
  std::vector<Scope> scopes = {Scope{"_default", 0, {{"_default", 0}}}};
  for (uint32_t i = 1; i < CollectionsManifest::kMaxScopes; ++i) {
    scopes.push_back(Scope{"s" + std::to_string(i), 8 + i, {}});
  }
  for (uint32_t i = 1; i < CollectionsManifest::kMaxCollections; ++i) {
    scopes[1].collections.push_back({"c" + std::to_string(i), 8 + i});
  }
  const CollectionsManifest full(1, scopes);
  EXPECT_EQ(full.with_scope("one-more").error, ManifestError::LimitReached);
  EXPECT_EQ(full.with_collection("s1", "one-more", 0).error, ManifestError::LimitReached);
  // Dropping makes room, but ids keep counting up.
  const CollectionsManifest room = edited(edited(full.without_collection("s1", "c1"))
                                              .with_collection("s2", "c", 0));
  EXPECT_EQ(room.collection_id("s2.c"), full.next_collection_id());
  EXPECT_EQ(edited(edited(full.without_scope("s1")).with_scope("t")).scope_id("t"),
            full.next_scope_id());

  const CollectionsManifest last(
      7, {Scope{"_default", 0, {{"_default", 0}}}, Scope{"s", UINT32_MAX, {{"c", UINT32_MAX}}}});
  EXPECT_EQ(last.with_scope("t").error, ManifestError::LimitReached);
  EXPECT_EQ(last.with_collection("s", "d", 0).error, ManifestError::LimitReached);
}

TEST(CollectionsManifestEdits, NextIdsComeFromTheConstructorOrTheHighestIds) {
  const CollectionsManifest derived(3, {Scope{"_default", 0, {{"_default", 0}, {"b", 0x12}}},
                                        Scope{"s", 0x20, {}}});
  EXPECT_EQ(derived.next_scope_id(), 0x21u);
  EXPECT_EQ(derived.next_collection_id(), 0x13u);
  const CollectionsManifest given(3, {Scope{"_default", 0, {{"_default", 0}}}}, 0x40, 0x50);
  EXPECT_EQ(given.next_scope_id(), 0x40u);
  EXPECT_EQ(given.next_collection_id(), 0x50u);
  EXPECT_EQ(edited(given.with_scope("s")).scope_id("s"), 0x40u);
  EXPECT_THROW(CollectionsManifest(1, {Scope{"s", 9, {}}}, 9, 8), std::invalid_argument);
  EXPECT_THROW(CollectionsManifest(1, {Scope{"s", 9, {{"c", 10}}}}, 10, 10),
               std::invalid_argument);
  EXPECT_THROW(CollectionsManifest(1, {Scope{"_default", 0, {}}}, 7, 8), std::invalid_argument);
}

TEST(CollectionsManifestEdits, MaxTtlOfAnswersByIdWithoutAScan) {
  const CollectionsManifest none = sample();
  EXPECT_FALSE(none.has_max_ttls());
  EXPECT_EQ(none.max_ttl_of(8), 0u);
  const CollectionsManifest some = edited(none.with_collection("inventory", "ttl", 90));
  EXPECT_TRUE(some.has_max_ttls());
  const uint32_t id = *some.collection_id("inventory.ttl");
  EXPECT_EQ(some.max_ttl_of(id), 90u);
  EXPECT_EQ(some.max_ttl_of(9), 0u);    // a collection without one
  EXPECT_EQ(some.max_ttl_of(999), 0u);  // no such collection
  EXPECT_FALSE(edited(some.without_collection("inventory", "ttl")).has_max_ttls());
}

TEST(CollectionsManifestEdits, MaxTtlIsInBothJsonViews) {
  const CollectionsManifest manifest(
      5, {Scope{"_default", 0, {{"_default", 0}}}, Scope{"s", 8, {{"c", 8, 3600}, {"d", 9}}}});
  EXPECT_EQ(manifest.json(),
            R"({"uid":"5","scopes":[{"name":"_default","uid":"0","collections":)"
            R"([{"name":"_default","uid":"0"}]},{"name":"s","uid":"8","collections":)"
            R"([{"name":"c","uid":"8","maxTTL":3600},{"name":"d","uid":"9"}]}]})");
  EXPECT_EQ(manifest.rest_json(),
            R"({"uid":"5","scopes":[{"name":"_default","uid":"0","collections":)"
            R"([{"name":"_default","uid":"0","maxTTL":0}]},{"name":"s","uid":"8","collections":)"
            R"([{"name":"c","uid":"8","maxTTL":3600},{"name":"d","uid":"9","maxTTL":0}]}]})");
}

}  // namespace
}  // namespace tern::cluster
