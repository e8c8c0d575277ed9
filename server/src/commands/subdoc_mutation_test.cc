// The sub-document mutations through the dispatcher, against a real engine: every operation
// and status (as single-path and multi-path requests, from one table), the document-level
// rules (create, insert, CAS, locks, tombstones, revive), expiry and PreserveTtl, XATTRs and
// macros, atomicity and the retry of lost races.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "commands/dispatcher.h"
#include "commands/dispatcher_harness.h"
#include "commands/subdoc_macros.h"
#include "commands/test_node.h"
#include "common/clock.h"
#include "engine/engine.h"
#include "protocol/codec.h"
#include "protocol/datatype.h"
#include "protocol/opcode.h"
#include "xattr/blob.h"

namespace tern::commands {
namespace {

using protocol::Opcode;
using protocol::Status;
using testing::Bytes;
using testing::expect_error;
using testing::Connection;
using testing::Request;
using testing::Response;

// Wire opcodes of the specs (as a multi-mutation carries them).
constexpr uint8_t kDictAdd = 0xc7;
constexpr uint8_t kDictUpsert = 0xc8;
constexpr uint8_t kRemove = 0xc9;
constexpr uint8_t kReplace = 0xca;
constexpr uint8_t kPushLast = 0xcb;
constexpr uint8_t kPushFirst = 0xcc;
constexpr uint8_t kInsert = 0xcd;
constexpr uint8_t kAddUnique = 0xce;
constexpr uint8_t kCounter = 0xcf;
constexpr uint8_t kSetDoc = 0x01;
constexpr uint8_t kDeleteDoc = 0x04;
constexpr uint8_t kReplaceBody = 0xd3;  // SUBDOC_REPLACE_BODY_WITH_XATTR

// Path flags.
constexpr uint8_t kParents = 0x01;
constexpr uint8_t kXattr = 0x04;
constexpr uint8_t kMacros = 0x10;
constexpr uint8_t kBinary = 0x20;

// Doc flags.
constexpr uint8_t kMkdoc = 0x01;
constexpr uint8_t kAdd = 0x02;
constexpr uint8_t kAccessDeleted = 0x04;
constexpr uint8_t kCreateAsDeleted = 0x08;
constexpr uint8_t kRevive = 0x10;

struct Spec {
  uint8_t op = kDictUpsert;
  std::string path;
  std::string value;
  uint8_t flags = 0;
};

std::string multi_value(const std::vector<Spec>& specs) {
  std::string out;
  for (const Spec& spec : specs) {
    uint8_t header[8];
    header[0] = spec.op;
    header[1] = spec.flags;
    protocol::store_be16(header + 2, static_cast<uint16_t>(spec.path.size()));
    protocol::store_be32(header + 4, static_cast<uint32_t>(spec.value.size()));
    out.append(reinterpret_cast<const char*>(header), sizeof header);
    out += spec.path;
    out += spec.value;
  }
  return out;
}

struct Options {
  uint8_t doc_flags = 0;
  std::optional<uint32_t> expiry = std::nullopt;
  uint64_t cas = 0;
  Bytes framing = {};
  std::optional<uint32_t> user_flags = std::nullopt;  // after the expiry (0 when it has none)
};

// Multi-path extras: [expiry u32 [user flags u32]] [doc flags u8].
Bytes multi_extras(const Options& options) {
  Bytes extras;
  if (options.expiry || options.user_flags) extras = testing::be32(options.expiry.value_or(0));
  if (options.user_flags) {
    const Bytes flags = testing::be32(*options.user_flags);
    extras.insert(extras.end(), flags.begin(), flags.end());
  }
  if (options.doc_flags != 0) extras.push_back(options.doc_flags);
  return extras;
}

Request multi(const std::string& key, const std::vector<Spec>& specs, const Options& options = {}) {
  return {.opcode = Opcode::SubdocMultiMutation,
          .key = key,
          .value = multi_value(specs),
          .extras = multi_extras(options),
          .cas = options.cas,
          .framing_extras = options.framing};
}

// Single-path: extras are path length u16, path flags u8, [expiry u32], [doc flags u8]; the
// value is the path then the operation's argument.
Request single(const std::string& key, const Spec& spec, const Options& options = {}) {
  Bytes extras = testing::be16(static_cast<uint16_t>(spec.path.size()));
  extras.push_back(spec.flags);
  if (options.expiry) {
    const Bytes expiry = testing::be32(*options.expiry);
    extras.insert(extras.end(), expiry.begin(), expiry.end());
  }
  if (options.doc_flags != 0) extras.push_back(options.doc_flags);
  return {.opcode = static_cast<Opcode>(spec.op), .key = key, .value = spec.path + spec.value,
          .extras = extras, .cas = options.cas, .framing_extras = options.framing};
}

// The body of a failed multi-mutation: index u8, status u16.
std::string failure_body(int index, Status status) {
  std::string out(3, '\0');
  out[0] = static_cast<char>(index);
  protocol::store_be16(reinterpret_cast<uint8_t*>(out.data()) + 1, static_cast<uint16_t>(status));
  return out;
}

// One result of a successful multi-mutation: index u8, status u16 (0), length u32, value.
std::string result_entry(int index, const std::string& value) {
  std::string out(7, '\0');
  auto* bytes = reinterpret_cast<uint8_t*>(out.data());
  bytes[0] = static_cast<uint8_t>(index);
  protocol::store_be32(bytes + 3, static_cast<uint32_t>(value.size()));
  return out + value;
}

// The CAS macro's text for `cas`, as Couchbase writes it (subdoc_macros.h).
std::string cas_macro_text(uint64_t cas) {
  std::string out(MacroExpansion::expanded_width(MutationMacro::Cas), '?');
  MacroExpansion::expand(MutationMacro::Cas, cas, out);
  return out;
}

std::string hex_string(uint64_t number, int digits) {
  char text[32];
  std::snprintf(text, sizeof text, "\"0x%0*llx\"", digits, static_cast<unsigned long long>(number));
  return text;
}

// What the engine holds for a key, tombstones included.
struct Stored {
  bool found = false;
  bool deleted = false;
  uint8_t datatype = 0;
  uint32_t flags = 0;
  uint64_t cas = 0;
  std::string body;
  std::vector<std::pair<std::string, std::string>> xattrs;  // key, JSON value
};

class SubdocMutationTest : public ::testing::Test {
 protected:
  SubdocMutationTest()
      : node_(testing::make_open_node(clock_)),
        engine_(node_->buckets().front()->documents()),
        dispatcher_(*node_),
        connection_(dispatcher_, *node_) {
    EXPECT_EQ(connection_
                  .hello({Feature::Xerror, Feature::Xattr, Feature::MutationSeqno, Feature::Json,
                          Feature::AltRequestSupport, Feature::SyncReplication,
                          Feature::PreserveTtl})
                  .status,
              Status::Success);
  }

  Response one(const Request& r) { return connection_.one(r); }

  // Stores a JSON document; returns its CAS.
  uint64_t store(const std::string& key, const std::string& json, uint32_t expiry = 0) {
    const Response stored = connection_.set(key, json, 0, expiry, testing::kJsonDatatype);
    EXPECT_EQ(stored.status, Status::Success);
    return stored.cas;
  }

  Stored stored(const std::string& key) {
    Stored out;
    const engine::GetResult read = engine_.get_document(key, true);
    if (read.status != engine::Status::Success) return out;
    out.found = true;
    out.deleted = read.item->deleted;
    out.datatype = read.item->datatype;
    out.flags = read.item->flags;
    out.cas = read.item->cas;
    xattr::Split split;
    EXPECT_TRUE(xattr::split(read.item->value(), read.item->datatype, split));
    out.body = std::string(split.body);
    std::vector<xattr::Attribute> attributes;
    EXPECT_TRUE(xattr::parse(split.attributes, attributes));
    for (const auto& a : attributes) out.xattrs.emplace_back(a.key, a.value);
    return out;
  }

  std::optional<std::string> xattr_of(const std::string& key, const std::string& name) {
    for (const auto& [k, v] : stored(key).xattrs) {
      if (k == name) return v;
    }
    return std::nullopt;
  }

  uint64_t seqno_of(const Response& r) {
    EXPECT_EQ(r.extras.size(), 16u);
    return r.extras.size() == 16 ? protocol::load_be64(r.extras.data() + 8) : 0;
  }

  ManualClock clock_;
  std::unique_ptr<Node> node_;
  engine::Engine& engine_;
  Dispatcher dispatcher_;
  Connection connection_;
};

// --- Every operation and status, single-path and multi-path --------------------------------

struct OperationCase {
  const char* name;
  std::string document;     // stored before the request
  std::vector<Spec> specs;  // sent as one multi-mutation (and, when one, as a single-path one)
  Status status;            // of the failing spec; Success when none fails
  int failed;               // the failing spec's index, -1 when none fails
  std::string after;        // the body afterwards (the document, unchanged, after a failure)
  std::string result = {};  // the last spec's answer value (Counter)
};

std::string nested_arrays(int depth) { return std::string(depth, '[') + std::string(depth, ']'); }

std::string deep_path(int components) {
  std::string path = "a";
  for (int i = 1; i < components; ++i) path += ".a";
  return path;
}

const std::vector<OperationCase>& operation_cases() {
  static const std::vector<OperationCase> cases = {
      {"DictAddAdds", R"({"a":1})", {{kDictAdd, "b", "2"}}, Status::Success, -1,
       R"({"a":1,"b":2})"},
      {"DictAddOnExistingPath", R"({"a":1})", {{kDictAdd, "a", "2"}}, Status::SubdocPathEexists, 0,
       R"({"a":1})"},
      {"DictUpsertReplaces", R"({"a":1})", {{kDictUpsert, "a", R"({"x":true})"}}, Status::Success,
       -1, R"({"a":{"x":true}})"},
      {"DictUpsertMissingParent", R"({"a":1})", {{kDictUpsert, "p.q", "1"}},
       Status::SubdocPathEnoent, 0, R"({"a":1})"},
      {"DictUpsertCreatesParents", R"({"a":1})", {{kDictUpsert, "p.q.r", "1", kParents}},
       Status::Success, -1, R"({"a":1,"p":{"q":{"r":1}}})"},
      {"DictUpsertIntoNonObject", R"({"a":1})", {{kDictUpsert, "a.b", "1"}},
       Status::SubdocPathMismatch, 0, R"({"a":1})"},
      {"RemoveMember", R"({"a":1,"b":2})", {{kRemove, "a", ""}}, Status::Success, -1,
       R"({"b":2})"},
      {"RemoveLastElement", R"({"l":[1,2,3]})", {{kRemove, "l[-1]", ""}}, Status::Success, -1,
       R"({"l":[1,2]})"},
      {"RemoveMissing", R"({"a":1})", {{kRemove, "b", ""}}, Status::SubdocPathEnoent, 0,
       R"({"a":1})"},
      {"ReplaceMember", R"({"a":1})", {{kReplace, "a", R"("x")"}}, Status::Success, -1,
       R"({"a":"x"})"},
      {"ReplaceElement", R"({"l":[1,2]})", {{kReplace, "l[0]", "9"}}, Status::Success, -1,
       R"({"l":[9,2]})"},
      {"ReplaceMissing", R"({"a":1})", {{kReplace, "b", "2"}}, Status::SubdocPathEnoent, 0,
       R"({"a":1})"},
      {"PushLast", R"({"l":[1]})", {{kPushLast, "l", "2,3"}}, Status::Success, -1,
       R"({"l":[1,2,3]})"},
      {"PushFirst", R"({"l":[1]})", {{kPushFirst, "l", "0"}}, Status::Success, -1,
       R"({"l":[0,1]})"},
      {"PushOnNonArray", R"({"l":{}})", {{kPushLast, "l", "1"}}, Status::SubdocPathMismatch, 0,
       R"({"l":{}})"},
      {"PushCreatesTheArray", R"({})", {{kPushLast, "l", "1", kParents}}, Status::Success, -1,
       R"({"l":[1]})"},
      {"PushWithoutTheArray", R"({})", {{kPushLast, "l", "1"}}, Status::SubdocPathEnoent, 0,
       R"({})"},
      {"ArrayInsert", R"({"l":[1,2]})", {{kInsert, "l[1]", "9"}}, Status::Success, -1,
       R"({"l":[1,9,2]})"},
      {"ArrayInsertPastTheEnd", R"({"l":[1,2]})", {{kInsert, "l[5]", "9"}},
       Status::SubdocPathEnoent, 0, R"({"l":[1,2]})"},
      {"ArrayInsertNeedsAnIndex", R"({"l":[1,2]})", {{kInsert, "l", "9"}},
       Status::SubdocPathEinval, 0, R"({"l":[1,2]})"},
      {"AddUniqueAdds", R"({"l":[1,2]})", {{kAddUnique, "l", "3"}}, Status::Success, -1,
       R"({"l":[1,2,3]})"},
      {"AddUniqueFindsIt", R"({"l":[1,2]})", {{kAddUnique, "l", "2"}}, Status::SubdocPathEexists,
       0, R"({"l":[1,2]})"},
      {"AddUniqueOfNonPrimitive", R"({"l":[1,2]})", {{kAddUnique, "l", R"({"x":1})"}},
       Status::SubdocValueCantinsert, 0, R"({"l":[1,2]})"},
      {"CounterAdds", R"({"n":1})", {{kCounter, "n", "5"}}, Status::Success, -1, R"({"n":6})",
       "6"},
      {"CounterCreates", R"({})", {{kCounter, "n", "-3"}}, Status::Success, -1, R"({"n":-3})",
       "-3"},
      {"CounterOnString", R"({"n":"x"})", {{kCounter, "n", "1"}}, Status::SubdocPathMismatch, 0,
       R"({"n":"x"})"},
      {"CounterZeroDelta", R"({"n":1})", {{kCounter, "n", "0"}}, Status::SubdocDeltaEinval, 0,
       R"({"n":1})"},
      {"CounterDeltaNotANumber", R"({"n":1})", {{kCounter, "n", "x"}}, Status::SubdocDeltaEinval,
       0, R"({"n":1})"},
      {"CounterValueOutOfRange", R"({"n":9223372036854775808})", {{kCounter, "n", "1"}},
       Status::SubdocNumErange, 0, R"({"n":9223372036854775808})"},
      // Couchbase answers a result past int64 with ValueCantinsert (kv_engine testapp
      // SubdocCounter_Limits).
      {"CounterResultOverflows", R"({"n":9223372036854775807})", {{kCounter, "n", "1"}},
       Status::SubdocValueCantinsert, 0, R"({"n":9223372036854775807})"},
      {"ValueNotJson", R"({"a":1})", {{kDictUpsert, "b", "{"}}, Status::SubdocValueCantinsert, 0,
       R"({"a":1})"},
      {"ValueTooDeep", R"({"a":1})", {{kDictUpsert, "b", nested_arrays(32)}},
       Status::SubdocValueEtoodeep, 0, R"({"a":1})"},
      {"PathInvalid", R"({"a":1})", {{kDictUpsert, "a..b", "1"}}, Status::SubdocPathEinval, 0,
       R"({"a":1})"},
      {"PathTooDeep", R"({"a":1})", {{kDictUpsert, deep_path(33), "1", kParents}},
       Status::SubdocPathE2big, 0, R"({"a":1})"},
      {"PathOver1024Bytes", R"({"a":1})", {{kDictUpsert, std::string(1025, 'p'), "1"}},
       Status::SubdocPathE2big, 0, R"({"a":1})"},
      // Multi-path: specs run in order on what the previous ones left; the first failure
      // names its index and nothing changes.
      {"SpecsSeeEachOthersChanges", R"({})",
       {{kDictUpsert, "l", "[]"}, {kPushLast, "l", "1"}, {kCounter, "n", "2"}}, Status::Success,
       -1, R"({"l":[1],"n":2})", "2"},
      {"OneFailingSpecChangesNothing", R"({"a":1})",
       {{kDictUpsert, "x", "1"}, {kDictAdd, "a", "2"}, {kDictUpsert, "y", "1"}},
       Status::SubdocPathEexists, 1, R"({"a":1})"},
      {"SetDocReplacesTheBody", R"({"a":1})", {{kDictUpsert, "a", "2"}, {kSetDoc, "", "[true]"}},
       Status::Success, -1, "[true]"},
      {"SpecAfterSetDocRunsOnTheNewBody", R"({"a":1})",
       {{kSetDoc, "", R"({"b":1})"}, {kCounter, "b", "1"}}, Status::Success, -1, R"({"b":2})",
       "2"},
  };
  return cases;
}

// The cases a single-path request can carry: one spec, not a whole-document one.
std::vector<OperationCase> single_path_cases() {
  std::vector<OperationCase> out;
  for (const OperationCase& c : operation_cases()) {
    if (c.specs.size() == 1 && c.specs[0].op != kSetDoc && c.specs[0].op != kDeleteDoc) {
      out.push_back(c);
    }
  }
  return out;
}

class SubdocMultiOperationTest : public SubdocMutationTest,
                                 public ::testing::WithParamInterface<OperationCase> {};
class SubdocSingleOperationTest : public SubdocMutationTest,
                                  public ::testing::WithParamInterface<OperationCase> {};

TEST_P(SubdocMultiOperationTest, Runs) {
  const OperationCase& c = GetParam();
  const uint64_t cas = store("doc", c.document);
  const Response answer = one(multi("doc", c.specs));
  if (c.failed >= 0) {
    EXPECT_EQ(answer.status, Status::SubdocMultiPathFailure);
    EXPECT_EQ(answer.value, failure_body(c.failed, c.status));
    EXPECT_EQ(answer.cas, 0u);
    EXPECT_TRUE(answer.extras.empty());
    EXPECT_EQ(stored("doc").cas, cas) << "a failed request wrote";
  } else {
    EXPECT_EQ(answer.status, Status::Success);
    EXPECT_NE(answer.cas, cas);
    EXPECT_EQ(answer.cas, stored("doc").cas);
    const std::string expected =
        c.result.empty() ? "" : result_entry(static_cast<int>(c.specs.size()) - 1, c.result);
    EXPECT_EQ(answer.value, expected);
  }
  const Response got = connection_.get("doc");
  EXPECT_EQ(got.value, c.after);
  EXPECT_EQ(got.datatype, testing::kJsonDatatype);
}

TEST_P(SubdocSingleOperationTest, Runs) {
  const OperationCase& c = GetParam();
  const uint64_t cas = store("doc", c.document);
  const Response answer = one(single("doc", c.specs[0]));
  EXPECT_EQ(answer.status, c.status);
  if (c.status == Status::Success) {
    EXPECT_EQ(answer.cas, stored("doc").cas);
    EXPECT_EQ(answer.value, c.result);
    if (!c.result.empty()) {
      EXPECT_EQ(answer.datatype, testing::kJsonDatatype);
    }
  } else {
    EXPECT_EQ(answer.cas, 0u);
    EXPECT_EQ(stored("doc").cas, cas);
  }
  EXPECT_EQ(connection_.get("doc").value, c.after);
}

const auto case_name = [](const auto& info) { return std::string(info.param.name); };
INSTANTIATE_TEST_SUITE_P(Operations, SubdocMultiOperationTest,
                         ::testing::ValuesIn(operation_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(Operations, SubdocSingleOperationTest,
                         ::testing::ValuesIn(single_path_cases()), case_name);

TEST_F(SubdocMutationTest, BodyPathsNeedAJsonBody) {
  ASSERT_EQ(connection_.set("raw", "not json").status, Status::Success);
  Response answer = one(multi("raw", {{kDictUpsert, "a", "1"}}));
  EXPECT_EQ(answer.status, Status::SubdocMultiPathFailure);
  EXPECT_EQ(answer.value, failure_body(0, Status::SubdocDocNotJson));
  EXPECT_EQ(one(single("raw", {kCounter, "n", "1"})).status, Status::SubdocDocNotJson);
  // JSON stored without the client saying so has the JSON datatype all the same.
  ASSERT_EQ(connection_.set("json", R"({"a":1})").status, Status::Success);
  EXPECT_EQ(one(single("json", {kCounter, "a", "1"})).value, "2");
  // SetDoc takes any bytes; the datatype follows them.
  EXPECT_EQ(one(multi("raw", {{kSetDoc, "", R"({"a":1})"}})).status, Status::Success);
  EXPECT_EQ(stored("raw").datatype, protocol::datatype::kJson);
  EXPECT_EQ(one(multi("raw", {{kSetDoc, "", "plain"}})).status, Status::Success);
  const Response got = connection_.get("raw");
  EXPECT_EQ(got.value, "plain");
  EXPECT_EQ(got.datatype, 0);
}

// --- The document: create, insert, replace, CAS, locks ---------------------------------------

TEST_F(SubdocMutationTest, AMissingDocumentIsCreatedOnlyWithMkdocOrAdd) {
  expect_error(one(multi("new", {{kDictUpsert, "a", "1"}})), Status::KeyEnoent);
  expect_error(one(single("new", {kDictUpsert, "a", "1"})), Status::KeyEnoent);
  EXPECT_FALSE(stored("new").found);

  const Response created = one(multi("new", {{kDictUpsert, "a.b", "1"}}, {.doc_flags = kMkdoc}));
  EXPECT_EQ(created.status, Status::Success);  // Mkdoc implies CreateParents
  EXPECT_EQ(connection_.get("new").value, R"({"a":{"b":1}})");

  const Response inserted = one(single("other", {kCounter, "n", "4"}, {.doc_flags = kAdd}));
  EXPECT_EQ(inserted.status, Status::Success);
  EXPECT_EQ(inserted.value, "4");
  EXPECT_EQ(connection_.get("other").value, R"({"n":4})");
}

TEST_F(SubdocMutationTest, ANewDocumentStartsAsTheFirstPathSays) {
  struct Case {
    std::vector<Spec> specs;
    std::string body;
    uint8_t doc_flags = kMkdoc;
  };
  const std::vector<Case> cases = {
      {{{kDictUpsert, "a", "1"}}, R"({"a":1})"},
      {{{kPushLast, "", "1"}}, "[1]"},
      {{{kAddUnique, "", R"("x")"}}, R"(["x"])"},
      {{{kInsert, "[0]", "1"}}, "[1]", kAdd},  // ArrayInsert takes Add, not Mkdoc
      {{{kDictUpsert, "meta", "1", kXattr}}, "{}"},
      {{{kSetDoc, "", "raw bytes"}}, "raw bytes"},
  };
  int n = 0;
  for (const Case& c : cases) {
    const std::string key = "new" + std::to_string(n++);
    EXPECT_EQ(one(multi(key, c.specs, {.doc_flags = c.doc_flags})).status, Status::Success) << key;
    EXPECT_EQ(stored(key).body, c.body) << key;
  }
}

TEST_F(SubdocMutationTest, AddRefusesAnExistingDocument) {
  store("doc", R"({"a":1})");
  expect_error(one(multi("doc", {{kDictUpsert, "b", "1"}}, {.doc_flags = kAdd})),
               Status::KeyEexists);
  expect_error(one(single("doc", {kDictUpsert, "b", "1"}, {.doc_flags = kAdd})),
               Status::KeyEexists);
  EXPECT_EQ(connection_.get("doc").value, R"({"a":1})");
}

TEST_F(SubdocMutationTest, TheRequestsCasMustMatch) {
  const uint64_t cas = store("doc", R"({"a":1})");
  expect_error(one(multi("doc", {{kDictUpsert, "a", "2"}}, {.cas = cas + 1})),
               Status::KeyEexists);
  expect_error(one(single("doc", {kDictUpsert, "a", "2"}, {.cas = cas + 1})),
               Status::KeyEexists);
  EXPECT_EQ(stored("doc").cas, cas);
  const Response ok = one(multi("doc", {{kDictUpsert, "a", "2"}}, {.cas = cas}));
  EXPECT_EQ(ok.status, Status::Success);
  EXPECT_NE(ok.cas, cas);
  EXPECT_EQ(connection_.get("doc").value, R"({"a":2})");
}

TEST_F(SubdocMutationTest, ALockedDocumentTakesOnlyItsLocksCas) {
  store("doc", R"({"a":1})");
  const Response locked = one({.opcode = Opcode::GetLocked, .key = "doc"});
  ASSERT_EQ(locked.status, Status::Success);
  expect_error(one(multi("doc", {{kDictUpsert, "a", "2"}})), Status::Locked);
  expect_error(one(multi("doc", {{kDictUpsert, "a", "2"}}, {.cas = locked.cas + 1})),
               Status::Locked);
  const Response ok = one(multi("doc", {{kDictUpsert, "a", "2"}}, {.cas = locked.cas}));
  EXPECT_EQ(ok.status, Status::Success);
  // The write unlocked it.
  EXPECT_EQ(one(multi("doc", {{kDictUpsert, "a", "3"}})).status, Status::Success);
  EXPECT_EQ(connection_.get("doc").value, R"({"a":3})");
}

TEST_F(SubdocMutationTest, AValueOverTheItemSizeLimitIsE2big) {
  engine::Config config;
  config.max_item_size = 64;
  auto node = testing::make_open_node(clock_, config);
  Dispatcher dispatcher(*node);
  Connection c(dispatcher, *node);
  c.hello({Feature::Xerror, Feature::Json});
  ASSERT_EQ(c.set("doc", R"({"a":1})", 0, 0, testing::kJsonDatatype).status, Status::Success);
  const std::string big = "\"" + std::string(100, 'x') + "\"";
  expect_error(c.one(multi("doc", {{kDictUpsert, "b", big}})), Status::E2big);
  EXPECT_EQ(c.get("doc").value, R"({"a":1})");
}

// --- The answer ---------------------------------------------------------------------------

TEST_F(SubdocMutationTest, SuccessCarriesTheSeqnoTokenAndCounterValues) {
  store("doc", R"({"a":1})");
  const Response first = one(multi("doc", {{kCounter, "n", "1"}, {kDictUpsert, "b", "1"},
                                           {kCounter, "a", "10"}}));
  EXPECT_EQ(first.status, Status::Success);
  EXPECT_EQ(first.value, result_entry(0, "1") + result_entry(2, "11"));
  const Response second = one(single("doc", {kDictUpsert, "c", "1"}));
  EXPECT_EQ(second.status, Status::Success);
  EXPECT_TRUE(second.value.empty());
  EXPECT_EQ(seqno_of(second), seqno_of(first) + 1);
  EXPECT_EQ(protocol::load_be64(second.extras.data()), protocol::load_be64(first.extras.data()));
}

TEST_F(SubdocMutationTest, DurabilityMajorityIsHonoured) {
  store("doc", R"({"a":1})");
  const Response answer = one(multi("doc", {{kDictUpsert, "a", "2"}}, {.framing = {0x11, 0x01}}));
  EXPECT_EQ(answer.status, Status::Success);
  EXPECT_EQ(connection_.get("doc").value, R"({"a":2})");
}

// --- Expiry ---------------------------------------------------------------------------------

TEST_F(SubdocMutationTest, TheRequestsExpiryApplies) {
  store("doc", R"({"a":1})");
  EXPECT_EQ(one(multi("doc", {{kDictUpsert, "a", "2"}}, {.expiry = 100})).status,
            Status::Success);
  clock_.advance_seconds(99);
  EXPECT_EQ(connection_.get("doc").status, Status::Success);
  clock_.advance_seconds(2);
  EXPECT_EQ(connection_.get("doc").status, Status::KeyEnoent);
}

TEST_F(SubdocMutationTest, AMutationWithoutExpiryClearsTheDocumentsTtl) {
  store("doc", R"({"a":1})", 100);
  EXPECT_EQ(one(multi("doc", {{kDictUpsert, "a", "2"}})).status, Status::Success);
  clock_.advance_seconds(200);
  EXPECT_EQ(connection_.get("doc").value, R"({"a":2})");
}

TEST_F(SubdocMutationTest, PreserveTtlKeepsTheDocumentsTtl) {
  store("doc", R"({"a":1})", 100);
  EXPECT_EQ(one(multi("doc", {{kDictUpsert, "a", "2"}}, {.framing = {0x50}})).status,
            Status::Success);
  EXPECT_EQ(one(single("doc", {kDictUpsert, "a", "3"}, {.framing = {0x50}})).status,
            Status::Success);
  clock_.advance_seconds(99);
  EXPECT_EQ(connection_.get("doc").value, R"({"a":3})");
  clock_.advance_seconds(2);
  EXPECT_EQ(connection_.get("doc").status, Status::KeyEnoent);
}

// --- XATTRs ---------------------------------------------------------------------------------

TEST_F(SubdocMutationTest, XattrsAreStoredApartAndAPlainGetDoesNotShowThem) {
  store("doc", R"({"a":1})");
  const Response answer = one(multi("doc", {{kDictUpsert, "meta.rev", "1", kXattr | kParents},
                                            {kDictUpsert, "_sys", R"({"x":true})", kXattr},
                                            {kDictUpsert, "a", "2"}}));
  EXPECT_EQ(answer.status, Status::Success);
  const Stored s = stored("doc");
  EXPECT_EQ(s.datatype, protocol::datatype::kXattr | protocol::datatype::kJson);
  EXPECT_EQ(s.body, R"({"a":2})");
  EXPECT_EQ(s.xattrs, (std::vector<std::pair<std::string, std::string>>{
                          {"meta", R"({"rev":1})"}, {"_sys", R"({"x":true})"}}));
  const Response got = connection_.get("doc");
  EXPECT_EQ(got.value, R"({"a":2})");
  EXPECT_EQ(got.datatype, testing::kJsonDatatype);

  // Changing one attribute keeps the others; removing the last drops the section.
  EXPECT_EQ(one(single("doc", {kCounter, "meta.rev", "1", kXattr})).status, Status::Success);
  EXPECT_EQ(xattr_of("doc", "meta"), R"({"rev":2})");
  EXPECT_EQ(one(multi("doc", {{kRemove, "meta", "", kXattr}, {kRemove, "_sys", "", kXattr}}))
                .status,
            Status::Success);
  EXPECT_TRUE(stored("doc").xattrs.empty());
  EXPECT_EQ(stored("doc").datatype, protocol::datatype::kJson);
  EXPECT_EQ(connection_.get("doc").value, R"({"a":2})");
}

TEST_F(SubdocMutationTest, XattrPathsFollowTheOperationsRules) {
  store("doc", R"({})");
  // Without CreateParents a missing attribute is a missing parent.
  Response answer = one(multi("doc", {{kDictUpsert, "meta.rev", "1", kXattr}}));
  EXPECT_EQ(answer.value, failure_body(0, Status::SubdocPathEnoent));
  EXPECT_EQ(one(multi("doc", {{kDictAdd, "meta", "1", kXattr}})).status, Status::Success);
  answer = one(multi("doc", {{kDictAdd, "meta", "2", kXattr}}));
  EXPECT_EQ(answer.value, failure_body(0, Status::SubdocPathEexists));
  // A virtual attribute cannot be changed.
  expect_error(one(multi("doc", {{kDictUpsert, "$document.x", "1", kXattr}})),
               Status::SubdocXattrCantModifyVattr);
}

TEST_F(SubdocMutationTest, SystemXattrsSurviveADelete) {
  store("doc", R"({"a":1})");
  ASSERT_EQ(one(multi("doc", {{kDictUpsert, "_sys", "1", kXattr}, {kDictUpsert, "usr", "2", kXattr}}))
                .status,
            Status::Success);
  // DeleteDoc: the body and the user attributes go.
  const Response removed = one(multi("doc", {{kDeleteDoc, "", ""}}));
  EXPECT_EQ(removed.status, Status::Success);
  EXPECT_EQ(connection_.get("doc").status, Status::KeyEnoent);
  Stored s = stored("doc");
  EXPECT_TRUE(s.deleted);
  EXPECT_EQ(s.body, "");
  EXPECT_EQ(s.xattrs, (std::vector<std::pair<std::string, std::string>>{{"_sys", "1"}}));

  // A plain DELETE does the same.
  store("plain", R"({"a":1})");
  ASSERT_EQ(one(multi("plain", {{kDictUpsert, "_sys", "1", kXattr}, {kDictUpsert, "usr", "2", kXattr}}))
                .status,
            Status::Success);
  ASSERT_EQ(one({.opcode = Opcode::Delete, .key = "plain"}).status, Status::Success);
  s = stored("plain");
  EXPECT_TRUE(s.deleted);
  EXPECT_EQ(s.xattrs, (std::vector<std::pair<std::string, std::string>>{{"_sys", "1"}}));
}

// --- Tombstones -------------------------------------------------------------------------------

class SubdocTombstoneTest : public SubdocMutationTest {
 protected:
  // A removed document whose tombstone keeps "_sys": 1.
  void make_tombstone(const std::string& key) {
    store(key, R"({"a":1})");
    ASSERT_EQ(one(multi(key, {{kDictUpsert, "_sys", "1", kXattr}})).status, Status::Success);
    ASSERT_EQ(one({.opcode = Opcode::Delete, .key = key}).status, Status::Success);
  }
};

TEST_F(SubdocTombstoneTest, AccessDeletedChangesATombstonesXattrs) {
  make_tombstone("doc");
  const Response answer = one(multi("doc", {{kDictUpsert, "_sys", "2", kXattr}},
                                    {.doc_flags = kAccessDeleted}));
  EXPECT_EQ(answer.status, Status::SubdocSuccessDeleted);
  const Stored s = stored("doc");
  EXPECT_TRUE(s.deleted);
  EXPECT_EQ(answer.cas, s.cas);
  EXPECT_EQ(s.xattrs, (std::vector<std::pair<std::string, std::string>>{{"_sys", "2"}}));
  EXPECT_EQ(connection_.get("doc").status, Status::KeyEnoent);
}

TEST_F(SubdocTombstoneTest, WithoutAccessDeletedATombstoneIsNoDocument) {
  make_tombstone("doc");
  expect_error(one(multi("doc", {{kDictUpsert, "a", "1"}})), Status::KeyEnoent);
  // Mkdoc creates a new document, which keeps nothing of the tombstone.
  EXPECT_EQ(one(multi("doc", {{kDictUpsert, "a", "1"}}, {.doc_flags = kMkdoc})).status,
            Status::Success);
  const Stored s = stored("doc");
  EXPECT_FALSE(s.deleted);
  EXPECT_EQ(s.body, R"({"a":1})");
  EXPECT_TRUE(s.xattrs.empty());
}

TEST_F(SubdocTombstoneTest, ABodyPathFindsNoJsonInATombstone) {
  make_tombstone("doc");
  const Response path = one(multi("doc", {{kDictUpsert, "b", "1"}}, {.doc_flags = kAccessDeleted}));
  EXPECT_EQ(path.value, failure_body(0, Status::SubdocDocNotJson));
  // Couchbase takes SetDoc with Mkdoc or Add only: a tombstone gets no body that way either.
  expect_error(one(multi("doc", {{kSetDoc, "", R"({"b":1})"}}, {.doc_flags = kAccessDeleted})),
               Status::Einval);
  EXPECT_TRUE(stored("doc").deleted);
}

TEST_F(SubdocTombstoneTest, ReviveMakesATombstoneLive) {
  make_tombstone("doc");
  const Response revived = one(multi("doc", {{kDictUpsert, "_sys", "2", kXattr}},
                                     {.doc_flags = kAccessDeleted | kRevive}));
  EXPECT_EQ(revived.status, Status::Success);
  const Stored s = stored("doc");
  EXPECT_FALSE(s.deleted);
  EXPECT_EQ(s.body, "");
  EXPECT_EQ(s.xattrs, (std::vector<std::pair<std::string, std::string>>{{"_sys", "2"}}));
  const Response got = connection_.get("doc");
  EXPECT_EQ(got.status, Status::Success);
  EXPECT_EQ(got.value, "");
  // Only a tombstone can be revived.
  expect_error(one(multi("doc", {{kDictUpsert, "_sys", "3", kXattr}},
                         {.doc_flags = kAccessDeleted | kRevive})),
               Status::SubdocCanOnlyReviveDeletedDocuments);
}

TEST_F(SubdocTombstoneTest, CreateAsDeletedMakesATombstoneWithXattrs) {
  const Response created =
      one(multi("doc", {{kDictUpsert, "_txn", R"({"id":1})", kXattr}},
                {.doc_flags = kAdd | kAccessDeleted | kCreateAsDeleted}));
  EXPECT_EQ(created.status, Status::SubdocSuccessDeleted);
  const Stored s = stored("doc");
  EXPECT_TRUE(s.found);
  EXPECT_TRUE(s.deleted);
  EXPECT_EQ(s.body, "");
  EXPECT_EQ(s.xattrs, (std::vector<std::pair<std::string, std::string>>{{"_txn", R"({"id":1})"}}));
  EXPECT_EQ(connection_.get("doc").status, Status::KeyEnoent);
  // Add with AccessDeleted finds that tombstone.
  expect_error(one(multi("doc", {{kDictUpsert, "_txn", "2", kXattr}},
                         {.doc_flags = kAdd | kAccessDeleted | kCreateAsDeleted})),
               Status::KeyEexists);
}

// A transaction's commit as the SDKs send it when the bucket lists subdoc.ReplaceBodyWithXattr
// and subdoc.ReviveDocument: the staged content becomes the body and the txn XATTR goes, in
// one request, the XATTR read before the spec after it removes it.
TEST_F(SubdocTombstoneTest, ReplaceBodyWithXattrCommitsStagedContent) {
  // A staged replace of a live document.
  store("doc", R"({"v":1})");
  ASSERT_EQ(one(multi("doc", {{kDictUpsert, "txn", R"({"op":{"stgd":{"v":2}}})", kXattr}})).status,
            Status::Success);
  const uint64_t staged = stored("doc").cas;
  const Response committed = one(multi(
      "doc", {{kReplaceBody, "txn.op.stgd", "", kXattr}, {kRemove, "txn", "", kXattr}},
      {.cas = staged}));
  ASSERT_EQ(committed.status, Status::Success);
  Stored s = stored("doc");
  EXPECT_EQ(s.body, R"({"v":2})");
  EXPECT_TRUE(s.xattrs.empty());
  EXPECT_EQ(s.datatype & protocol::datatype::kJson, protocol::datatype::kJson);
  EXPECT_EQ(connection_.get("doc").value, R"({"v":2})");

  // A staged insert: a tombstone created with its XATTR, revived with the staged body.
  ASSERT_EQ(one(multi("new", {{kDictUpsert, "txn", R"({"op":{"stgd":[1,2]}})", kXattr}},
                      {.doc_flags = kAdd | kAccessDeleted | kCreateAsDeleted}))
                .status,
            Status::SubdocSuccessDeleted);
  const Response revived =
      one(multi("new", {{kReplaceBody, "txn.op.stgd", "", kXattr}, {kRemove, "txn", "", kXattr}},
                {.doc_flags = kAccessDeleted | kRevive, .cas = stored("new").cas}));
  ASSERT_EQ(revived.status, Status::Success);
  s = stored("new");
  EXPECT_FALSE(s.deleted);
  EXPECT_EQ(s.body, "[1,2]");
  EXPECT_EQ(connection_.get("new").value, "[1,2]");

  // A path that names no attribute fails that spec, and nothing changes.
  const Response missing =
      one(multi("doc", {{kReplaceBody, "txn.op.stgd", "", kXattr}}));
  EXPECT_EQ(missing.value, failure_body(0, Status::SubdocPathEnoent));
  EXPECT_EQ(stored("doc").body, R"({"v":2})");
  // Without Revive a tombstone cannot take a body this way either.
  make_tombstone("gone");
  ASSERT_EQ(one(multi("gone", {{kDictUpsert, "_sys", R"({"b":1})", kXattr}},
                      {.doc_flags = kAccessDeleted}))
                .status,
            Status::SubdocSuccessDeleted);
  const Response refused = one(
      multi("gone", {{kReplaceBody, "_sys", "", kXattr}}, {.doc_flags = kAccessDeleted}));
  EXPECT_EQ(refused.status, Status::SubdocDeletedDocumentCantHaveValue);
  EXPECT_TRUE(stored("gone").deleted);
}

// --- Binary XATTR values (HELLO SubdocBinaryXattr) -----------------------------------------

// A multi-lookup of XATTR paths (op u8, flags u8, path length u16, path per spec).
Request lookup(const std::string& key, const std::vector<std::pair<std::string, uint8_t>>& paths,
               uint8_t doc_flags = 0) {
  std::string value;
  for (const auto& [path, flags] : paths) {
    uint8_t header[4] = {0xc5, flags};
    protocol::store_be16(header + 2, static_cast<uint16_t>(path.size()));
    value.append(reinterpret_cast<const char*>(header), sizeof header).append(path);
  }
  Bytes extras;
  if (doc_flags != 0) extras.push_back(doc_flags);
  return {.opcode = Opcode::SubdocMultiLookup, .key = key, .value = value, .extras = extras};
}

// One entry of a multi-lookup's answer: status u16, length u32, value.
std::string lookup_entry(Status status, const std::string& value) {
  std::string out(6, '\0');
  auto* bytes = reinterpret_cast<uint8_t*>(out.data());
  protocol::store_be16(bytes, static_cast<uint16_t>(status));
  protocol::store_be32(bytes + 2, static_cast<uint32_t>(value.size()));
  return out + value;
}

// A binary document's transaction, as the SDKs run it once HELLO acknowledged 0x21 (the
// official C++ core's create_staged_insert and its commit): the raw bytes are staged in
// txn.op.bin, the flags ride in the extras, and the commit turns the bytes into the body.
TEST_F(SubdocTombstoneTest, BinaryValuesStageAndCommitABinaryDocumentWithItsFlags) {
  const std::string bytes("\x00\x01\xfe\xff not JSON", 13);
  constexpr uint32_t kBinaryCommonFlags = 0x03000000;
  const Response staged = one(multi(
      "bin",
      {{kDictUpsert, "txn", R"({"op":{"type":"insert"},"aux":{"uf":50331648}})", kXattr | kParents},
       {kDictUpsert, "txn.op.bin", bytes, kXattr | kBinary}},
      {.doc_flags = kAdd | kAccessDeleted | kCreateAsDeleted, .user_flags = kBinaryCommonFlags}));
  ASSERT_EQ(staged.status, Status::SubdocSuccessDeleted);
  Stored s = stored("bin");
  EXPECT_TRUE(s.deleted);
  EXPECT_EQ(s.flags, kBinaryCommonFlags);
  // Stored as Couchbase stores it: the XATTR section stays JSON.
  ASSERT_EQ(s.xattrs.size(), 1u);
  EXPECT_EQ(
      s.xattrs[0].second,
      R"({"op":{"type":"insert","bin":"cb-content-base64-encoded:AAH+/yBub3QgSlNPTg=="},"aux":{"uf":50331648}})");

  // Read back: flagged, the bytes; unflagged, the JSON string.
  const Response read = one(
      lookup("bin", {{"txn.op.bin", kXattr | kBinary}, {"txn.op.bin", kXattr}}, kAccessDeleted));
  EXPECT_EQ(read.status, Status::SubdocSuccessDeleted);
  EXPECT_EQ(read.value, lookup_entry(Status::Success, bytes) +
                            lookup_entry(Status::Success,
                                         R"("cb-content-base64-encoded:AAH+/yBub3QgSlNPTg==")"));

  // The commit: ReplaceBodyWithXattr flagged binary, then the txn XATTR goes.
  const Response committed = one(multi(
      "bin", {{kReplaceBody, "txn.op.bin", "", kXattr | kBinary}, {kRemove, "txn", "", kXattr}},
      {.doc_flags = kAccessDeleted | kRevive, .cas = s.cas, .user_flags = kBinaryCommonFlags}));
  ASSERT_EQ(committed.status, Status::Success);
  s = stored("bin");
  EXPECT_FALSE(s.deleted);
  EXPECT_EQ(s.body, bytes);
  EXPECT_EQ(s.datatype, 0) << "raw bytes, no XATTRs left";
  EXPECT_EQ(s.flags, kBinaryCommonFlags);
  const Response got = connection_.get("bin");
  EXPECT_EQ(got.value, bytes);
  EXPECT_EQ(got.extras, testing::be32(kBinaryCommonFlags));

  // Bytes that are JSON make a JSON body.
  store("json", R"({"v":1})");
  ASSERT_EQ(
      one(multi("json", {{kDictUpsert, "txn.op.bin", R"({"v":2})", kXattr | kParents | kBinary}}))
          .status,
      Status::Success);
  ASSERT_EQ(one(multi("json", {{kReplaceBody, "txn.op.bin", "", kXattr | kBinary},
                               {kRemove, "txn", "", kXattr}}))
                .status,
            Status::Success);
  s = stored("json");
  EXPECT_EQ(s.body, R"({"v":2})");
  EXPECT_EQ(s.datatype, protocol::datatype::kJson);
  EXPECT_EQ(s.flags, 0u) << "no flags in the extras: the document keeps its own";
}

TEST_F(SubdocMutationTest, BinaryValuesFollowCouchbasesRules) {
  store("doc", R"({"a":1})");
  // Only with Xattr, never with ExpandMacros, and only where Couchbase takes it.
  expect_error(one(multi("doc", {{kDictUpsert, "b", "x", kBinary}})),
               Status::SubdocXattrInvalidFlagCombo);
  expect_error(
      one(multi("doc", {{kDictUpsert, "m", R"("${Mutation.CAS}")", kXattr | kMacros | kBinary}})),
      Status::SubdocXattrInvalidFlagCombo);
  expect_error(one(multi("doc", {{kPushLast, "m", "x", kXattr | kBinary}})), Status::Einval);
  expect_error(one(multi("doc", {{kRemove, "m", "", kXattr | kBinary}})), Status::Einval);
  // A value that pretends to be encoded must decode.
  expect_error(
      one(multi("doc", {{kDictUpsert, "m", R"({"v":"cb-content-base64-encoded:ab!="})", kXattr}})),
      Status::XattrEinval);
  ASSERT_EQ(
      one(multi("doc", {{kDictUpsert, "m", R"({"v":"cb-content-base64-encoded:YWI="})", kXattr}}))
          .status,
      Status::Success);
  // A flagged read or commit of a value that encodes nothing.
  ASSERT_EQ(one(multi("doc", {{kDictUpsert, "plain", R"("text")", kXattr}})).status,
            Status::Success);
  EXPECT_EQ(
      one(lookup("doc", {{"plain", kXattr | kBinary}, {"m.v", kXattr | kBinary}})).value,
      lookup_entry(Status::SubdocFieldNotBinaryValue, "") + lookup_entry(Status::Success, "ab"));
  EXPECT_EQ(one(multi("doc", {{kReplaceBody, "plain", "", kXattr | kBinary}})).value,
            failure_body(0, Status::SubdocFieldNotBinaryValue));
  EXPECT_EQ(stored("doc").body, R"({"a":1})");
  // Extras: expiry then user flags (8 bytes, 9 with doc flags), for mutations only.
  ASSERT_EQ(one(multi("doc", {{kDictUpsert, "a", "2"}}, {.user_flags = 7})).status,
            Status::Success);
  EXPECT_EQ(stored("doc").flags, 7u);
  expect_error(one({.opcode = Opcode::SubdocMultiMutation,
                    .key = "doc",
                    .value = multi_value({{kDictUpsert, "a", "3"}}),
                    .extras = Bytes(6, 0)}),
               Status::Einval);
  Request eight = lookup("doc", {{"a", 0}});
  eight.extras = Bytes(8, 0);
  expect_error(one(eight), Status::Einval);
}

// --- Macros --------------------------------------------------------------------------------

TEST_F(SubdocMutationTest, MacrosExpandToTheNewCasSeqnoAndBodyCrc) {
  store("doc", R"({"a":1})");
  const Response answer =
      one(multi("doc", {{kDictUpsert, "m.cas", R"("${Mutation.CAS}")", kXattr | kParents | kMacros},
                        {kDictUpsert, "m.seqno", R"("${Mutation.seqno}")", kXattr | kMacros},
                        {kDictUpsert, "m.crc", R"("${Mutation.value_crc32c}")", kXattr | kMacros},
                        {kDictUpsert, "m.again", R"("${Mutation.CAS}")", kXattr | kMacros},
                        {kDictUpsert, "b", "2"}}));
  ASSERT_EQ(answer.status, Status::Success);
  const std::string body = R"({"a":1,"b":2})";
  const Stored s = stored("doc");
  EXPECT_EQ(s.cas, answer.cas);
  EXPECT_EQ(s.body, body);
  const std::string cas = cas_macro_text(answer.cas);
  EXPECT_EQ(xattr_of("doc", "m"),
            R"({"cas":)" + cas + R"(,"seqno":)" + hex_string(seqno_of(answer), 16) +
                R"(,"crc":)" + hex_string(crc32c(body), 8) + R"(,"again":)" + cas + "}");
}

TEST_F(SubdocMutationTest, VirtualMacrosExpandToTheDocumentAsRead) {
  const uint64_t cas = store("doc", R"({"a":1})");
  ASSERT_EQ(one(multi("doc", {{kDictUpsert, "old", R"("${$document.CAS}")", kXattr | kMacros}}))
                .status,
            Status::Success);
  // $document.CAS reads as a hex string, unswapped (kv_engine cb::to_hex).
  EXPECT_EQ(xattr_of("doc", "old"), hex_string(cas, 16));
  ASSERT_EQ(one(multi("doc", {{kDictUpsert, "flags", R"("${$document.flags}")", kXattr | kMacros}}))
                .status,
            Status::Success);
  EXPECT_EQ(xattr_of("doc", "flags"), "0");
}

TEST_F(SubdocMutationTest, AnUnknownMacroIsRefused) {
  store("doc", R"({"a":1})");
  expect_error(one(multi("doc", {{kDictUpsert, "m", R"("${Mutation.nothing}")", kXattr | kMacros}})),
               Status::SubdocXattrUnknownMacro);
  EXPECT_TRUE(stored("doc").xattrs.empty());
}

// --- Races --------------------------------------------------------------------------------

// Each counter either applies or, after Couchbase's 100 lost races in a row, gives up with
// Etmpfail; a busy machine can starve one thread that long. Atomicity is what must hold: the
// final count is exactly the number of answers that said Success.
TEST_F(SubdocMutationTest, ConcurrentMutationsWithoutCasNeverLoseAnUpdate) {
  store("doc", R"({"n":0})");
  constexpr int kThreads = 4;
  constexpr int kEach = 3000;
  std::atomic<int> applied{0};
  std::atomic<int> unexpected{0};
  std::atomic<Status> first_unexpected{Status::Success};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      Connection c(dispatcher_, *node_);
      for (int i = 0; i < kEach; ++i) {
        const Status status = c.one(multi("doc", {{kCounter, "n", "1"}})).status;
        if (status == Status::Success) {
          ++applied;
        } else if (status != Status::Etmpfail && unexpected++ == 0) {
          first_unexpected = status;
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(unexpected.load(), 0) << "first unexpected status: 0x" << std::hex
                                  << static_cast<int>(first_unexpected.load());
  EXPECT_GT(applied.load(), 0);
  EXPECT_EQ(connection_.get("doc").value, R"({"n":)" + std::to_string(applied.load()) + "}");
}

}  // namespace
}  // namespace tern::commands
