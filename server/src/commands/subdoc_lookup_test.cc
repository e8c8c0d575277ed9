// The sub-document lookups through the dispatcher, against a real engine: every lookup
// operation and per-spec status from one table (each case run as a multi-lookup and, spec by
// spec, as the single-path commands), the virtual XATTRs, and the document-level answers
// (missing documents, tombstones read with AccessDeleted, locks, CAS, refused requests).
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <cinttypes>
#include <cstdio>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "cluster/vbucket_state.h"
#include "commands/dispatcher.h"
#include "commands/dispatcher_harness.h"
#include "commands/subdoc_macros.h"
#include "commands/test_node.h"
#include "common/clock.h"
#include "engine/engine.h"
#include "protocol/codec.h"
#include "protocol/datatype.h"
#include "protocol/error_map.h"
#include "protocol/opcode.h"
#include "xattr/blob.h"

namespace tern::commands {
namespace {

using protocol::Opcode;
using protocol::Status;
using testing::Bytes;
using testing::Connection;
using testing::expect_error;
using testing::Request;
using testing::Response;

// Wire opcodes of the lookup specs.
constexpr uint8_t kGet = 0xc5;
constexpr uint8_t kExists = 0xc6;
constexpr uint8_t kCount = 0xd2;
constexpr uint8_t kGetDoc = 0x00;

constexpr uint8_t kXattr = 0x04;            // path flag
constexpr uint8_t kAccessDeleted = 0x04;    // doc flag

struct Spec {
  uint8_t op = kGet;
  std::string path;
  uint8_t flags = 0;
};

// One entry of a multi-lookup's answer.
struct Result {
  Status status = Status::Success;
  std::string value;
  bool operator==(const Result&) const = default;
};

void PrintTo(const Result& r, std::ostream* os) {
  protocol::PrintTo(r.status, os);
  *os << " \"" << r.value << "\"";
}

Result ok(std::string value = {}) { return {Status::Success, std::move(value)}; }
Result fail(Status status) { return {status, {}}; }

Request multi(const std::string& key, const std::vector<Spec>& specs, uint8_t doc_flags = 0,
              uint64_t cas = 0) {
  std::string value;
  for (const Spec& spec : specs) {
    uint8_t header[4] = {spec.op, spec.flags, 0, 0};
    protocol::store_be16(header + 2, static_cast<uint16_t>(spec.path.size()));
    value.append(reinterpret_cast<const char*>(header), sizeof header);
    value += spec.path;
  }
  Bytes extras;
  if (doc_flags != 0) extras.push_back(doc_flags);
  return {.opcode = Opcode::SubdocMultiLookup, .key = key, .value = value, .extras = extras,
          .cas = cas};
}

// Single-path: extras are path length u16, path flags u8, [doc flags u8]; the value is the
// path.
Request single(const std::string& key, const Spec& spec, uint8_t doc_flags = 0,
               uint64_t cas = 0) {
  Bytes extras = testing::be16(static_cast<uint16_t>(spec.path.size()));
  extras.push_back(spec.flags);
  if (doc_flags != 0) extras.push_back(doc_flags);
  return {.opcode = static_cast<Opcode>(spec.op), .key = key, .value = spec.path,
          .extras = extras, .cas = cas};
}

std::vector<Result> results_of(const Response& r) {
  std::vector<Result> out;
  std::string_view rest = r.value;
  while (rest.size() >= 6) {
    const auto* header = reinterpret_cast<const uint8_t*>(rest.data());
    const auto status = static_cast<Status>(protocol::load_be16(header));
    const uint32_t length = protocol::load_be32(header + 2);
    rest.remove_prefix(6);
    if (rest.size() < length) break;
    out.push_back({status, std::string(rest.substr(0, length))});
    rest.remove_prefix(length);
  }
  EXPECT_TRUE(rest.empty()) << "a multi-lookup answer that does not add up";
  return out;
}

std::string hex(uint64_t number, int digits) {
  char text[32];
  std::snprintf(text, sizeof text, "\"0x%0*" PRIx64 "\"", digits, number);
  return text;
}

std::string nested_arrays(int depth) { return std::string(depth, '[') + std::string(depth, ']'); }

// [0][0]...: `components` positions.
std::string index_path(int components) {
  std::string path;
  for (int i = 0; i < components; ++i) path += "[0]";
  return path;
}

std::string path_of_components(int components) {
  std::string path = "a";
  for (int i = 1; i < components; ++i) path += ".a";
  return path;
}

// A status a client knows in a multi-lookup entry: Success or a sub-document one.
bool is_subdoc_entry_status(Status status) {
  const auto code = static_cast<uint16_t>(status);
  return status == Status::Success || (code >= 0xc0 && code <= 0xd8);
}

class SubdocLookupTest : public ::testing::Test {
 protected:
  SubdocLookupTest()
      : node_(testing::make_open_node(clock_)),
        engine_(node_->buckets().front()->documents()),
        dispatcher_(*node_),
        connection_(dispatcher_, *node_) {
    EXPECT_EQ(connection_.hello({Feature::Xerror, Feature::Xattr, Feature::Json}).status,
              Status::Success);
  }

  Response one(const Request& r) { return connection_.one(r); }

  // Stores a document with extended attributes (key, JSON value), as written by the
  // engine's read-modify-write; returns its CAS.
  uint64_t put(const std::string& key, const std::string& body,
               const std::vector<std::pair<std::string, std::string>>& xattrs = {},
               bool json = true, uint32_t flags = 0, uint32_t expiry = 0) {
    std::vector<xattr::Attribute> attributes;
    for (const auto& [k, v] : xattrs) attributes.push_back({k, v});
    std::string value;
    xattr::append_section(attributes, value);
    value += body;
    uint8_t datatype = json ? protocol::datatype::kJson : 0;
    if (!attributes.empty()) datatype |= protocol::datatype::kXattr;
    const engine::GetResult current = engine_.get_document(key, true);
    engine::DocumentWrite write{.value = value, .datatype = datatype, .flags = flags,
                                .expiry = expiry,
                                .expected_cas = current.item ? current.item->cas : 0};
    const engine::MutationResult written = engine_.write_document(key, write);
    EXPECT_EQ(written.status, engine::Status::Success);
    return written.cas;
  }

  // A tombstone that kept a system attribute: a document with XATTRs, then removed.
  uint64_t tombstone(const std::string& key) {
    put(key, R"({"gone":true})", {{"_sync", R"({"rev":"3-abc"})"}, {"user", "1"}});
    EXPECT_EQ(one({.opcode = Opcode::Delete, .key = key}).status, Status::Success);
    const engine::GetResult read = engine_.get_document(key, true);
    EXPECT_TRUE(read.item && read.item->deleted);
    return read.item ? read.item->cas : 0;
  }

  ManualClock clock_;
  std::unique_ptr<Node> node_;
  engine::Engine& engine_;
  Dispatcher dispatcher_;
  Connection connection_;
};

// --- Every lookup operation and status, from one table --------------------------------------

struct LookupCase {
  const char* name;
  std::string body;
  std::vector<std::pair<std::string, std::string>> xattrs;
  bool json;
  std::vector<Spec> specs;
  std::vector<Result> expected;
};

const char* const kDoc = R"({"a":{"b":[1,2,{"c":"x"}],"n":null},"s":"str","e":{},"z":[]})";

const std::vector<LookupCase>& lookup_cases() {
  static const std::vector<LookupCase> cases = {
      {"GetMember", kDoc, {}, true, {{kGet, "s"}}, {ok(R"("str")")}},
      {"GetObject", kDoc, {}, true, {{kGet, "a.b[2]"}}, {ok(R"({"c":"x"})")}},
      {"GetNested", kDoc, {}, true, {{kGet, "a.b[2].c"}}, {ok(R"("x")")}},
      {"GetElement", kDoc, {}, true, {{kGet, "a.b[0]"}}, {ok("1")}},
      {"GetLastElement", kDoc, {}, true, {{kGet, "a.b[-1]"}}, {ok(R"({"c":"x"})")}},
      {"GetNull", kDoc, {}, true, {{kGet, "a.n"}}, {ok("null")}},
      {"GetEmptyObject", kDoc, {}, true, {{kGet, "e"}}, {ok("{}")}},
      {"GetQuotedKey", R"({"a.b":{"c`d":5}})", {}, true, {{kGet, "`a.b`.`c``d`"}}, {ok("5")}},
      {"GetMissingMember", kDoc, {}, true, {{kGet, "a.x"}}, {fail(Status::SubdocPathEnoent)}},
      {"GetMissingElement", kDoc, {}, true, {{kGet, "a.b[3]"}},
       {fail(Status::SubdocPathEnoent)}},
      {"GetLastOfEmptyArray", kDoc, {}, true, {{kGet, "z[-1]"}},
       {fail(Status::SubdocPathEnoent)}},
      {"GetMemberOfArray", kDoc, {}, true, {{kGet, "a.b.c"}},
       {fail(Status::SubdocPathMismatch)}},
      {"GetElementOfObject", kDoc, {}, true, {{kGet, "a[0]"}},
       {fail(Status::SubdocPathMismatch)}},
      {"GetThroughString", kDoc, {}, true, {{kGet, "s.t"}}, {fail(Status::SubdocPathMismatch)}},
      {"GetBadPath", kDoc, {}, true, {{kGet, "a..b"}}, {fail(Status::SubdocPathEinval)}},
      {"GetNegativeIndex", kDoc, {}, true, {{kGet, "a.b[-2]"}},
       {fail(Status::SubdocPathEinval)}},
      {"GetPathOf33Components", kDoc, {}, true, {{kGet, path_of_components(33)}},
       {fail(Status::SubdocPathE2big)}},
      {"GetPathOver1024Bytes", kDoc, {}, true, {{kGet, std::string(1025, 'a')}},
       {fail(Status::SubdocPathE2big)}},
      {"GetTooDeep", nested_arrays(40), {}, true, {{kGet, index_path(32)}},
       {fail(Status::SubdocDocE2deep)}},
      {"GetDeepestAllowed", nested_arrays(40), {}, true, {{kExists, index_path(31)}}, {ok()}},
      {"ExistsPresent", kDoc, {}, true, {{kExists, "a.b[1]"}}, {ok()}},
      {"ExistsNull", kDoc, {}, true, {{kExists, "a.n"}}, {ok()}},
      {"ExistsMissing", kDoc, {}, true, {{kExists, "a.q"}}, {fail(Status::SubdocPathEnoent)}},
      {"ExistsMismatch", kDoc, {}, true, {{kExists, "s[0]"}},
       {fail(Status::SubdocPathMismatch)}},
      {"CountArray", kDoc, {}, true, {{kCount, "a.b"}}, {ok("3")}},
      {"CountObject", kDoc, {}, true, {{kCount, "a"}}, {ok("2")}},
      {"CountEmpty", kDoc, {}, true, {{kCount, "z"}}, {ok("0")}},
      {"CountRoot", kDoc, {}, true, {{kCount, ""}}, {ok("4")}},
      {"CountOfString", kDoc, {}, true, {{kCount, "s"}}, {fail(Status::SubdocPathMismatch)}},
      {"CountMissing", kDoc, {}, true, {{kCount, "q"}}, {fail(Status::SubdocPathEnoent)}},
      {"GetDoc", kDoc, {}, true, {{kGetDoc, ""}}, {ok(kDoc)}},
      // A body that is not JSON: body paths fail with DocNotJson, XATTRs and GetDoc work.
      {"BinaryBody", "\x01\x02 not json", {{"meta", "7"}}, false,
       {{kGet, "meta", kXattr}, {kGet, "a"}, {kExists, "a"}, {kCount, ""}, {kGetDoc, ""}},
       {ok("7"), fail(Status::SubdocDocNotJson), fail(Status::SubdocDocNotJson),
        fail(Status::SubdocDocNotJson), ok("\x01\x02 not json")}},
      // A body a client declared JSON that is not (stored as declared): the first walk that
      // meets the bad text fails, and so does every later one (dispatcher_fuzz's finding: the
      // second spec's walk crashed ternd).
      {"DeclaredJsonThatIsNot", R"({"a":1,"b":[1,})", {}, true,
       {{kGet, "c"}, {kExists, "d"}, {kCount, ""}, {kGetDoc, ""}},
       {fail(Status::SubdocDocNotJson), fail(Status::SubdocDocNotJson),
        fail(Status::SubdocDocNotJson), ok(R"({"a":1,"b":[1,})")}},
      // XATTRs: the path starts with the attribute's key.
      {"XattrWhole", kDoc, {{"meta", R"({"rev":2,"tags":["a","b"]})"}}, true,
       {{kGet, "meta", kXattr}}, {ok(R"({"rev":2,"tags":["a","b"]})")}},
      {"XattrMember", kDoc, {{"meta", R"({"rev":2,"tags":["a","b"]})"}}, true,
       {{kGet, "meta.tags[-1]", kXattr}}, {ok(R"("b")")}},
      {"XattrCountAndExists", kDoc, {{"meta", R"({"rev":2,"tags":["a","b"]})"}}, true,
       {{kCount, "meta.tags", kXattr}, {kExists, "meta.rev", kXattr}},
       {ok("2"), ok()}},
      {"XattrSystem", kDoc, {{"_sync", R"({"cas":"0x01"})"}, {"meta", "1"}}, true,
       {{kGet, "_sync.cas", kXattr}, {kGet, "meta", kXattr}}, {ok(R"("0x01")"), ok("1")}},
      {"XattrMissing", kDoc, {{"meta", "1"}}, true, {{kGet, "other", kXattr}},
       {fail(Status::SubdocPathEnoent)}},
      {"XattrMissingWithoutAny", kDoc, {}, true, {{kGet, "meta", kXattr}},
       {fail(Status::SubdocPathEnoent)}},
      {"XattrMismatch", kDoc, {{"meta", "1"}}, true, {{kGet, "meta.x", kXattr}},
       {fail(Status::SubdocPathMismatch)}},
      {"XattrBadPath", kDoc, {{"meta", "1"}}, true, {{kGet, "meta[x]", kXattr}},
       {fail(Status::SubdocPathEinval)}},
      {"XattrsAndBodyMixed", kDoc, {{"meta", "1"}}, true,
       {{kGet, "meta", kXattr}, {kGet, "nope", kXattr}, {kGet, "s"}, {kExists, "nope"},
        {kCount, "a.b"}, {kGetDoc, ""}},
       {ok("1"), fail(Status::SubdocPathEnoent), ok(R"("str")"),
        fail(Status::SubdocPathEnoent), ok("3"), ok(kDoc)}},
      // Virtual XATTRs that do not depend on the document's metadata.
      {"VattrValueBytes", kDoc, {{"meta", "1"}}, true, {{kGet, "$document.value_bytes", kXattr}},
       {ok(std::to_string(std::string_view(kDoc).size()))}},
      {"VattrDatatypeJsonXattr", kDoc, {{"meta", "1"}}, true,
       {{kGet, "$document.datatype", kXattr}}, {ok(R"(["json","xattr"])")}},
      {"VattrDatatypeJson", kDoc, {}, true, {{kGet, "$document.datatype", kXattr}},
       {ok(R"(["json"])")}},
      {"VattrDatatypeRaw", "raw", {}, false, {{kGet, "$document.datatype", kXattr}},
       {ok(R"(["raw"])")}},
      {"VattrDeleted", kDoc, {}, true, {{kGet, "$document.deleted", kXattr}}, {ok("false")}},
      {"VattrFlags", kDoc, {}, true, {{kGet, "$document.flags", kXattr}}, {ok("0")}},
      {"VattrExptimeNever", kDoc, {}, true, {{kGet, "$document.exptime", kXattr}}, {ok("0")}},
      {"VattrCrc32c", "hello", {}, false, {{kGet, "$document.value_crc32c", kXattr}},
       {ok(hex(crc32c("hello"), 8))}},
      {"VattrDocumentExists", kDoc, {}, true, {{kExists, "$document.CAS", kXattr}}, {ok()}},
      {"VattrDocumentCount", kDoc, {}, true, {{kCount, "$document", kXattr}}, {ok("10")}},
      {"VattrDocumentMissingField", kDoc, {}, true, {{kGet, "$document.nope", kXattr}},
       {fail(Status::SubdocPathEnoent)}},
      {"VattrXtoc", kDoc, {{"_sync", "1"}, {"meta", "2"}}, true, {{kGet, "$XTOC", kXattr}},
       {ok(R"(["_sync","meta"])")}},
      {"VattrXtocEmpty", kDoc, {}, true, {{kGet, "$XTOC", kXattr}}, {ok("[]")}},
      {"VattrXtocCount", kDoc, {{"a", "1"}, {"b", "2"}}, true, {{kCount, "$XTOC", kXattr}},
       {ok("2")}},
      {"VattrVbucketMode", kDoc, {}, true, {{kGet, "$vbucket.HLC.mode", kXattr}},
       {ok(R"("real")")}},
      {"VattrUnknown", kDoc, {}, true, {{kGet, "$nothing", kXattr}},
       {fail(Status::SubdocXattrUnknownVattr)}},
      {"VattrUnknownWithPath", kDoc, {}, true, {{kGet, "$Document.CAS", kXattr}},
       {fail(Status::SubdocXattrUnknownVattr)}},
      {"VattrAndXattrsTogether", kDoc, {{"meta", "1"}}, true,
       {{kGet, "$document.deleted", kXattr}, {kGet, "meta", kXattr},
        {kGet, "$XTOC", kXattr}, {kGet, "$document.flags", kXattr}, {kGet, "s"}},
       {ok("false"), ok("1"), ok(R"(["meta"])"), ok("0"), ok(R"("str")")}},
  };
  return cases;
}

class LookupTableTest : public SubdocLookupTest,
                        public ::testing::WithParamInterface<LookupCase> {};

TEST_P(LookupTableTest, MultiLookupAnswersEverySpec) {
  const LookupCase& c = GetParam();
  const uint64_t cas = put("doc", c.body, c.xattrs, c.json);
  const Response answer = one(multi("doc", c.specs));
  bool all_ok = true;
  for (const Result& r : c.expected) all_ok = all_ok && r.status == Status::Success;
  EXPECT_EQ(answer.status, all_ok ? Status::Success : Status::SubdocMultiPathFailure);
  EXPECT_EQ(answer.cas, cas);
  EXPECT_EQ(answer.datatype, 0);
  EXPECT_TRUE(answer.extras.empty());
  EXPECT_EQ(results_of(answer), c.expected);
}

TEST_P(LookupTableTest, SinglePathCommandsAnswerTheSame) {
  const LookupCase& c = GetParam();
  const uint64_t cas = put("doc", c.body, c.xattrs, c.json);
  for (size_t i = 0; i < c.specs.size(); ++i) {
    const Spec& spec = c.specs[i];
    if (spec.op == kGetDoc) continue;  // a multi-lookup operation only
    if (spec.op == kGet && spec.path.empty()) continue;
    const Result& expected = c.expected[i];
    const Response answer = one(single("doc", spec));
    SCOPED_TRACE(spec.path);
    if (expected.status != Status::Success) {
      expect_error(answer, expected.status);
      continue;
    }
    EXPECT_EQ(answer.status, Status::Success);
    EXPECT_EQ(answer.value, expected.value);
    EXPECT_EQ(answer.cas, cas);
    EXPECT_EQ(answer.datatype, spec.op == kExists ? 0 : protocol::datatype::kJson);
  }
}

INSTANTIATE_TEST_SUITE_P(Lookups, LookupTableTest, ::testing::ValuesIn(lookup_cases()),
                         [](const auto& info) { return std::string(info.param.name); });

// --- Virtual XATTRs from the document's metadata ---------------------------------------------

TEST_F(SubdocLookupTest, DocumentVattrReportsTheMetadataAsCouchbaseWritesIt) {
  // Through SET, so the document has a seqno and an expiry.
  const Response stored = connection_.set("doc", R"({"a":1})", 0xcafe, 3600,
                                          testing::kJsonDatatype);
  ASSERT_EQ(stored.status, Status::Success);
  const engine::GetResult read = engine_.get_document("doc", false);
  ASSERT_EQ(read.status, engine::Status::Success);
  const engine::MetaResult meta = engine_.get_meta("doc");

  const Response answer = one(multi("doc", {{kGet, "$document", kXattr},
                                            {kGet, "$document.exptime", kXattr},
                                            {kGet, "$document.flags", kXattr},
                                            {kGet, "$document.CAS", kXattr}}));
  ASSERT_EQ(answer.status, Status::Success);
  const std::vector<Result> results = results_of(answer);
  ASSERT_EQ(results.size(), 4u);
  EXPECT_EQ(results[1].value, std::to_string(meta.expiry));
  EXPECT_NE(meta.expiry, 0u);
  EXPECT_EQ(results[2].value, std::to_string(0xcafe));
  EXPECT_EQ(results[3].value, hex(stored.cas, 16));

  rapidjson::Document doc;
  doc.Parse(results[0].value.data(), results[0].value.size());
  ASSERT_FALSE(doc.HasParseError()) << results[0].value;
  std::vector<std::string> names;
  for (const auto& member : doc.GetObject()) names.emplace_back(member.name.GetString());
  // Couchbase's members, in its (alphabetical) order.
  EXPECT_EQ(names, (std::vector<std::string>{"CAS", "datatype", "deleted", "exptime", "flags",
                                             "revid", "seqno", "value_bytes", "value_crc32c",
                                             "vbucket_uuid"}));
  EXPECT_EQ(std::string("\"") + doc["CAS"].GetString() + "\"", hex(stored.cas, 16));
  EXPECT_EQ(std::string("\"") + doc["seqno"].GetString() + "\"", hex(read.item->seqno, 16));
  EXPECT_EQ(doc["revid"].GetString(), std::to_string(read.item->rev_seqno));
  EXPECT_EQ(doc["exptime"].GetUint(), meta.expiry);
  EXPECT_EQ(doc["flags"].GetUint(), 0xcafeu);
  EXPECT_EQ(doc["value_bytes"].GetUint(), 7u);
  EXPECT_FALSE(doc["deleted"].GetBool());
  EXPECT_EQ(std::string("\"") + doc["value_crc32c"].GetString() + "\"",
            hex(crc32c(R"({"a":1})"), 8));
  const engine::VBucket* vbucket = node_->buckets().front()->vbucket(0);
  EXPECT_EQ(std::string("\"") + doc["vbucket_uuid"].GetString() + "\"",
            hex(vbucket->uuid(), 16));
}

TEST_F(SubdocLookupTest, GetWithExpiryAsTheSdksSendIt) {
  // The C++ core's get with expiry: $document.exptime, $document.flags, then the body.
  ASSERT_EQ(connection_.set("doc", R"({"name":"x"})", 7, 60, testing::kJsonDatatype).status,
            Status::Success);
  const Response answer = one(multi("doc", {{kGet, "$document.exptime", kXattr},
                                            {kGet, "$document.flags", kXattr},
                                            {kGetDoc, ""}}));
  ASSERT_EQ(answer.status, Status::Success);
  EXPECT_EQ(results_of(answer),
            (std::vector<Result>{ok(std::to_string(engine_.get_meta("doc").expiry)), ok("7"),
                                 ok(R"({"name":"x"})")}));
}

TEST_F(SubdocLookupTest, VbucketVattrIsTheClock) {
  put("doc", "{}");
  const Response answer = one(multi("doc", {{kGet, "$vbucket", kXattr}}));
  ASSERT_EQ(answer.status, Status::Success);
  rapidjson::Document doc;
  const std::string value = results_of(answer).at(0).value;
  doc.Parse(value.data(), value.size());
  ASSERT_FALSE(doc.HasParseError()) << value;
  EXPECT_STREQ(doc["HLC"]["mode"].GetString(), "real");
  EXPECT_GT(std::stoull(doc["HLC"]["now"].GetString()), 1600000000ull);
}

// --- The document as a whole -----------------------------------------------------------------

TEST_F(SubdocLookupTest, NoDocumentIsKeyEnoentWithoutBody) {
  expect_error(one(multi("missing", {{kGet, "a"}})), Status::KeyEnoent);
  expect_error(one(single("missing", {kGet, "a"})), Status::KeyEnoent);
  expect_error(one(multi("missing", {{kGet, "$document", kXattr}}, kAccessDeleted)),
               Status::KeyEnoent);
}

TEST_F(SubdocLookupTest, ATombstoneIsReadOnlyWithAccessDeleted) {
  const uint64_t cas = tombstone("doc");
  expect_error(one(multi("doc", {{kGet, "_sync", kXattr}})), Status::KeyEnoent);
  expect_error(one(single("doc", {kGet, "_sync", kXattr})), Status::KeyEnoent);

  // All specs succeed: SubdocSuccessDeleted; the system attribute survived, the user one not.
  Response answer = one(multi("doc", {{kGet, "_sync.rev", kXattr},
                                      {kGet, "$document.deleted", kXattr},
                                      {kGet, "$XTOC", kXattr}},
                              kAccessDeleted));
  EXPECT_EQ(answer.status, Status::SubdocSuccessDeleted);
  EXPECT_EQ(answer.cas, cas);
  EXPECT_EQ(results_of(answer),
            (std::vector<Result>{ok(R"("3-abc")"), ok("true"), ok(R"(["_sync"])")}));
  // Its exptime is when it was removed, as GET_META reports it.
  answer = one(multi("doc", {{kGet, "$document.exptime", kXattr}}, kAccessDeleted));
  EXPECT_EQ(results_of(answer),
            std::vector<Result>{ok(std::to_string(engine_.get_meta("doc").expiry))});
  EXPECT_NE(engine_.get_meta("doc").expiry, 0u);

  // A failing spec: SubdocMultiPathFailureDeleted. The body is gone: no JSON, no GetDoc.
  answer = one(multi("doc", {{kGet, "_sync.rev", kXattr}, {kGet, "user", kXattr},
                             {kGet, "gone"}, {kGetDoc, ""}},
                     kAccessDeleted));
  EXPECT_EQ(answer.status, Status::SubdocMultiPathFailureDeleted);
  EXPECT_EQ(answer.cas, cas);
  EXPECT_EQ(results_of(answer),
            (std::vector<Result>{ok(R"("3-abc")"), fail(Status::SubdocPathEnoent),
                                 fail(Status::SubdocDocNotJson),
                                 fail(Status::SubdocPathEnoent)}));

  // Single-path: SubdocSuccessDeleted with the value.
  answer = one(single("doc", {kGet, "_sync", kXattr}, kAccessDeleted));
  EXPECT_EQ(answer.status, Status::SubdocSuccessDeleted);
  EXPECT_EQ(answer.value, R"({"rev":"3-abc"})");
  EXPECT_EQ(answer.datatype, protocol::datatype::kJson);
  EXPECT_EQ(answer.cas, cas);
}

TEST_F(SubdocLookupTest, AccessDeletedOnALiveDocumentIsAPlainLookup) {
  const uint64_t cas = put("doc", R"({"a":1})");
  const Response answer = one(multi("doc", {{kGet, "a"}}, kAccessDeleted));
  EXPECT_EQ(answer.status, Status::Success);
  EXPECT_EQ(answer.cas, cas);
  EXPECT_EQ(results_of(answer), std::vector<Result>{ok("1")});
}

TEST_F(SubdocLookupTest, ReplicaReadLooksUpAReplicaVbucketsCopyOnly) {
  constexpr uint8_t kReplicaRead = 0x20;  // doc flag
  constexpr uint16_t kVb = 7;
  Request replica_multi =
      multi("doc", {{kGet, "$document.CAS", kXattr}, {kGet, "a"}}, kReplicaRead);
  Request replica_single = single("doc", {kGet, "a"}, kReplicaRead);
  Request active_multi = multi("doc", {{kGet, "a"}});
  for (Request* r : {&replica_multi, &replica_single, &active_multi}) r->vbucket = kVb;
  ASSERT_EQ(one({.opcode = Opcode::Set,
                 .key = "doc",
                 .value = R"({"a":1})",
                 .extras = testing::storage_extras(0, 0),
                 .vbucket = kVb})
                .status,
            Status::Success);
  const uint64_t cas = engine_.get_document("doc", false).item->cas;
  // The vbucket is active: a replica read is not served here.
  EXPECT_EQ(one(replica_multi).status, Status::NotMyVbucket);
  EXPECT_EQ(one(replica_single).status, Status::NotMyVbucket);

  ASSERT_TRUE(node_->buckets().front()->set_vbucket_state(kVb, cluster::VBucketState::Replica));
  Response answer = one(replica_multi);
  EXPECT_EQ(answer.status, Status::Success);
  EXPECT_EQ(answer.cas, cas);
  EXPECT_EQ(results_of(answer), (std::vector<Result>{ok(hex(cas, 16)), ok("1")}));
  answer = one(replica_single);
  EXPECT_EQ(answer.status, Status::Success);
  EXPECT_EQ(answer.value, "1");
  // Now a lookup without the flag is the one that is not served.
  EXPECT_EQ(one(active_multi).status, Status::NotMyVbucket);
}

TEST_F(SubdocLookupTest, ALockedDocumentIsReadWithTheLockedCas) {
  put("doc", R"({"a":1})");
  ASSERT_EQ(one({.opcode = Opcode::GetLocked, .key = "doc"}).status, Status::Success);
  Response answer = one(multi("doc", {{kGet, "$document.CAS", kXattr}, {kGet, "a"}}));
  EXPECT_EQ(answer.status, Status::Success);
  EXPECT_EQ(answer.cas, engine::Engine::kLockedCas);
  EXPECT_EQ(results_of(answer),
            (std::vector<Result>{ok(hex(engine::Engine::kLockedCas, 16)), ok("1")}));
  answer = one(single("doc", {kCount, ""}));
  EXPECT_EQ(answer.status, Status::Success);
  EXPECT_EQ(answer.cas, engine::Engine::kLockedCas);
}

TEST_F(SubdocLookupTest, ARequestCasMustBeTheDocuments) {
  const uint64_t cas = put("doc", R"({"a":1})");
  expect_error(one(multi("doc", {{kGet, "a"}}, 0, cas + 1)), Status::KeyEexists);
  expect_error(one(single("doc", {kGet, "a"}, 0, cas + 1)), Status::KeyEexists);
  const Response answer = one(multi("doc", {{kGet, "a"}}, 0, cas));
  EXPECT_EQ(answer.status, Status::Success);
  EXPECT_EQ(answer.cas, cas);
}

TEST_F(SubdocLookupTest, XattrPathsNeedXattrNegotiated) {
  put("doc", R"({"a":1})", {{"meta", "1"}});
  Connection plain(dispatcher_, *node_);
  ASSERT_EQ(plain.hello({Feature::Xerror}).status, Status::Success);
  expect_error(plain.one(multi("doc", {{kGet, "meta", kXattr}})), Status::NotSupported);
  expect_error(plain.one(single("doc", {kGet, "meta", kXattr})), Status::NotSupported);
  // Body paths need nothing.
  EXPECT_EQ(plain.one(multi("doc", {{kGet, "a"}})).status, Status::Success);
}

TEST_F(SubdocLookupTest, RefusedRequestsAnswerTheirStatusWithoutBody) {
  put("doc", R"({"a":1})");
  // Extras: a lookup takes no expiry.
  Request r = multi("doc", {{kGet, "a"}});
  r.extras = {0, 0, 0, 10};
  expect_error(one(r), Status::Einval);
  r.extras = {0, 0};
  expect_error(one(r), Status::Einval);
  Request s = single("doc", {kGet, "a"});
  s.extras = {0, 1, 0, 0, 0, 0, 0};
  expect_error(one(s), Status::Einval);
  s.extras = {0, 1};
  expect_error(one(s), Status::Einval);
  // Sub-document requests are raw bytes.
  r = multi("doc", {{kGet, "a"}});
  r.datatype = testing::kJsonDatatype;
  expect_error(one(r), Status::Einval);
  // Decoding's statuses.
  expect_error(one(multi("doc", {})), Status::SubdocInvalidCombo);
  expect_error(one(multi("doc", std::vector<Spec>(17, Spec{kGet, "a"}))),
               Status::SubdocInvalidCombo);
  expect_error(one(multi("doc", {{0xc8, "a"}})), Status::SubdocInvalidCombo);
  expect_error(one(multi("doc", {{kGet, "a"}, {kGet, "m", kXattr}})),
               Status::SubdocInvalidXattrOrder);
  expect_error(one(multi("doc", {{kGet, std::string(16, 'k'), kXattr}})), Status::XattrEinval);
  // No key.
  expect_error(one(multi("", {{kGet, "a"}})), Status::Einval);
}

TEST_F(SubdocLookupTest, SixteenSpecsAreAnsweredInOrder) {
  put("doc", R"({"l":[0,1,2,3,4,5,6,7]})");
  std::vector<Spec> specs;
  std::vector<Result> expected;
  for (int i = 0; i < 16; ++i) {
    specs.push_back({kGet, "l[" + std::to_string(i) + "]"});
    expected.push_back(i < 8 ? ok(std::to_string(i)) : fail(Status::SubdocPathEnoent));
  }
  const Response answer = one(multi("doc", specs));
  EXPECT_EQ(answer.status, Status::SubdocMultiPathFailure);
  EXPECT_EQ(results_of(answer), expected);
}

TEST_F(SubdocLookupTest, APlainGetOfTheSameDocumentShowsNoXattrs) {
  put("doc", R"({"a":1})", {{"meta", "1"}});
  const Response got = connection_.get("doc");
  EXPECT_EQ(got.status, Status::Success);
  EXPECT_EQ(got.value, R"({"a":1})");
  EXPECT_EQ(one(multi("doc", {{kGet, "meta", kXattr}})).status, Status::Success);
}

TEST_F(SubdocLookupTest, CollectionsKeepDocumentsApart) {
  Connection c(dispatcher_, *node_);
  ASSERT_EQ(c.hello({Feature::Xerror, Feature::Xattr, Feature::Collections}).status,
            Status::Success);
  put("doc", R"({"a":1})");
  const Response answer = c.one(multi(testing::collection_key(0, "doc"), {{kGet, "a"}}));
  EXPECT_EQ(answer.status, Status::Success);
  EXPECT_EQ(results_of(answer), std::vector<Result>{ok("1")});
  EXPECT_EQ(c.one(multi(testing::collection_key(8, "doc"), {{kGet, "a"}})).status,
            Status::UnknownCollection);
}

// Random multi-lookups (random opcodes, flags, paths and lengths) on documents with and
// without XATTRs and on a tombstone: every answer is well formed, every status is one the
// error map has, and every per-spec status is one a client knows. Fixed seed: reproducible.
TEST_F(SubdocLookupTest, RandomLookupsAlwaysGetWellFormedAnswers) {
  put("plain", R"({"a":{"b":[1,2,3]},"s":"x"})");
  put("rich", R"({"a":[{"b":1}]})", {{"_sync", R"({"rev":1})"}, {"meta", R"([1,2])"}});
  put("binary", "\xff\xfe", {{"meta", "1"}}, false);
  tombstone("dead");
  std::mt19937 rng(20261122);
  auto pick = [&rng](uint32_t bound) { return static_cast<uint32_t>(rng() % bound); };
  const uint8_t ops[] = {kGet, kExists, kCount, kGetDoc, 0xc8, 0x01, 0xd0, 0x42};
  const std::vector<std::string> paths = {
      "", "a", "a.b", "a.b[0]", "a.b[-1]", "a[0].b", "s", "s.t", "_sync", "_sync.rev",
      "meta[1]", "$document", "$document.exptime", "$XTOC", "$vbucket.HLC", "$x", "a..b",
      "[0]", "`a`", std::string(20, 'k'), "a\xc3", "meta[-2]"};
  const std::string keys[] = {"plain", "rich", "binary", "dead", "missing"};
  const auto known_status = [](Status status) {
    char entry[16];
    std::snprintf(entry, sizeof entry, "\"%x\":{", static_cast<unsigned>(status));
    return protocol::error_map_json().find(entry) != std::string_view::npos;
  };
  for (int i = 0; i < 3000; ++i) {
    std::vector<Spec> specs(pick(18));
    for (Spec& spec : specs) {
      spec.op = ops[pick(std::size(ops))];
      spec.path = paths[pick(paths.size())];
      spec.flags = pick(3) == 0 ? static_cast<uint8_t>(pick(64)) : (pick(2) ? kXattr : 0);
    }
    Request r = multi(keys[pick(std::size(keys))], specs,
                      pick(3) == 0 ? static_cast<uint8_t>(pick(64)) : 0);
    if (pick(10) == 0) r.value.resize(pick(static_cast<uint32_t>(r.value.size()) + 1));
    if (pick(10) == 0) r.extras = Bytes(pick(6), static_cast<uint8_t>(pick(256)));
    const Response answer = one(r);
    ASSERT_TRUE(known_status(answer.status)) << static_cast<int>(answer.status);
    const bool answered = answer.status == Status::Success ||
                          answer.status == Status::SubdocMultiPathFailure ||
                          answer.status == Status::SubdocSuccessDeleted ||
                          answer.status == Status::SubdocMultiPathFailureDeleted;
    if (answer.status == Status::NotMyVbucket) {  // a ReplicaRead on this active vbucket
      EXPECT_EQ(answer.value, node_->buckets().front()->cluster_map()->json());
      continue;
    }
    if (!answered) {
      expect_error(answer, answer.status);
      continue;
    }
    const std::vector<Result> results = results_of(answer);
    ASSERT_EQ(results.size(), specs.size());
    for (const Result& result : results) {
      ASSERT_TRUE(is_subdoc_entry_status(result.status)) << static_cast<int>(result.status);
    }
    if (::testing::Test::HasFailure()) break;
  }
}

}  // namespace
}  // namespace tern::commands
