// Table tests of JsonDocument: one row per document, operation, path and value, with the
// status and the exact text (looked-up value, or whole new document) it must produce.
#include "subdoc/json_document.h"

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

namespace tern::subdoc {
namespace {

using protocol::Status;

Path parsed(const std::string& text) {
  Path path;
  EXPECT_EQ(parse_path(text, path), Status::Success) << "bad path in the table: " << text;
  return path;
}

// `levels` objects nested as {"a":{"a":...{"a":1}...}}: the 1 lies at level levels + 1.
std::string nested_objects(size_t levels) {
  std::string text;
  for (size_t i = 0; i < levels; ++i) text += "{\"a\":";
  text += "1";
  text.append(levels, '}');
  return text;
}

// "a.a. ... .a", `components` of them.
std::string path_of(size_t components) {
  std::string text = "a";
  for (size_t i = 1; i < components; ++i) text += ".a";
  return text;
}

// `depth` arrays nested, the innermost empty: a value of that depth.
std::string nested_arrays(size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

// ---------------------------------------------------------------------------------------------
// Lookups

struct LookupRow {
  std::string doc;
  Lookup op;
  std::string path;
  Status status;
  std::string value;  // expected on Success (Get: the bytes, Count: the number, Exists: "")
};

std::ostream& operator<<(std::ostream& os, const LookupRow& row) {
  return os << "op " << static_cast<int>(row.op) << " path '" << row.path << "' on "
            << row.doc.substr(0, 80);
}

class LookupTest : public ::testing::TestWithParam<LookupRow> {};

TEST_P(LookupTest, AnswersTheStatusAndTheValue) {
  const LookupRow& row = GetParam();
  JsonDocument document;
  ASSERT_EQ(document.load(row.doc), Status::Success);
  std::string_view value = "left over";
  std::string scratch;
  EXPECT_EQ(document.lookup(row.op, parsed(row.path), value, scratch), row.status);
  if (row.status == Status::Success) EXPECT_EQ(value, row.value);
}

const std::string kUser =
    R"({"name":"Ann","age":30,"tags":["a","b",{"x":1}],"nested":{"deep":{"v":[1,2,3]}},)"
    R"("empty":[],"eo":{},"q\"uote":1,"caf\u00e9":2,"n":null,"dup":1,"dup":2})";
const std::string kSpaced = R"( { "a" : [ 1 , { "b" : true } ] , "c" : "x" } )";

INSTANTIATE_TEST_SUITE_P(
    Get, LookupTest,
    ::testing::Values(
        LookupRow{kUser, Lookup::Get, "name", Status::Success, R"("Ann")"},
        LookupRow{kUser, Lookup::Get, "age", Status::Success, "30"},
        LookupRow{kUser, Lookup::Get, "tags", Status::Success, R"(["a","b",{"x":1}])"},
        LookupRow{kUser, Lookup::Get, "tags[0]", Status::Success, R"("a")"},
        LookupRow{kUser, Lookup::Get, "tags[-1]", Status::Success, R"({"x":1})"},
        LookupRow{kUser, Lookup::Get, "tags[2].x", Status::Success, "1"},
        LookupRow{kUser, Lookup::Get, "tags[-1].x", Status::Success, "1"},
        LookupRow{kUser, Lookup::Get, "nested.deep", Status::Success, R"({"v":[1,2,3]})"},
        LookupRow{kUser, Lookup::Get, "nested.deep.v[1]", Status::Success, "2"},
        LookupRow{kUser, Lookup::Get, "n", Status::Success, "null"},
        LookupRow{kUser, Lookup::Get, "eo", Status::Success, "{}"},
        // Keys the document escapes are compared unescaped.
        LookupRow{kUser, Lookup::Get, "q\"uote", Status::Success, "1"},
        LookupRow{kUser, Lookup::Get, "caf\xc3\xa9", Status::Success, "2"},
        // The first of two equal keys.
        LookupRow{kUser, Lookup::Get, "dup", Status::Success, "1"},
        LookupRow{kUser, Lookup::Get, "missing", Status::SubdocPathEnoent, ""},
        LookupRow{kUser, Lookup::Get, "nested.missing.v", Status::SubdocPathEnoent, ""},
        LookupRow{kUser, Lookup::Get, "tags[3]", Status::SubdocPathEnoent, ""},
        LookupRow{kUser, Lookup::Get, "empty[0]", Status::SubdocPathEnoent, ""},
        LookupRow{kUser, Lookup::Get, "empty[-1]", Status::SubdocPathEnoent, ""},
        LookupRow{kUser, Lookup::Get, "name.first", Status::SubdocPathMismatch, ""},
        LookupRow{kUser, Lookup::Get, "tags.x", Status::SubdocPathMismatch, ""},
        LookupRow{kUser, Lookup::Get, "nested[0]", Status::SubdocPathMismatch, ""},
        LookupRow{kUser, Lookup::Get, "n[0]", Status::SubdocPathMismatch, ""},
        LookupRow{kUser, Lookup::Get, "", Status::SubdocPathEinval, ""},
        // Whitespace stays inside the answer, never around it.
        LookupRow{kSpaced, Lookup::Get, "a", Status::Success, R"([ 1 , { "b" : true } ])"},
        LookupRow{kSpaced, Lookup::Get, "a[-1]", Status::Success, R"({ "b" : true })"},
        LookupRow{kSpaced, Lookup::Get, "a[1].b", Status::Success, "true"},
        LookupRow{kSpaced, Lookup::Get, "a[0]", Status::Success, "1"},
        LookupRow{kSpaced, Lookup::Get, "c", Status::Success, R"("x")"},
        // A root array, and a lone scalar.
        LookupRow{"[1,[2,3]]", Lookup::Get, "[1][0]", Status::Success, "2"},
        LookupRow{"[1,[2,3]]", Lookup::Get, "[-1]", Status::Success, "[2,3]"},
        LookupRow{"[1,[2,3]]", Lookup::Get, "a", Status::SubdocPathMismatch, ""},
        LookupRow{R"("str")", Lookup::Get, "a", Status::SubdocPathMismatch, ""},
        LookupRow{"7", Lookup::Get, "[0]", Status::SubdocPathMismatch, ""},
        // The value path a.a...a (31 components) names is at level 32: the limit. One more
        // component reaches level 33.
        LookupRow{nested_objects(32), Lookup::Get, path_of(31), Status::Success, R"({"a":1})"},
        LookupRow{nested_objects(32), Lookup::Get, path_of(32), Status::SubdocDocE2deep, ""},
        LookupRow{nested_objects(40), Lookup::Get, path_of(32), Status::SubdocDocE2deep, ""}));

INSTANTIATE_TEST_SUITE_P(
    Exists, LookupTest,
    ::testing::Values(LookupRow{kUser, Lookup::Exists, "name", Status::Success, ""},
                      LookupRow{kUser, Lookup::Exists, "tags[-1].x", Status::Success, ""},
                      LookupRow{kUser, Lookup::Exists, "n", Status::Success, ""},
                      LookupRow{kUser, Lookup::Exists, "missing", Status::SubdocPathEnoent, ""},
                      LookupRow{kUser, Lookup::Exists, "tags[5]", Status::SubdocPathEnoent, ""},
                      LookupRow{kUser, Lookup::Exists, "name.x", Status::SubdocPathMismatch, ""},
                      LookupRow{kUser, Lookup::Exists, "", Status::Success, ""},
                      LookupRow{"1", Lookup::Exists, "", Status::Success, ""},
                      LookupRow{nested_objects(33), Lookup::Exists, path_of(32),
                                Status::SubdocDocE2deep, ""}));

INSTANTIATE_TEST_SUITE_P(
    Count, LookupTest,
    ::testing::Values(LookupRow{kUser, Lookup::Count, "tags", Status::Success, "3"},
                      LookupRow{kUser, Lookup::Count, "nested", Status::Success, "1"},
                      LookupRow{kUser, Lookup::Count, "nested.deep.v", Status::Success, "3"},
                      LookupRow{kUser, Lookup::Count, "empty", Status::Success, "0"},
                      LookupRow{kUser, Lookup::Count, "eo", Status::Success, "0"},
                      LookupRow{kUser, Lookup::Count, "tags[-1]", Status::Success, "1"},
                      LookupRow{kSpaced, Lookup::Count, "a", Status::Success, "2"},
                      // The empty path counts the document itself (kv_engine allows it).
                      LookupRow{kUser, Lookup::Count, "", Status::Success, "11"},
                      LookupRow{"[1,2]", Lookup::Count, "", Status::Success, "2"},
                      LookupRow{"true", Lookup::Count, "", Status::SubdocPathMismatch, ""},
                      LookupRow{kUser, Lookup::Count, "name", Status::SubdocPathMismatch, ""},
                      LookupRow{kUser, Lookup::Count, "n", Status::SubdocPathMismatch, ""},
                      LookupRow{kUser, Lookup::Count, "missing", Status::SubdocPathEnoent, ""},
                      LookupRow{kUser, Lookup::Count, "tags.x", Status::SubdocPathMismatch,
                                ""}));

// ---------------------------------------------------------------------------------------------
// Mutations

struct MutationRow {
  std::string doc;
  Mutation op;
  std::string path;
  std::string value;
  bool create_parents;
  Status status;
  std::string expected;  // the new document, on Success
  std::string result = "";  // Counter's new number, on Success
};

std::ostream& operator<<(std::ostream& os, const MutationRow& row) {
  return os << "op " << static_cast<int>(row.op) << " path '" << row.path << "' value '"
            << row.value.substr(0, 40) << "'" << (row.create_parents ? " +parents" : "")
            << " on " << row.doc.substr(0, 80);
}

class MutationTest : public ::testing::TestWithParam<MutationRow> {};

TEST_P(MutationTest, AnswersTheStatusAndTheNewDocument) {
  const MutationRow& row = GetParam();
  JsonDocument document;
  ASSERT_EQ(document.load(row.doc), Status::Success);
  std::string out = "left over";
  std::string result = "left over";
  ASSERT_EQ(document.mutate(row.op, parsed(row.path), row.value, row.create_parents, out, result),
            row.status);
  if (row.status != Status::Success) return;
  EXPECT_EQ(out, row.expected);
  EXPECT_EQ(result, row.result);
  // The loaded document is unchanged, and the new one is JSON.
  EXPECT_EQ(document.text(), row.doc);
  EXPECT_TRUE(is_json(out)) << out;
}

const std::string kDoc = R"({"a":1,"b":[1,2],"c":{"d":true}})";
constexpr bool kParents = true;
constexpr bool kNoParents = false;

INSTANTIATE_TEST_SUITE_P(
    DictAdd, MutationTest,
    ::testing::Values(
        MutationRow{kDoc, Mutation::DictAdd, "x", "5", kNoParents, Status::Success,
                    R"({"a":1,"b":[1,2],"c":{"d":true},"x":5})"},
        MutationRow{kDoc, Mutation::DictAdd, "c.e", R"("s")", kNoParents, Status::Success,
                    R"({"a":1,"b":[1,2],"c":{"d":true,"e":"s"}})"},
        MutationRow{"{}", Mutation::DictAdd, "x", " [ ] ", kNoParents, Status::Success,
                    R"({"x": [ ] })"},
        MutationRow{R"({ "e" : { } })", Mutation::DictAdd, "e.k", "1", kNoParents,
                    Status::Success, R"({ "e" : { "k":1} })"},
        MutationRow{kDoc, Mutation::DictAdd, "a", "5", kNoParents, Status::SubdocPathEexists, ""},
        MutationRow{kDoc, Mutation::DictAdd, "p.q.r", "1", kNoParents, Status::SubdocPathEnoent,
                    ""},
        MutationRow{kDoc, Mutation::DictAdd, "p.q.r", "1", kParents, Status::Success,
                    R"({"a":1,"b":[1,2],"c":{"d":true},"p":{"q":{"r":1}}})"},
        MutationRow{kDoc, Mutation::DictAdd, "c.p.q", "[1]", kParents, Status::Success,
                    R"({"a":1,"b":[1,2],"c":{"d":true,"p":{"q":[1]}}})"},
        // A created key is written escaped.
        MutationRow{"{}", Mutation::DictAdd, "q\"uote.x", "1", kParents, Status::Success,
                    R"({"q\"uote":{"x":1}})"},
        // Positions are never created.
        MutationRow{kDoc, Mutation::DictAdd, "b[5].x", "1", kParents, Status::SubdocPathEnoent,
                    ""},
        MutationRow{kDoc, Mutation::DictAdd, "b[0]", "1", kNoParents, Status::SubdocPathEinval,
                    ""},
        MutationRow{kDoc, Mutation::DictAdd, "b.x", "1", kNoParents, Status::SubdocPathMismatch,
                    ""},
        MutationRow{kDoc, Mutation::DictAdd, "a.x", "1", kParents, Status::SubdocPathMismatch, ""},
        MutationRow{kDoc, Mutation::DictAdd, "", "1", kNoParents, Status::SubdocPathEinval, ""},
        MutationRow{kDoc, Mutation::DictAdd, "x", "", kNoParents, Status::SubdocValueCantinsert,
                    ""},
        MutationRow{kDoc, Mutation::DictAdd, "x", " \n", kNoParents,
                    Status::SubdocValueCantinsert, ""},
        MutationRow{kDoc, Mutation::DictAdd, "x", "1,2", kNoParents,
                    Status::SubdocValueCantinsert, ""},
        MutationRow{kDoc, Mutation::DictAdd, "x", R"(1,"k":2)", kNoParents,
                    Status::SubdocValueCantinsert, ""},
        MutationRow{kDoc, Mutation::DictAdd, "x", "{", kNoParents, Status::SubdocValueCantinsert,
                    ""},
        MutationRow{kDoc, Mutation::DictAdd, "x", "bare", kNoParents,
                    Status::SubdocValueCantinsert, ""},
        MutationRow{kDoc, Mutation::DictAdd, "x", "\"\xff\"", kNoParents,
                    Status::SubdocValueCantinsert, ""}));

INSTANTIATE_TEST_SUITE_P(
    DictUpsert, MutationTest,
    ::testing::Values(
        MutationRow{kDoc, Mutation::DictUpsert, "a", R"({"z":[]})", kNoParents, Status::Success,
                    R"({"a":{"z":[]},"b":[1,2],"c":{"d":true}})"},
        MutationRow{kDoc, Mutation::DictUpsert, "c.d", "false", kNoParents, Status::Success,
                    R"({"a":1,"b":[1,2],"c":{"d":false}})"},
        MutationRow{kDoc, Mutation::DictUpsert, "x", "null", kNoParents, Status::Success,
                    R"({"a":1,"b":[1,2],"c":{"d":true},"x":null})"},
        MutationRow{kDoc, Mutation::DictUpsert, "b", "7", kNoParents, Status::Success,
                    R"({"a":1,"b":7,"c":{"d":true}})"},
        MutationRow{R"({ "a" : 1 , "b" : 2 })", Mutation::DictUpsert, "a", "9", kNoParents,
                    Status::Success, R"({ "a" : 9 , "b" : 2 })"},
        MutationRow{R"({ "a" : 1 , "b" : 2 })", Mutation::DictUpsert, "c", "3", kNoParents,
                    Status::Success, R"({ "a" : 1 , "b" : 2 ,"c":3})"},
        MutationRow{kDoc, Mutation::DictUpsert, "x.y", "1", kNoParents, Status::SubdocPathEnoent,
                    ""},
        MutationRow{kDoc, Mutation::DictUpsert, "x.y", "1", kParents, Status::Success,
                    R"({"a":1,"b":[1,2],"c":{"d":true},"x":{"y":1}})"},
        MutationRow{kDoc, Mutation::DictUpsert, "b[-1]", "1", kNoParents, Status::SubdocPathEinval,
                    ""}));

INSTANTIATE_TEST_SUITE_P(
    Replace, MutationTest,
    ::testing::Values(
        MutationRow{kDoc, Mutation::Replace, "a", "2", kNoParents, Status::Success,
                    R"({"a":2,"b":[1,2],"c":{"d":true}})"},
        MutationRow{kDoc, Mutation::Replace, "b[1]", R"("x")", kNoParents, Status::Success,
                    R"({"a":1,"b":[1,"x"],"c":{"d":true}})"},
        MutationRow{kDoc, Mutation::Replace, "b[-1]", "[3]", kNoParents, Status::Success,
                    R"({"a":1,"b":[1,[3]],"c":{"d":true}})"},
        MutationRow{kDoc, Mutation::Replace, "c", "0", kNoParents, Status::Success,
                    R"({"a":1,"b":[1,2],"c":0})"},
        MutationRow{kDoc, Mutation::Replace, "x", "1", kNoParents, Status::SubdocPathEnoent, ""},
        MutationRow{kDoc, Mutation::Replace, "x", "1", kParents, Status::SubdocPathEnoent, ""},
        MutationRow{kDoc, Mutation::Replace, "b[2]", "1", kNoParents, Status::SubdocPathEnoent,
                    ""},
        MutationRow{kDoc, Mutation::Replace, "a[0]", "1", kNoParents, Status::SubdocPathMismatch,
                    ""},
        MutationRow{kDoc, Mutation::Replace, "", "{}", kNoParents, Status::SubdocPathEinval, ""},
        MutationRow{kDoc, Mutation::Replace, "a", "1 2", kNoParents,
                    Status::SubdocValueCantinsert, ""}));

INSTANTIATE_TEST_SUITE_P(
    Remove, MutationTest,
    ::testing::Values(
        MutationRow{kDoc, Mutation::Remove, "a", "", kNoParents, Status::Success,
                    R"({"b":[1,2],"c":{"d":true}})"},
        MutationRow{kDoc, Mutation::Remove, "b", "", kNoParents, Status::Success,
                    R"({"a":1,"c":{"d":true}})"},
        MutationRow{kDoc, Mutation::Remove, "c", "", kNoParents, Status::Success,
                    R"({"a":1,"b":[1,2]})"},
        MutationRow{kDoc, Mutation::Remove, "c.d", "", kNoParents, Status::Success,
                    R"({"a":1,"b":[1,2],"c":{}})"},
        MutationRow{kDoc, Mutation::Remove, "b[0]", "", kNoParents, Status::Success,
                    R"({"a":1,"b":[2],"c":{"d":true}})"},
        MutationRow{kDoc, Mutation::Remove, "b[-1]", "", kNoParents, Status::Success,
                    R"({"a":1,"b":[1],"c":{"d":true}})"},
        MutationRow{"[[1]]", Mutation::Remove, "[0][0]", "", kNoParents, Status::Success, "[[]]"},
        // Whitespace around the removed member's comma is the only whitespace that goes.
        MutationRow{R"({ "a" : 1 , "b" : 2 })", Mutation::Remove, "a", "", kNoParents,
                    Status::Success, R"({  "b" : 2 })"},
        MutationRow{R"({ "a" : 1 , "b" : 2 })", Mutation::Remove, "b", "", kNoParents,
                    Status::Success, R"({ "a" : 1  })"},
        MutationRow{kDoc, Mutation::Remove, "x", "", kNoParents, Status::SubdocPathEnoent, ""},
        MutationRow{kDoc, Mutation::Remove, "b[2]", "", kNoParents, Status::SubdocPathEnoent, ""},
        MutationRow{kDoc, Mutation::Remove, "a.b", "", kNoParents, Status::SubdocPathMismatch,
                    ""},
        MutationRow{kDoc, Mutation::Remove, "", "", kNoParents, Status::SubdocPathEinval, ""}));

INSTANTIATE_TEST_SUITE_P(
    ArrayPushLast, MutationTest,
    ::testing::Values(
        MutationRow{kDoc, Mutation::ArrayPushLast, "b", "3", kNoParents, Status::Success,
                    R"({"a":1,"b":[1,2,3],"c":{"d":true}})"},
        MutationRow{kDoc, Mutation::ArrayPushLast, "b", R"(3,"4",[5])", kNoParents,
                    Status::Success, R"({"a":1,"b":[1,2,3,"4",[5]],"c":{"d":true}})"},
        MutationRow{R"({"e":[ ]})", Mutation::ArrayPushLast, "e", "1", kNoParents,
                    Status::Success, R"({"e":[1]})"},
        MutationRow{R"({"e":[1 ]})", Mutation::ArrayPushLast, "e", "2", kNoParents,
                    Status::Success, R"({"e":[1 ,2]})"},
        MutationRow{"[1]", Mutation::ArrayPushLast, "", "2", kNoParents, Status::Success, "[1,2]"},
        MutationRow{"[]", Mutation::ArrayPushLast, "", "2", kNoParents, Status::Success, "[2]"},
        MutationRow{kDoc, Mutation::ArrayPushLast, "x", "1", kNoParents, Status::SubdocPathEnoent,
                    ""},
        MutationRow{kDoc, Mutation::ArrayPushLast, "x", "1", kParents, Status::Success,
                    R"({"a":1,"b":[1,2],"c":{"d":true},"x":[1]})"},
        MutationRow{kDoc, Mutation::ArrayPushLast, "p.q", "1,2", kParents, Status::Success,
                    R"({"a":1,"b":[1,2],"c":{"d":true},"p":{"q":[1,2]}})"},
        MutationRow{"{}", Mutation::ArrayPushLast, "", "1", kNoParents,
                    Status::SubdocPathMismatch, ""},
        MutationRow{"3", Mutation::ArrayPushLast, "", "1", kNoParents, Status::SubdocPathMismatch,
                    ""},
        MutationRow{kDoc, Mutation::ArrayPushLast, "a", "3", kNoParents,
                    Status::SubdocPathMismatch, ""},
        MutationRow{kDoc, Mutation::ArrayPushLast, "c", "3", kParents, Status::SubdocPathMismatch,
                    ""},
        MutationRow{kDoc, Mutation::ArrayPushLast, "b", "3,", kNoParents,
                    Status::SubdocValueCantinsert, ""},
        MutationRow{kDoc, Mutation::ArrayPushLast, "b", ",3", kNoParents,
                    Status::SubdocValueCantinsert, ""},
        MutationRow{kDoc, Mutation::ArrayPushLast, "b", "1],[2", kNoParents,
                    Status::SubdocValueCantinsert, ""},
        MutationRow{kDoc, Mutation::ArrayPushLast, "b", "", kNoParents,
                    Status::SubdocValueCantinsert, ""},
        MutationRow{kDoc, Mutation::ArrayPushLast, "b", " ", kNoParents,
                    Status::SubdocValueCantinsert, ""}));

INSTANTIATE_TEST_SUITE_P(
    ArrayPushFirst, MutationTest,
    ::testing::Values(
        MutationRow{kDoc, Mutation::ArrayPushFirst, "b", "0", kNoParents, Status::Success,
                    R"({"a":1,"b":[0,1,2],"c":{"d":true}})"},
        MutationRow{kDoc, Mutation::ArrayPushFirst, "b", "-1,0", kNoParents, Status::Success,
                    R"({"a":1,"b":[-1,0,1,2],"c":{"d":true}})"},
        MutationRow{R"({"e":[ 1]})", Mutation::ArrayPushFirst, "e", "0", kNoParents,
                    Status::Success, R"({"e":[ 0,1]})"},
        MutationRow{R"({"e":[]})", Mutation::ArrayPushFirst, "e", "0", kNoParents,
                    Status::Success, R"({"e":[0]})"},
        MutationRow{"[1]", Mutation::ArrayPushFirst, "", "0", kNoParents, Status::Success,
                    "[0,1]"},
        MutationRow{kDoc, Mutation::ArrayPushFirst, "x", "0", kNoParents,
                    Status::SubdocPathEnoent, ""},
        MutationRow{kDoc, Mutation::ArrayPushFirst, "x", "0", kParents, Status::Success,
                    R"({"a":1,"b":[1,2],"c":{"d":true},"x":[0]})"},
        MutationRow{kDoc, Mutation::ArrayPushFirst, "c", "0", kNoParents,
                    Status::SubdocPathMismatch, ""},
        MutationRow{kDoc, Mutation::ArrayPushFirst, "b", "0,", kNoParents,
                    Status::SubdocValueCantinsert, ""}));

INSTANTIATE_TEST_SUITE_P(
    ArrayInsert, MutationTest,
    ::testing::Values(
        MutationRow{kDoc, Mutation::ArrayInsert, "b[0]", "0", kNoParents, Status::Success,
                    R"({"a":1,"b":[0,1,2],"c":{"d":true}})"},
        MutationRow{kDoc, Mutation::ArrayInsert, "b[1]", R"("x")", kNoParents, Status::Success,
                    R"({"a":1,"b":[1,"x",2],"c":{"d":true}})"},
        MutationRow{kDoc, Mutation::ArrayInsert, "b[0]", "7,8", kNoParents, Status::Success,
                    R"({"a":1,"b":[7,8,1,2],"c":{"d":true}})"},
        // The array's size appends.
        MutationRow{kDoc, Mutation::ArrayInsert, "b[2]", "3", kNoParents, Status::Success,
                    R"({"a":1,"b":[1,2,3],"c":{"d":true}})"},
        MutationRow{R"({"e":[]})", Mutation::ArrayInsert, "e[0]", "1", kNoParents,
                    Status::Success, R"({"e":[1]})"},
        MutationRow{"[1]", Mutation::ArrayInsert, "[0]", "0", kNoParents, Status::Success,
                    "[0,1]"},
        MutationRow{"[1]", Mutation::ArrayInsert, "[1]", "2", kNoParents, Status::Success,
                    "[1,2]"},
        MutationRow{" [ ] ", Mutation::ArrayInsert, "[0]", "2", kNoParents, Status::Success,
                    " [2] "},
        MutationRow{kDoc, Mutation::ArrayInsert, "b[3]", "3", kNoParents, Status::SubdocPathEnoent,
                    ""},
        MutationRow{R"({"e":[]})", Mutation::ArrayInsert, "e[1]", "1", kNoParents,
                    Status::SubdocPathEnoent, ""},
        MutationRow{kDoc, Mutation::ArrayInsert, "x[0]", "1", kNoParents,
                    Status::SubdocPathEnoent, ""},
        MutationRow{kDoc, Mutation::ArrayInsert, "b[-1]", "1", kNoParents,
                    Status::SubdocPathEinval, ""},
        MutationRow{kDoc, Mutation::ArrayInsert, "b", "1", kNoParents, Status::SubdocPathEinval,
                    ""},
        MutationRow{kDoc, Mutation::ArrayInsert, "", "1", kNoParents, Status::SubdocPathEinval,
                    ""},
        MutationRow{kDoc, Mutation::ArrayInsert, "c[0]", "1", kNoParents,
                    Status::SubdocPathMismatch, ""},
        MutationRow{kDoc, Mutation::ArrayInsert, "b[0]", "1,", kNoParents,
                    Status::SubdocValueCantinsert, ""}));

INSTANTIATE_TEST_SUITE_P(
    ArrayAddUnique, MutationTest,
    ::testing::Values(
        MutationRow{kDoc, Mutation::ArrayAddUnique, "b", "3", kNoParents, Status::Success,
                    R"({"a":1,"b":[1,2,3],"c":{"d":true}})"},
        MutationRow{kDoc, Mutation::ArrayAddUnique, "b", R"("2")", kNoParents, Status::Success,
                    R"({"a":1,"b":[1,2,"2"],"c":{"d":true}})"},
        MutationRow{R"({"e":[]})", Mutation::ArrayAddUnique, "e", "null", kNoParents,
                    Status::Success, R"({"e":[null]})"},
        MutationRow{R"(["a"])", Mutation::ArrayAddUnique, "", R"("b")", kNoParents,
                    Status::Success, R"(["a","b"])"},
        MutationRow{"[] ", Mutation::ArrayAddUnique, "", "1", kNoParents, Status::Success, "[1] "},
        MutationRow{R"(["a"] )", Mutation::ArrayAddUnique, "", "1", kNoParents, Status::Success,
                    R"(["a",1] )"},
        MutationRow{kDoc, Mutation::ArrayAddUnique, "x", "1", kParents, Status::Success,
                    R"({"a":1,"b":[1,2],"c":{"d":true},"x":[1]})"},
        MutationRow{kDoc, Mutation::ArrayAddUnique, "b", "2", kNoParents,
                    Status::SubdocPathEexists, ""},
        MutationRow{kDoc, Mutation::ArrayAddUnique, "b", " 2 ", kNoParents,
                    Status::SubdocPathEexists, ""},
        MutationRow{R"(["a"])", Mutation::ArrayAddUnique, "", R"("a")", kNoParents,
                    Status::SubdocPathEexists, ""},
        // An equal element met before any container answers Eexists; a container met first,
        // PathMismatch.
        MutationRow{R"({"m":[1,{"x":1}]})", Mutation::ArrayAddUnique, "m", "1", kNoParents,
                    Status::SubdocPathEexists, ""},
        MutationRow{R"({"m":[1,{"x":1}]})", Mutation::ArrayAddUnique, "m", "2", kNoParents,
                    Status::SubdocPathMismatch, ""},
        MutationRow{R"({"m":[[]]})", Mutation::ArrayAddUnique, "m", "2", kNoParents,
                    Status::SubdocPathMismatch, ""},
        MutationRow{kDoc, Mutation::ArrayAddUnique, "a", "2", kNoParents,
                    Status::SubdocPathMismatch, ""},
        MutationRow{kDoc, Mutation::ArrayAddUnique, "x", "1", kNoParents,
                    Status::SubdocPathEnoent, ""},
        MutationRow{kDoc, Mutation::ArrayAddUnique, "b", "[1]", kNoParents,
                    Status::SubdocValueCantinsert, ""},
        MutationRow{kDoc, Mutation::ArrayAddUnique, "b", "{}", kNoParents,
                    Status::SubdocValueCantinsert, ""},
        MutationRow{kDoc, Mutation::ArrayAddUnique, "b", "3,4", kNoParents,
                    Status::SubdocValueCantinsert, ""}));

INSTANTIATE_TEST_SUITE_P(
    Counter, MutationTest,
    ::testing::Values(
        MutationRow{R"({"n":5})", Mutation::Counter, "n", "3", kNoParents, Status::Success,
                    R"({"n":8})", "8"},
        MutationRow{R"({"n": 5 })", Mutation::Counter, "n", "-10", kNoParents, Status::Success,
                    R"({"n": -5 })", "-5"},
        MutationRow{R"({"a":[1]})", Mutation::Counter, "a[0]", "2", kNoParents, Status::Success,
                    R"({"a":[3]})", "3"},
        MutationRow{R"({"m":9223372036854775806})", Mutation::Counter, "m", "1", kNoParents,
                    Status::Success, R"({"m":9223372036854775807})", "9223372036854775807"},
        MutationRow{R"({"m":-9223372036854775807})", Mutation::Counter, "m", "-1", kNoParents,
                    Status::Success, R"({"m":-9223372036854775808})", "-9223372036854775808"},
        // A missing counter is created holding the delta.
        MutationRow{"{}", Mutation::Counter, "n", "7", kNoParents, Status::Success, R"({"n":7})",
                    "7"},
        MutationRow{"{}", Mutation::Counter, "p.n", "-7", kParents, Status::Success,
                    R"({"p":{"n":-7}})", "-7"},
        MutationRow{"{}", Mutation::Counter, "p.n", "7", kNoParents, Status::SubdocPathEnoent, ""},
        MutationRow{R"({"a":[1]})", Mutation::Counter, "a[1]", "2", kNoParents,
                    Status::SubdocPathEnoent, ""},
        MutationRow{R"({"n":5})", Mutation::Counter, "", "1", kNoParents, Status::SubdocPathEinval,
                    ""},
        // The delta.
        MutationRow{R"({"n":5})", Mutation::Counter, "n", "0", kNoParents,
                    Status::SubdocDeltaEinval, ""},
        MutationRow{R"({"n":5})", Mutation::Counter, "n", "-0", kNoParents,
                    Status::SubdocDeltaEinval, ""},
        MutationRow{R"({"n":5})", Mutation::Counter, "n", "01", kNoParents,
                    Status::SubdocDeltaEinval, ""},
        MutationRow{R"({"n":5})", Mutation::Counter, "n", "+1", kNoParents,
                    Status::SubdocDeltaEinval, ""},
        MutationRow{R"({"n":5})", Mutation::Counter, "n", "1.5", kNoParents,
                    Status::SubdocDeltaEinval, ""},
        MutationRow{R"({"n":5})", Mutation::Counter, "n", " 1", kNoParents,
                    Status::SubdocDeltaEinval, ""},
        MutationRow{R"({"n":5})", Mutation::Counter, "n", "", kNoParents,
                    Status::SubdocDeltaEinval, ""},
        MutationRow{R"({"n":5})", Mutation::Counter, "n", "x", kNoParents,
                    Status::SubdocDeltaEinval, ""},
        MutationRow{R"({"n":5})", Mutation::Counter, "n", "9223372036854775808", kNoParents,
                    Status::SubdocDeltaEinval, ""},
        // The current value.
        MutationRow{R"({"f":1.5})", Mutation::Counter, "f", "1", kNoParents,
                    Status::SubdocPathMismatch, ""},
        MutationRow{R"({"f":1e3})", Mutation::Counter, "f", "1", kNoParents,
                    Status::SubdocPathMismatch, ""},
        MutationRow{R"({"s":"1"})", Mutation::Counter, "s", "1", kNoParents,
                    Status::SubdocPathMismatch, ""},
        MutationRow{R"({"t":true})", Mutation::Counter, "t", "1", kNoParents,
                    Status::SubdocPathMismatch, ""},
        MutationRow{R"({"o":{}})", Mutation::Counter, "o", "1", kNoParents,
                    Status::SubdocPathMismatch, ""},
        MutationRow{R"({"big":9223372036854775808})", Mutation::Counter, "big", "-1", kNoParents,
                    Status::SubdocNumErange, ""},
        MutationRow{R"({"big":-9223372036854775809})", Mutation::Counter, "big", "1", kNoParents,
                    Status::SubdocNumErange, ""},
        // The result.
        MutationRow{R"({"m":9223372036854775807})", Mutation::Counter, "m", "1", kNoParents,
                    Status::SubdocValueCantinsert, ""},
        MutationRow{R"({"m":-9223372036854775808})", Mutation::Counter, "m", "-1", kNoParents,
                    Status::SubdocValueCantinsert, ""}));

// Depth: the root is level 1 and nothing may lie below level kMaxDepth (32).
INSTANTIATE_TEST_SUITE_P(
    Depth, MutationTest,
    ::testing::Values(
        // "a" holds its value at level 2, so the value may be 31 deep.
        MutationRow{"{}", Mutation::DictUpsert, "a", nested_arrays(31), kNoParents,
                    Status::Success, "{\"a\":" + nested_arrays(31) + "}"},
        MutationRow{"{}", Mutation::DictUpsert, "a", nested_arrays(32), kNoParents,
                    Status::SubdocValueEtoodeep, ""},
        MutationRow{"{}", Mutation::DictUpsert, "a", nested_arrays(2000), kNoParents,
                    Status::SubdocValueEtoodeep, ""},
        // Elements pushed into "b" lie at level 3.
        MutationRow{kDoc, Mutation::ArrayPushLast, "b", nested_arrays(30), kNoParents,
                    Status::Success,
                    R"({"a":1,"b":[1,2,)" + nested_arrays(30) + R"(],"c":{"d":true}})"},
        MutationRow{kDoc, Mutation::ArrayPushLast, "b", "1," + nested_arrays(31), kNoParents,
                    Status::SubdocValueEtoodeep, ""},
        MutationRow{kDoc, Mutation::ArrayInsert, "b[0]", nested_arrays(30), kNoParents,
                    Status::Success,
                    R"({"a":1,"b":[)" + nested_arrays(30) + R"(,1,2],"c":{"d":true}})"},
        MutationRow{kDoc, Mutation::ArrayInsert, "b[0]", nested_arrays(31), kNoParents,
                    Status::SubdocValueEtoodeep, ""},
        // A path of 31 keys puts a scalar at level 32; anything deeper does not fit.
        MutationRow{"{}", Mutation::DictUpsert, path_of(31), "1", kParents, Status::Success,
                    nested_objects(31)},
        MutationRow{"{}", Mutation::DictUpsert, path_of(31), "[1]", kParents,
                    Status::SubdocValueEtoodeep, ""},
        MutationRow{"{}", Mutation::DictUpsert, path_of(32), "1", kParents,
                    Status::SubdocValueEtoodeep, ""},
        // A counter it creates too (subdoc_fuzz found one made at level 33, which no lookup
        // could then read).
        MutationRow{"{}", Mutation::Counter, path_of(31), "1", kParents, Status::Success,
                    nested_objects(31), "1"},
        MutationRow{"{}", Mutation::Counter, path_of(32), "1", kParents,
                    Status::SubdocValueEtoodeep, ""},
        // A path reaching below level 32 in the document.
        MutationRow{nested_objects(32), Mutation::Remove, path_of(32), "", kNoParents,
                    Status::SubdocDocE2deep, ""},
        MutationRow{nested_objects(32), Mutation::Counter, path_of(32), "1", kNoParents,
                    Status::SubdocDocE2deep, ""},
        MutationRow{nested_objects(32), Mutation::Remove, path_of(31), "", kNoParents,
                    Status::Success, nested_objects(30).replace(5 * 30, 1, "{}")}));

// ---------------------------------------------------------------------------------------------
// Loading, chaining, members

TEST(JsonDocumentTest, ADocumentThatIsNotJsonFailsToLoadAndLeavesNothing) {
  JsonDocument document;
  ASSERT_EQ(document.load(R"({"a":1})"), Status::Success);
  EXPECT_EQ(document.load("\"\xff\""), Status::SubdocDocNotJson);
  EXPECT_EQ(document.text(), "");
  EXPECT_EQ(document.load(""), Status::SubdocDocNotJson);
  // A view with no data pointer (subdoc_fuzz's first finding: memcpy from null, which UBSan
  // refuses even for no bytes).
  EXPECT_EQ(document.load(std::string_view()), Status::SubdocDocNotJson);
  EXPECT_EQ(document.load(R"({"a":"unterminated)"), Status::SubdocDocNotJson);
  std::string_view value;
  std::string scratch;
  std::string out;
  std::string result;
  EXPECT_EQ(document.lookup(Lookup::Exists, {}, value, scratch), Status::SubdocDocNotJson);
  EXPECT_EQ(document.mutate(Mutation::DictUpsert, parsed("a"), "1", false, out, result),
            Status::SubdocDocNotJson);
}

TEST(JsonDocumentTest, GrammarErrorsOnTheWayAreDocNotJson) {
  // Loading checks UTF-8 and that strings close; the grammar is checked where a walk goes.
  // (The bytes of the value a walk ends on are answered as they are: stored documents were
  // validated when they were stored.)
  JsonDocument document;
  std::string_view value;
  std::string scratch;
  for (const char* text : {R"({"a" 1})", R"({"x" 1,"a":1})", R"({"x":1,,"a":1})", R"([1,,2])"}) {
    SCOPED_TRACE(text);
    ASSERT_EQ(document.load(text), Status::Success);
    const Path path = parsed(text[0] == '[' ? "[1]" : "a");
    EXPECT_EQ(document.lookup(Lookup::Get, path, value, scratch), Status::SubdocDocNotJson);
  }
}

// subdoc_fuzz's finding: a walk that meets text that is not JSON leaves simdjson's iterator
// unable to walk again, and the next operation on the same load dereferenced null (a
// multi-lookup on a body a client declared JSON crashed ternd). Every later operation now
// answers DocNotJson, even one whose path stops before the bad text.
TEST(JsonDocumentTest, AfterAWalkMetTextThatIsNotJsonEveryOperationIsDocNotJson) {
  JsonDocument document;
  std::string_view value;
  std::string scratch;
  std::string out;
  std::string result;
  ASSERT_EQ(document.load(R"({"a":1,"b":[1,})"), Status::Success);
  EXPECT_EQ(document.lookup(Lookup::Get, parsed("a"), value, scratch), Status::Success);
  EXPECT_EQ(value, "1");
  EXPECT_EQ(document.lookup(Lookup::Get, parsed("c"), value, scratch), Status::SubdocDocNotJson);
  EXPECT_EQ(document.lookup(Lookup::Get, parsed("a"), value, scratch), Status::SubdocDocNotJson);
  EXPECT_EQ(document.lookup(Lookup::Exists, {}, value, scratch), Status::SubdocDocNotJson);
  EXPECT_EQ(document.mutate(Mutation::DictUpsert, parsed("a"), "2", false, out, result),
            Status::SubdocDocNotJson);
  std::vector<JsonDocument::Member> members;
  EXPECT_EQ(document.members(members), Status::SubdocDocNotJson);
  // Loading again gives a document that walks.
  ASSERT_EQ(document.load(R"({"a":1})"), Status::Success);
  EXPECT_EQ(document.lookup(Lookup::Get, parsed("a"), value, scratch), Status::Success);
}

TEST(JsonDocumentTest, MutationsChainThroughLoadingTheirOutput) {
  JsonDocument document;
  std::string out;
  std::string result;
  ASSERT_EQ(document.load("{}"), Status::Success);
  ASSERT_EQ(document.mutate(Mutation::DictUpsert, parsed("user.name"), R"("Ann")", true, out,
                            result),
            Status::Success);
  ASSERT_EQ(document.load(out), Status::Success);
  ASSERT_EQ(document.mutate(Mutation::ArrayPushLast, parsed("user.tags"), R"("x","y")", true,
                            out, result),
            Status::Success);
  ASSERT_EQ(document.load(out), Status::Success);
  ASSERT_EQ(document.mutate(Mutation::Counter, parsed("user.visits"), "2", false, out, result),
            Status::Success);
  ASSERT_EQ(document.load(out), Status::Success);
  ASSERT_EQ(document.mutate(Mutation::Remove, parsed("user.tags[0]"), "", false, out, result),
            Status::Success);
  EXPECT_EQ(out, R"({"user":{"name":"Ann","tags":["y"],"visits":2}})");
  // A longer document into the same object, then a shorter one.
  std::string longer = R"({"list":[)";
  for (int i = 0; i < 10000; ++i) longer += std::to_string(i) + ",";
  longer += "0]}";
  ASSERT_EQ(document.load(longer), Status::Success);
  std::string_view value;
  std::string scratch;
  ASSERT_EQ(document.lookup(Lookup::Count, parsed("list"), value, scratch), Status::Success);
  EXPECT_EQ(value, "10001");
  ASSERT_EQ(document.load(R"({"k":"v"})"), Status::Success);
  ASSERT_EQ(document.lookup(Lookup::Get, parsed("k"), value, scratch), Status::Success);
  EXPECT_EQ(value, R"("v")");
  // Past a megabyte the buffers are let go at the next smaller document.
  std::string huge = R"({"pad":")" + std::string(3 << 20, 'x') + R"(","k":1})";
  ASSERT_EQ(document.load(huge), Status::Success);
  ASSERT_EQ(document.lookup(Lookup::Get, parsed("k"), value, scratch), Status::Success);
  EXPECT_EQ(value, "1");
  ASSERT_EQ(document.load(R"({"k":2})"), Status::Success);
  ASSERT_EQ(document.lookup(Lookup::Get, parsed("k"), value, scratch), Status::Success);
  EXPECT_EQ(value, "2");
}

TEST(JsonDocumentTest, MembersListsTheTopLevelInDocumentOrder) {
  JsonDocument document;
  ASSERT_EQ(document.load(R"( {"a":1, "b\"c" : [1, 2] ,"d":{"e":"f"},"":null} )"),
            Status::Success);
  std::vector<JsonDocument::Member> members;
  ASSERT_EQ(document.members(members), Status::Success);
  ASSERT_EQ(members.size(), 4u);
  EXPECT_EQ(members[0].key, "a");
  EXPECT_EQ(members[0].value, "1");
  EXPECT_EQ(members[1].key, R"(b\"c)");
  EXPECT_EQ(members[1].value, "[1, 2]");
  EXPECT_EQ(members[2].key, "d");
  EXPECT_EQ(members[2].value, R"({"e":"f"})");
  EXPECT_EQ(members[3].key, "");
  EXPECT_EQ(members[3].value, "null");

  ASSERT_EQ(document.load("{}"), Status::Success);
  ASSERT_EQ(document.members(members), Status::Success);
  EXPECT_TRUE(members.empty());
  ASSERT_EQ(document.load("[1]"), Status::Success);
  EXPECT_EQ(document.members(members), Status::SubdocPathMismatch);
  ASSERT_EQ(document.load("1"), Status::Success);
  EXPECT_EQ(document.members(members), Status::SubdocPathMismatch);
}

}  // namespace
}  // namespace tern::subdoc
