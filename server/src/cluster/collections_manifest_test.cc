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

}  // namespace
}  // namespace tern::cluster
