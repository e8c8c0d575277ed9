#pragma once
// Binary values in XATTRs, as Couchbase stores them (kv_engine docs/ExtendedAttributes.md,
// "Binary values"). The XATTR section is JSON, so a spec flagged BinaryValue (path flag 0x20,
// with Xattr) has its raw bytes stored as one JSON string:
//
//   "cb-content-base64-encoded:<the bytes in standard base64, padded, on one line>"
//
// and a lookup flagged BinaryValue answers the bytes again. The SDKs' transactions stage a
// binary document's content so (`txn.op.bin`) and commit it with ReplaceBodyWithXattr.
// The base64 is common/base64.h's.

#include <string>
#include <string_view>

namespace tern::subdoc {

inline constexpr std::string_view kBinaryValuePrefix = "cb-content-base64-encoded:";

// Sets `out` to the JSON string (quotes included) that stores `raw`.
void encode_binary_value(std::string_view raw, std::string& out);

// Sets `out` to the bytes that `json`, the JSON text of a stored value, encodes. False (and
// `out` unspecified) when `json` is no such string: not a string, without the prefix, or
// with base64 that is not well formed (a length that is no multiple of 4, a byte outside
// the alphabet, padding anywhere but the last two places). Couchbase answers
// SubdocFieldNotBinaryValue then.
bool decode_binary_value(std::string_view json, std::string& out);

// Whether every encoded value in `json` (the text of an XATTR mutation's value) decodes:
// each occurrence of the prefix must start well-formed base64 that runs to the next '"'.
// Couchbase refuses an XATTR mutation that breaks this with XattrEinval, so that nothing
// stored pretends to be a binary value it cannot give back.
bool binary_values_well_formed(std::string_view json);

}  // namespace tern::subdoc
