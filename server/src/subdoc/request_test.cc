// Table tests of sub-document request decoding: each row is a request as it arrives (opcode,
// extras, value) and the status Couchbase answers it with; the accepted ones are then checked
// field by field.
#include "subdoc/request.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace tern::subdoc {
namespace {

using protocol::Opcode;
using protocol::Status;
using Bytes = std::vector<uint8_t>;

void put16(Bytes& out, size_t v) {
  out.push_back(static_cast<uint8_t>(v >> 8));
  out.push_back(static_cast<uint8_t>(v));
}

void put32(Bytes& out, size_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<uint8_t>(v >> shift));
}

void put(Bytes& out, std::string_view text) { out.insert(out.end(), text.begin(), text.end()); }

// The user flags that extras of 8 or 9 (multi-path) or 11 or 12 (single-path) bytes carry.
constexpr uint32_t kUserFlags = 0x03000000;

// A request of any shape, built up by the helpers below.
struct Wire {
  Opcode opcode = Opcode::SubdocMultiLookup;
  Bytes extras;
  Bytes value;
};

// Single-path extras: path length, path flags, then optionally expiry, user flags and doc
// flags, as the extras length asks (3, 4, 7, 8, 11 or 12, and anything else to test refusals:
// its bytes are zeros after the path length and flags).
Wire single(Opcode opcode, std::string_view path, std::string_view value = {},
            uint8_t path_flags = 0, size_t extras_length = 3, uint8_t doc_flags = 0,
            uint32_t expiry = 0) {
  Wire wire{opcode, {}, {}};
  put16(wire.extras, path.size());
  wire.extras.push_back(path_flags);
  if (extras_length >= 7 && extras_length <= 12) put32(wire.extras, expiry);
  if (extras_length == 11 || extras_length == 12) put32(wire.extras, kUserFlags);
  if (extras_length % 4 == 0) wire.extras.push_back(doc_flags);
  wire.extras.resize(extras_length, 0);
  put(wire.value, path);
  put(wire.value, value);
  return wire;
}

struct SpecText {
  uint8_t opcode;
  uint8_t flags;
  std::string path;
  std::string value;  // mutations only
};

constexpr uint8_t kGet = 0xc5, kExists = 0xc6, kCount = 0xd2, kGetDoc = 0x00;
constexpr uint8_t kDictAdd = 0xc7, kUpsert = 0xc8, kRemove = 0xc9, kReplace = 0xca;
constexpr uint8_t kPushLast = 0xcb, kPushFirst = 0xcc, kInsert = 0xcd, kAddUnique = 0xce;
constexpr uint8_t kCounter = 0xcf, kSetDoc = 0x01, kDeleteDoc = 0x04, kReplaceBody = 0xd3;
constexpr uint8_t X = kPathXattr, P = kPathCreateParents, M = kPathExpandMacros;
constexpr uint8_t B = kPathBinaryValue;

Bytes multi_extras(size_t length, uint8_t doc_flags, uint32_t expiry = 0) {
  Bytes extras;
  if (length >= 4 && length <= 9) put32(extras, expiry);
  if (length == 8 || length == 9) put32(extras, kUserFlags);
  if (length % 4 == 1) extras.push_back(doc_flags);
  extras.resize(length, 0);
  return extras;
}

Wire lookups(std::vector<SpecText> specs, size_t extras_length = 0, uint8_t doc_flags = 0) {
  Wire wire{Opcode::SubdocMultiLookup, multi_extras(extras_length, doc_flags), {}};
  for (const SpecText& spec : specs) {
    wire.value.push_back(spec.opcode);
    wire.value.push_back(spec.flags);
    put16(wire.value, spec.path.size());
    put(wire.value, spec.path);
  }
  return wire;
}

Wire mutations(std::vector<SpecText> specs, size_t extras_length = 0, uint8_t doc_flags = 0,
               uint32_t expiry = 0) {
  Wire wire{Opcode::SubdocMultiMutation, multi_extras(extras_length, doc_flags, expiry), {}};
  for (const SpecText& spec : specs) {
    wire.value.push_back(spec.opcode);
    wire.value.push_back(spec.flags);
    put16(wire.value, spec.path.size());
    put32(wire.value, spec.value.size());
    put(wire.value, spec.path);
    put(wire.value, spec.value);
  }
  return wire;
}

Status decode(const Wire& wire, Request& out) {
  return decode_request(wire.opcode, wire.extras, wire.value, out);
}

struct Row {
  std::string name;
  Wire wire;
  Status expected;
};

void PrintTo(const Row& row, std::ostream* os) { *os << row.name; }

class DecodeTest : public ::testing::TestWithParam<Row> {};

TEST_P(DecodeTest, AnswersCouchbasesStatus) {
  Request request;
  EXPECT_EQ(decode(GetParam().wire, request), GetParam().expected) << GetParam().name;
}

std::string name_of(const ::testing::TestParamInfo<Row>& info) { return info.param.name; }

const Opcode kSingleLookups[] = {Opcode::SubdocGet, Opcode::SubdocExists, Opcode::SubdocGetCount};
const Opcode kSingleMutations[] = {
    Opcode::SubdocDictAdd,       Opcode::SubdocDictUpsert,     Opcode::SubdocDelete,
    Opcode::SubdocReplace,       Opcode::SubdocArrayPushLast,  Opcode::SubdocArrayPushFirst,
    Opcode::SubdocArrayInsert,   Opcode::SubdocArrayAddUnique, Opcode::SubdocCounter};

// A valid argument and path for each single-path mutation.
std::string argument_of(Opcode op) { return op == Opcode::SubdocDelete ? "" : "1"; }
std::string path_of(Opcode op) { return op == Opcode::SubdocArrayInsert ? "a[0]" : "a"; }

// Every single-path opcode with every extras length: lookups take 3 or 4 bytes, mutations
// 3, 4, 7, 8, 11 or 12; nothing takes another length.
std::vector<Row> extras_length_rows() {
  std::vector<Row> rows;
  for (Opcode op : kSingleLookups) {
    for (size_t length : {0, 1, 2, 3, 4, 5, 7, 8, 9, 11, 12}) {
      rows.push_back({std::string(protocol::opcode_name(op)) + "_extras" + std::to_string(length),
                      single(op, "a", "", 0, length),
                      length == 3 || length == 4 ? Status::Success : Status::Einval});
    }
  }
  for (Opcode op : kSingleMutations) {
    for (size_t length : {0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15, 16}) {
      const bool ok =
          length == 3 || length == 4 || length == 7 || length == 8 || length == 11 || length == 12;
      rows.push_back({std::string(protocol::opcode_name(op)) + "_extras" + std::to_string(length),
                      single(op, path_of(op), argument_of(op), 0, length),
                      ok ? Status::Success : Status::Einval});
    }
  }
  for (size_t length : {0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 12, 13}) {
    rows.push_back({"MultiLookup_extras" + std::to_string(length),
                    lookups({{kGet, 0, "a", ""}}, length),
                    length <= 1 ? Status::Success : Status::Einval});
    const bool ok =
        length == 0 || length == 1 || length == 4 || length == 5 || length == 8 || length == 9;
    rows.push_back({"MultiMutation_extras" + std::to_string(length),
                    mutations({{kUpsert, 0, "a", "1"}}, length),
                    ok ? Status::Success : Status::Einval});
  }
  return rows;
}

INSTANTIATE_TEST_SUITE_P(ExtrasLengths, DecodeTest, ::testing::ValuesIn(extras_length_rows()),
                         name_of);

std::vector<SpecText> gets(size_t count) {
  return std::vector<SpecText>(count, SpecText{kGet, 0, "a", ""});
}

INSTANTIATE_TEST_SUITE_P(
    Lengths, DecodeTest,
    ::testing::Values(
        // The single-path path length comes from the extras and must fit in the value.
        Row{"PathLongerThanValue",
            Wire{Opcode::SubdocGet, {0, 5, 0}, {'a', 'b'}}, Status::Einval},
        Row{"PathOf1024BytesIsDecoded", single(Opcode::SubdocGet, std::string(1024, 'a')),
            Status::Success},
        // A longer path is decoded too: it fails only its own spec, PathE2big, when it runs.
        Row{"PathOf1025BytesIsDecoded", single(Opcode::SubdocGet, std::string(1025, 'a')),
            Status::Success},
        Row{"MultiPathOf1025BytesIsDecoded", lookups({{kGet, 0, std::string(1025, 'a'), ""}}),
            Status::Success},
        Row{"LookupWithValueAfterPath", single(Opcode::SubdocGet, "a", "1"), Status::Einval},
        Row{"MutationWithoutValue", single(Opcode::SubdocDictUpsert, "a", ""), Status::Einval},
        Row{"RemoveWithValue", single(Opcode::SubdocDelete, "a", "1"), Status::Einval},
        // Multi-path specs: a header cut short, a path or value running past the end.
        Row{"LookupSpecHeaderCut", Wire{Opcode::SubdocMultiLookup, {}, {kGet, 0, 0}},
            Status::Einval},
        Row{"LookupPathCut", Wire{Opcode::SubdocMultiLookup, {}, {kGet, 0, 0, 3, 'a', 'b'}},
            Status::Einval},
        Row{"MutationSpecHeaderCut",
            Wire{Opcode::SubdocMultiMutation, {}, {kUpsert, 0, 0, 1, 0, 0, 0}}, Status::Einval},
        Row{"MutationValueCut",
            Wire{Opcode::SubdocMultiMutation, {}, {kUpsert, 0, 0, 1, 0, 0, 0, 2, 'a', '1'}},
            Status::Einval},
        Row{"TrailingByteAfterLastSpec",
            Wire{Opcode::SubdocMultiLookup, {}, {kGet, 0, 0, 1, 'a', 0}}, Status::Einval},
        // How many specs.
        Row{"NoSpec", lookups({}), Status::SubdocInvalidCombo},
        Row{"NoMutationSpec", mutations({}), Status::SubdocInvalidCombo},
        Row{"SixteenSpecs", lookups(gets(16)), Status::Success},
        Row{"SeventeenSpecs", lookups(gets(17)), Status::SubdocInvalidCombo},
        Row{"SeventeenMutationSpecs",
            mutations(std::vector<SpecText>(17, SpecText{kUpsert, 0, "a", "1"})),
            Status::SubdocInvalidCombo}),
    name_of);

INSTANTIATE_TEST_SUITE_P(
    Opcodes, DecodeTest,
    ::testing::Values(
        Row{"MutationOpcodeInLookup", lookups({{kGet, 0, "a", ""}, {kUpsert, 0, "b", ""}}),
            Status::SubdocInvalidCombo},
        Row{"LookupOpcodeInMutation", mutations({{kGet, 0, "a", ""}}),
            Status::SubdocInvalidCombo},
        Row{"SetDocInLookup", lookups({{kSetDoc, 0, "", ""}}), Status::SubdocInvalidCombo},
        Row{"GetDocInMutation", mutations({{kGetDoc, 0, "", ""}}), Status::SubdocInvalidCombo},
        Row{"MultiLookupOpcodeAsSpec", lookups({{0xd0, 0, "a", ""}}),
            Status::SubdocInvalidCombo},
        Row{"UnknownOpcodeAsSpec", lookups({{0x99, 0, "a", ""}}), Status::SubdocInvalidCombo},
        Row{"ReplaceBodyWithXattrInALookup", lookups({{kReplaceBody, X, "a", ""}}),
            Status::SubdocInvalidCombo},
        Row{"EveryLookup",
            lookups({{kGet, X, "x", ""}, {kGet, 0, "a", ""}, {kExists, 0, "b", ""},
                     {kCount, 0, "c", ""}, {kGetDoc, 0, "", ""}}),
            Status::Success},
        Row{"EveryMutation",
            mutations({{kDictAdd, 0, "a", "1"}, {kUpsert, 0, "b", "1"}, {kRemove, 0, "c", ""},
                       {kReplace, 0, "d", "1"}, {kPushLast, 0, "e", "1"},
                       {kPushFirst, 0, "f", "1"}, {kInsert, 0, "g[0]", "1"},
                       {kAddUnique, 0, "h", "1"}, {kCounter, 0, "i", "1"},
                       {kSetDoc, 0, "", "{}"}}),
            Status::Success},
        // Whole-document operations take no path and no path flag.
        Row{"GetDocWithPath", lookups({{kGetDoc, 0, "a", ""}}), Status::Einval},
        Row{"GetDocWithXattr", lookups({{kGetDoc, X, "", ""}}), Status::Einval},
        Row{"SetDocWithPath", mutations({{kSetDoc, 0, "a", "{}"}}), Status::Einval},
        Row{"SetDocWithoutValue", mutations({{kSetDoc, 0, "", ""}}), Status::Einval},
        Row{"DeleteDocWithValue", mutations({{kDeleteDoc, 0, "", "1"}}), Status::Einval},
        // DeleteDoc is the only body spec, and the last.
        Row{"DeleteDocAlone", mutations({{kDeleteDoc, 0, "", ""}}), Status::Success},
        Row{"DeleteDocAfterXattrs", mutations({{kUpsert, X, "_t", "1"}, {kDeleteDoc, 0, "", ""}}),
            Status::Success},
        Row{"DeleteDocAfterBodySpec", mutations({{kUpsert, 0, "a", "1"}, {kDeleteDoc, 0, "", ""}}),
            Status::SubdocInvalidCombo},
        Row{"SpecAfterDeleteDoc", mutations({{kDeleteDoc, 0, "", ""}, {kUpsert, 0, "a", "1"}}),
            Status::SubdocInvalidCombo},
        Row{"SetDocThenDeleteDoc", mutations({{kSetDoc, 0, "", "{}"}, {kDeleteDoc, 0, "", ""}}),
            Status::SubdocInvalidCombo},
        Row{"SetDocAfterDeleteDoc", mutations({{kDeleteDoc, 0, "", ""}, {kSetDoc, 0, "", "{}"}}),
            Status::SubdocInvalidCombo},
        // Empty paths: the root is addressable by Count and the array operations only.
        Row{"GetEmptyPath", single(Opcode::SubdocGet, ""), Status::Einval},
        Row{"ExistsEmptyPath", single(Opcode::SubdocExists, ""), Status::Einval},
        Row{"CountEmptyPath", single(Opcode::SubdocGetCount, ""), Status::Success},
        Row{"PushLastEmptyPath", single(Opcode::SubdocArrayPushLast, "", "1"), Status::Success},
        Row{"PushFirstEmptyPath", single(Opcode::SubdocArrayPushFirst, "", "1"),
            Status::Success},
        Row{"AddUniqueEmptyPath", single(Opcode::SubdocArrayAddUnique, "", "1"),
            Status::Success},
        Row{"UpsertEmptyPath", single(Opcode::SubdocDictUpsert, "", "1"), Status::Einval},
        Row{"InsertEmptyPath", single(Opcode::SubdocArrayInsert, "", "1"), Status::Einval},
        Row{"CounterEmptyPath", single(Opcode::SubdocCounter, "", "1"), Status::Einval},
        Row{"MultiGetEmptyPath", lookups({{kGet, 0, "", ""}}), Status::Einval},
        Row{"MultiCountEmptyPath", lookups({{kCount, 0, "", ""}}), Status::Success},
        Row{"MultiXattrEmptyPath", lookups({{kGet, X, "", ""}}), Status::XattrEinval}),
    name_of);

INSTANTIATE_TEST_SUITE_P(
    XattrOrder, DecodeTest,
    ::testing::Values(
        Row{"XattrsFirst",
            lookups({{kGet, X, "a", ""}, {kGet, X, "b", ""}, {kGet, 0, "c", ""}}),
            Status::Success},
        Row{"XattrAfterBody", lookups({{kGet, 0, "c", ""}, {kGet, X, "a", ""}}),
            Status::SubdocInvalidXattrOrder},
        Row{"XattrBetweenBodies",
            lookups({{kGet, X, "a", ""}, {kGet, 0, "c", ""}, {kGet, X, "b", ""}}),
            Status::SubdocInvalidXattrOrder},
        Row{"MutationXattrAfterBody",
            mutations({{kUpsert, 0, "c", "1"}, {kUpsert, X, "a", "1"}}),
            Status::SubdocInvalidXattrOrder},
        Row{"OnlyXattrs", mutations({{kUpsert, X, "a", "1"}, {kUpsert, X, "b.c", "1"}}),
            Status::Success}),
    name_of);

INSTANTIATE_TEST_SUITE_P(
    PathFlags, DecodeTest,
    ::testing::Values(
        Row{"UnknownPathFlag02", single(Opcode::SubdocDictUpsert, "a", "1", 0x02), Status::Einval},
        Row{"UnknownPathFlag08", single(Opcode::SubdocDictUpsert, "a", "1", 0x08), Status::Einval},
        Row{"UnknownPathFlag40", single(Opcode::SubdocGet, "a", "", X | 0x40), Status::Einval},
        Row{"CreateParentsOnGet", single(Opcode::SubdocGet, "a", "", P), Status::Einval},
        Row{"CreateParentsOnMultiGet", lookups({{kGet, P, "a", ""}}), Status::Einval},
        Row{"CreateParentsOnReplace", single(Opcode::SubdocReplace, "a", "1", P), Status::Einval},
        Row{"CreateParentsOnInsert", single(Opcode::SubdocArrayInsert, "a[0]", "1", P),
            Status::Einval},
        Row{"CreateParentsOnUpsert", single(Opcode::SubdocDictUpsert, "a.b", "1", P),
            Status::Success},
        Row{"CreateParentsOnCounter", single(Opcode::SubdocCounter, "a.b", "1", P),
            Status::Success},
        // BinaryValue needs Xattr and no ExpandMacros, and only Get, DictAdd, DictUpsert,
        // Replace and ReplaceBodyWithXattr take it.
        Row{"BinaryWithoutXattr", mutations({{kUpsert, B, "a", "\x01"}}),
            Status::SubdocXattrInvalidFlagCombo},
        Row{"BinaryWithMacros", mutations({{kUpsert, X | M | B, "t.c", R"("${Mutation.CAS}")"}}),
            Status::SubdocXattrInvalidFlagCombo},
        Row{"BinaryUpsert", mutations({{kUpsert, X | B, "t.bin", "\x01\xff"}}), Status::Success},
        Row{"BinaryDictAdd", mutations({{kDictAdd, X | B, "t.bin", "x"}}), Status::Success},
        Row{"BinaryReplace", single(Opcode::SubdocReplace, "t.bin", "x", X | B), Status::Success},
        Row{"BinaryReplaceBody", mutations({{kReplaceBody, X | B, "t.bin", ""}}), Status::Success},
        Row{"BinaryGet", lookups({{kGet, X | B, "t.bin", ""}}), Status::Success},
        Row{"BinaryExists", lookups({{kExists, X | B, "t.bin", ""}}), Status::Einval},
        Row{"BinaryPushLast", mutations({{kPushLast, X | B, "t.l", "1"}}), Status::Einval},
        Row{"BinaryRemove", mutations({{kRemove, X | B, "t.bin", ""}}), Status::Einval},
        Row{"BinaryCounter", mutations({{kCounter, X | B, "t.n", "1"}}), Status::Einval},
        // An XATTR value that pretends to hold an encoded binary value must hold one.
        Row{"EncodedValueThatDecodes",
            mutations({{kUpsert, X, "t.v", R"("cb-content-base64-encoded:AAE=")"}}),
            Status::Success},
        Row{"EncodedValueThatDoesNotDecode",
            mutations({{kUpsert, X, "t.v", R"({"b":"cb-content-base64-encoded:AAE"})"}}),
            Status::XattrEinval},
        // ExpandMacros needs Xattr, and a value that is a macro.
        Row{"MacroWithoutXattr", single(Opcode::SubdocDictUpsert, "a", R"("${Mutation.CAS}")", M),
            Status::SubdocXattrInvalidFlagCombo},
        Row{"MultiMacroWithoutXattr", mutations({{kUpsert, M, "a", R"("${Mutation.CAS}")"}}),
            Status::SubdocXattrInvalidFlagCombo},
        Row{"MacroCas", mutations({{kUpsert, X | M, "t.cas", R"("${Mutation.CAS}")"}}),
            Status::Success},
        Row{"MacroSeqno", mutations({{kUpsert, X | M, "t.s", R"("${Mutation.seqno}")"}}),
            Status::Success},
        Row{"MacroCrc", mutations({{kUpsert, X | M, "t.c", R"("${Mutation.value_crc32c}")"}}),
            Status::Success},
        Row{"MacroDocument", mutations({{kUpsert, X | M, "t.e", R"("${$document.exptime}")"}}),
            Status::Success},
        Row{"MacroUnknown", mutations({{kUpsert, X | M, "t.e", R"("${Mutation.cas}")"}}),
            Status::SubdocXattrUnknownMacro},
        Row{"MacroUnquoted", mutations({{kUpsert, X | M, "t.e", "${Mutation.CAS}"}}),
            Status::SubdocXattrUnknownMacro},
        Row{"MacroOnAddUnique", mutations({{kAddUnique, X | M, "t", R"("${Mutation.CAS}")"}}),
            Status::Einval},
        Row{"MacroOnCounter", mutations({{kCounter, X | M, "t", R"("${Mutation.CAS}")"}}),
            Status::Einval}),
    name_of);

INSTANTIATE_TEST_SUITE_P(
    XattrKeys, DecodeTest,
    ::testing::Values(
        Row{"UserKey", lookups({{kGet, X, "meta.rev[0]", ""}}), Status::Success},
        Row{"SystemKey", lookups({{kGet, X, "_sync", ""}}), Status::Success},
        Row{"VirtualKey", lookups({{kGet, X, "$document.exptime", ""}}), Status::Success},
        Row{"UnknownVirtualKeyDecodes", lookups({{kGet, X, "$nothing", ""}}), Status::Success},
        Row{"FifteenBytes", lookups({{kGet, X, std::string(15, 'k'), ""}}), Status::Success},
        Row{"SixteenBytes", lookups({{kGet, X, std::string(16, 'k'), ""}}), Status::XattrEinval},
        Row{"SixteenBytesBeforeDot", lookups({{kGet, X, std::string(16, 'k') + ".a", ""}}),
            Status::XattrEinval},
        Row{"OnlyUnderscore", lookups({{kGet, X, "_", ""}}), Status::XattrEinval},
        Row{"OnlyDollar", lookups({{kGet, X, "$.a", ""}}), Status::XattrEinval},
        Row{"PunctuationFirst", lookups({{kGet, X, "-a", ""}}), Status::XattrEinval},
        Row{"DotFirst", lookups({{kGet, X, ".a", ""}}), Status::XattrEinval},
        Row{"BracketFirst", lookups({{kGet, X, "[0]", ""}}), Status::XattrEinval},
        Row{"BacktickQuoted", lookups({{kGet, X, "`a`", ""}}), Status::XattrEinval},
        Row{"QuoteInKey", lookups({{kGet, X, "a\"b", ""}}), Status::XattrEinval},
        Row{"NulInPath", lookups({{kGet, X, std::string("a.b\0c", 5), ""}}),
            Status::XattrEinval},
        Row{"BrokenUtf8", lookups({{kGet, X, "a\xc3", ""}}), Status::XattrEinval},
        Row{"Utf8Key", lookups({{kGet, X, "caf\xc3\xa9", ""}}), Status::Success},
        Row{"UpsertVirtual", mutations({{kUpsert, X, "$document.x", "1"}}),
            Status::SubdocXattrCantModifyVattr},
        Row{"RemoveVirtual", single(Opcode::SubdocDelete, "$XTOC", "", X),
            Status::SubdocXattrCantModifyVattr}),
    name_of);

INSTANTIATE_TEST_SUITE_P(
    DocFlags, DecodeTest,
    ::testing::Values(
        Row{"LookupAccessDeleted", lookups({{kGet, X, "_t", ""}}, 1, kDocAccessDeleted),
            Status::Success},
        Row{"LookupMkdoc", lookups({{kGet, 0, "a", ""}}, 1, kDocMkdoc), Status::Einval},
        Row{"LookupAdd", lookups({{kGet, 0, "a", ""}}, 1, kDocAdd), Status::Einval},
        Row{"LookupReplicaRead", lookups({{kGet, 0, "a", ""}}, 1, kDocReplicaRead),
            Status::Success},
        Row{"SingleLookupReplicaRead", single(Opcode::SubdocExists, "a", "", 0, 4, kDocReplicaRead),
            Status::Success},
        Row{"MutationReplicaRead", mutations({{kUpsert, 0, "a", "1"}}, 1, kDocReplicaRead),
            Status::Einval},
        Row{"SingleMutationReplicaRead",
            single(Opcode::SubdocDictUpsert, "a", "1", 0, 4, kDocReplicaRead), Status::Einval},
        Row{"UnknownDocFlag", mutations({{kUpsert, 0, "a", "1"}}, 1, 0x40), Status::Einval},
        // ReplaceBodyWithXattr: an XATTR path, no value, on a live document or reviving one.
        Row{"ReplaceBodyWithXattr", mutations({{kReplaceBody, X, "txn.stgd", ""}}),
            Status::Success},
        Row{"ReplaceBodyWithXattrReviving",
            mutations({{kReplaceBody, X, "txn.stgd", ""}, {kRemove, X, "txn", ""}}, 1,
                      kDocAccessDeleted | kDocReviveDocument),
            Status::Success},
        Row{"ReplaceBodyWithABodyPath", mutations({{kReplaceBody, 0, "a", ""}}), Status::Einval},
        Row{"ReplaceBodyWithXattrAndAValue", mutations({{kReplaceBody, X, "txn", "1"}}),
            Status::Einval},
        Row{"ReplaceBodyWithXattrCreating", mutations({{kReplaceBody, X, "txn", ""}}, 1, kDocMkdoc),
            Status::Einval},
        Row{"MkdocAndAdd", mutations({{kUpsert, 0, "a", "1"}}, 1, kDocMkdoc | kDocAdd),
            Status::Einval},
        Row{"Mkdoc", mutations({{kUpsert, 0, "a", "1"}}, 1, kDocMkdoc), Status::Success},
        Row{"AddWithExpiry", mutations({{kUpsert, 0, "a", "1"}}, 5, kDocAdd), Status::Success},
        // Each spec's operation must take the request's doc flags (Couchbase's per-command
        // rules: Remove and DeleteDoc do not create, SetDoc does not read tombstones).
        Row{"MkdocWithRemove", mutations({{kRemove, 0, "a", ""}}, 1, kDocMkdoc), Status::Einval},
        Row{"MkdocWithReplace", mutations({{kReplace, 0, "a", "1"}}, 1, kDocMkdoc),
            Status::Einval},
        Row{"AddWithReplace", mutations({{kReplace, 0, "a", "1"}}, 1, kDocAdd), Status::Success},
        Row{"MkdocWithInsert", mutations({{kInsert, 0, "a[0]", "1"}}, 1, kDocMkdoc),
            Status::Einval},
        Row{"AccessDeletedWithSetDoc", mutations({{kSetDoc, 0, "", "{}"}}, 1, kDocAccessDeleted),
            Status::Einval},
        Row{"MkdocWithDeleteDoc", mutations({{kDeleteDoc, 0, "", ""}}, 1, kDocMkdoc),
            Status::Einval},
        Row{"AccessDeletedWithDeleteDoc",
            mutations({{kDeleteDoc, 0, "", ""}}, 1, kDocAccessDeleted), Status::Success},
        // ReviveDocument needs AccessDeleted and excludes CreateAsDeleted.
        Row{"Revive",
            mutations({{kUpsert, X, "_t", "1"}}, 1, kDocReviveDocument | kDocAccessDeleted),
            Status::Success},
        Row{"ReviveWithoutAccessDeleted",
            mutations({{kUpsert, X, "_t", "1"}}, 1, kDocReviveDocument), Status::Einval},
        Row{"ReviveAndCreateAsDeleted",
            mutations({{kUpsert, X, "_t", "1"}}, 1,
                      kDocReviveDocument | kDocAccessDeleted | kDocCreateAsDeleted | kDocMkdoc),
            Status::Einval},
        // CreateAsDeleted (single-path): with Mkdoc or Add, on an XATTR path.
        Row{"CreateAsDeleted",
            single(Opcode::SubdocDictUpsert, "_t", "1", X, 4,
                   kDocCreateAsDeleted | kDocMkdoc | kDocAccessDeleted),
            Status::Success},
        Row{"CreateAsDeletedWithoutCreating",
            single(Opcode::SubdocDictUpsert, "_t", "1", X, 4,
                   kDocCreateAsDeleted | kDocAccessDeleted),
            Status::Einval},
        Row{"CreateAsDeletedOnBody",
            single(Opcode::SubdocDictUpsert, "a", "1", 0, 4,
                   kDocCreateAsDeleted | kDocAdd | kDocAccessDeleted),
            Status::Einval},
        Row{"MultiCreateAsDeleted",
            mutations({{kUpsert, X, "_t", "1"}}, 1,
                      kDocCreateAsDeleted | kDocAdd | kDocAccessDeleted),
            Status::Success},
        Row{"SingleLookupAccessDeleted",
            single(Opcode::SubdocGet, "_t", "", X, 4, kDocAccessDeleted), Status::Success},
        Row{"SingleLookupMkdoc", single(Opcode::SubdocGet, "a", "", 0, 4, kDocMkdoc),
            Status::Einval}),
    name_of);

TEST(DecodeRequestTest, SinglePathLookupCarriesItsSpec) {
  Request request;
  const Wire wire = single(Opcode::SubdocGetCount, "_sync.revs", "", X, 4, kDocAccessDeleted);
  ASSERT_EQ(decode(wire, request), Status::Success);
  EXPECT_FALSE(request.mutation);
  EXPECT_FALSE(request.multi);
  EXPECT_EQ(request.doc_flags, kDocAccessDeleted);
  EXPECT_EQ(request.expiry, 0u);
  ASSERT_EQ(request.spec_count, 1u);
  const Spec& spec = request.specs[0];
  EXPECT_EQ(spec.op, SpecOp::Count);
  EXPECT_TRUE(spec.xattr());
  EXPECT_EQ(spec.path, "_sync.revs");
  EXPECT_EQ(spec.value, "");
  EXPECT_TRUE(request.addresses_xattrs());
}

TEST(DecodeRequestTest, SinglePathMutationCarriesExpiryDocFlagsAndValue) {
  Request request;
  const Wire wire = single(Opcode::SubdocCounter, "n", "-5", P, 8, kDocMkdoc, 3600);
  ASSERT_EQ(decode(wire, request), Status::Success);
  EXPECT_TRUE(request.mutation);
  EXPECT_FALSE(request.multi);
  EXPECT_EQ(request.expiry, 3600u);
  EXPECT_EQ(request.doc_flags, kDocMkdoc);
  ASSERT_EQ(request.spec_count, 1u);
  EXPECT_EQ(request.specs[0].op, SpecOp::Counter);
  EXPECT_TRUE(request.specs[0].create_parents());
  EXPECT_EQ(request.specs[0].path, "n");
  EXPECT_EQ(request.specs[0].value, "-5");
}

TEST(DecodeRequestTest, UserFlagsFollowTheExpiry) {
  Request request;
  ASSERT_EQ(decode(mutations({{kUpsert, 0, "a", "1"}}, 9, kDocMkdoc, 60), request),
            Status::Success);
  EXPECT_EQ(request.expiry, 60u);
  EXPECT_TRUE(request.has_user_flags);
  EXPECT_EQ(request.user_flags, kUserFlags);
  EXPECT_EQ(request.doc_flags, kDocMkdoc);
  ASSERT_EQ(decode(single(Opcode::SubdocDictUpsert, "a", "1", 0, 11, 0, 30), request),
            Status::Success);
  EXPECT_EQ(request.expiry, 30u);
  EXPECT_TRUE(request.has_user_flags);
  EXPECT_EQ(request.user_flags, kUserFlags);
  EXPECT_EQ(request.doc_flags, 0u);
  ASSERT_EQ(decode(mutations({{kUpsert, 0, "a", "1"}}, 5, kDocMkdoc, 60), request),
            Status::Success);
  EXPECT_FALSE(request.has_user_flags);
}

TEST(DecodeRequestTest, SinglePathExpiryWithoutDocFlags) {
  Request request;
  ASSERT_EQ(decode(single(Opcode::SubdocDictUpsert, "a", "1", 0, 7, 0, 30), request),
            Status::Success);
  EXPECT_EQ(request.expiry, 30u);
  EXPECT_EQ(request.doc_flags, 0u);
}

TEST(DecodeRequestTest, MultiMutationCarriesEverySpecInOrder) {
  Request request;
  const Wire wire = mutations({{kUpsert, X | P | M, "tx.cas", R"("${Mutation.CAS}")"},
                               {kPushLast, P, "list", "1,2"},
                               {kRemove, 0, "old", ""},
                               {kSetDoc, 0, "", R"({"a":1})"}},
                              4, 0, 2592000);
  ASSERT_EQ(decode(wire, request), Status::Success);
  EXPECT_TRUE(request.mutation);
  EXPECT_TRUE(request.multi);
  EXPECT_EQ(request.expiry, 2592000u);
  EXPECT_EQ(request.doc_flags, 0u);
  ASSERT_EQ(request.spec_list().size(), 4u);
  EXPECT_EQ(request.specs[0].op, SpecOp::DictUpsert);
  EXPECT_TRUE(request.specs[0].xattr() && request.specs[0].expand_macros() &&
              request.specs[0].create_parents());
  EXPECT_EQ(request.specs[0].path, "tx.cas");
  EXPECT_EQ(request.specs[0].value, R"("${Mutation.CAS}")");
  EXPECT_EQ(request.specs[1].op, SpecOp::ArrayPushLast);
  EXPECT_EQ(request.specs[1].value, "1,2");
  EXPECT_EQ(request.specs[2].op, SpecOp::Remove);
  EXPECT_EQ(request.specs[2].value, "");
  EXPECT_EQ(request.specs[3].op, SpecOp::SetDoc);
  EXPECT_EQ(request.specs[3].path, "");
  EXPECT_EQ(request.specs[3].value, R"({"a":1})");
}

TEST(DecodeRequestTest, MultiLookupCarriesGetDocAndPaths) {
  Request request;
  const Wire wire = lookups(
      {{kGet, X, "$document.exptime", ""}, {kExists, 0, "a.b", ""}, {kGetDoc, 0, "", ""}});
  ASSERT_EQ(decode(wire, request), Status::Success);
  EXPECT_FALSE(request.mutation);
  EXPECT_TRUE(request.multi);
  ASSERT_EQ(request.spec_count, 3u);
  EXPECT_EQ(request.specs[0].path, "$document.exptime");
  EXPECT_EQ(request.specs[1].op, SpecOp::Exists);
  EXPECT_EQ(request.specs[1].path, "a.b");
  EXPECT_EQ(request.specs[2].op, SpecOp::GetDoc);
  EXPECT_TRUE(request.addresses_xattrs());
}

TEST(DecodeRequestTest, DecodingResetsWhatAnEarlierRequestLeft) {
  Request request;
  ASSERT_EQ(decode(mutations({{kUpsert, 0, "a", "1"}, {kUpsert, 0, "b", "1"}}, 5, kDocMkdoc, 9),
                   request),
            Status::Success);
  ASSERT_EQ(decode(lookups({{kGet, 0, "c", ""}}), request), Status::Success);
  EXPECT_EQ(request.spec_count, 1u);
  EXPECT_EQ(request.doc_flags, 0u);
  EXPECT_EQ(request.expiry, 0u);
  EXPECT_FALSE(request.mutation);
}

// The dispatcher's peek agrees with decoding: ReplicaRead where a lookup keeps its doc flags.
TEST(DecodeRequestTest, ReadsReplicaFindsTheFlagWhereDecodingDoes) {
  const auto reads = [](const Wire& wire) { return reads_replica(wire.opcode, wire.extras); };
  EXPECT_TRUE(reads(lookups({{kGet, 0, "a", ""}}, 1, kDocReplicaRead)));
  EXPECT_TRUE(reads(single(Opcode::SubdocGet, "a", "", 0, 4, kDocReplicaRead)));
  EXPECT_TRUE(reads(single(Opcode::SubdocGetCount, "a", "", 0, 4, kDocReplicaRead)));
  EXPECT_FALSE(reads(lookups({{kGet, 0, "a", ""}}, 1, kDocAccessDeleted)));
  EXPECT_FALSE(reads(lookups({{kGet, 0, "a", ""}})));
  EXPECT_FALSE(reads(single(Opcode::SubdocGet, "a")));
  // Not where a refused length would put it, and never for a mutation.
  EXPECT_FALSE(reads(lookups({{kGet, 0, "a", ""}}, 5, kDocReplicaRead)));
  EXPECT_FALSE(reads(mutations({{kUpsert, 0, "a", "1"}}, 1, kDocReplicaRead)));
  EXPECT_FALSE(reads(single(Opcode::SubdocDictUpsert, "a", "1", 0, 4, kDocReplicaRead)));
}

TEST(DecodeRequestTest, IsLookupTellsLookupsFromMutations) {
  for (SpecOp op : {SpecOp::Get, SpecOp::Exists, SpecOp::Count, SpecOp::GetDoc}) {
    EXPECT_TRUE(is_lookup(op));
  }
  for (SpecOp op : {SpecOp::DictAdd, SpecOp::DictUpsert, SpecOp::Remove, SpecOp::Replace,
                    SpecOp::ArrayPushLast, SpecOp::ArrayPushFirst, SpecOp::ArrayInsert,
                    SpecOp::ArrayAddUnique, SpecOp::Counter, SpecOp::SetDoc,
                    SpecOp::DeleteDoc}) {
    EXPECT_FALSE(is_lookup(op));
  }
}

}  // namespace
}  // namespace tern::subdoc
