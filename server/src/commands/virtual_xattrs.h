#pragma once
// The virtual extended attributes: attributes no one stores, which the server computes from
// a document when a sub-document XATTR path names them (Couchbase's vattrs, kv_engine
// daemon/subdocument_context.cc):
//
//   $document  the document's metadata, an object:
//              {"CAS":"0x<16 hex>","datatype":["json","xattr"],"deleted":false,
//               "exptime":<Unix seconds, 0: never>,"flags":<number>,"revid":"<decimal>",
//               "seqno":"0x<16 hex>","value_bytes":<body bytes>,
//               "value_crc32c":"0x<8 hex>","vbucket_uuid":"0x<16 hex>"}
//              (members in Couchbase's order, which is alphabetical; "datatype" lists
//              "json" and "xattr" as the stored datatype has them, or is ["raw"]; no
//              "last_modified": our CAS is not a hybrid logical clock);
//   $XTOC      the keys of the document's attributes, an array of strings, in stored order;
//   $vbucket   the vbucket's clock: {"HLC":{"now":"<Unix seconds>","mode":"real"}}.
//
// The SDKs read $document.exptime (get with expiry; a JSON number) and $document.flags (the
// C++ core's get with expiry and projections), transactions $document.CAS and more.
// All three are written as one JSON object, {"$document":...,"$XTOC":...,"$vbucket":...}, so
// that a spec's whole path ("$document.exptime") runs on it like any XATTR path on the
// stored attributes' object.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "subdoc/path.h"
#include "xattr/blob.h"

namespace tern::commands {

struct VirtualDocumentMeta;

// The names of the virtual attributes; any other key starting with '$' is unknown
// (SubdocXattrUnknownVattr).
bool is_known_virtual_xattr(std::string_view key);

// Writes the object of all virtual attributes of a document into `out` (replacing what it
// held): `meta` its metadata, `body` its body (for value_bytes and value_crc32c),
// `attributes` its stored attributes (for $XTOC), `now_unix_seconds` the clock $vbucket
// reports. Without `with_crc32c`, $document has no "value_crc32c": reading the whole body
// for it is the one cost that grows with the document, and most lookups (get with expiry)
// never look at it.
void write_virtual_xattrs(const VirtualDocumentMeta& meta, std::string_view body,
                          std::span<const xattr::Attribute> attributes,
                          uint64_t now_unix_seconds, bool with_crc32c, std::string& out);

// Whether a lookup of `path` (parsed, on the virtual attributes' object) may see
// $document's value_crc32c: it names it, or $document whole.
bool needs_value_crc32c(const subdoc::Path& path);

}  // namespace tern::commands
