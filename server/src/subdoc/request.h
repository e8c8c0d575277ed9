#pragma once
// A sub-document request as it arrives, decoded into one shape whatever its command: the
// single-path commands (SUBDOC_GET ... SUBDOC_COUNTER, SUBDOC_GET_COUNT) carry one spec in
// their extras, key and value; SUBDOC_MULTI_LOOKUP and SUBDOC_MULTI_MUTATION carry up to
// kMaxSpecs in their value:
//
//   lookup spec:   op u8, path flags u8, path length u16, path
//   mutation spec: op u8, path flags u8, path length u16, value length u32, path, value
//
// Single-path extras: path length u16, path flags u8, then optionally expiry u32, the
// document's user flags u32 after it (both mutations only) and doc flags u8 (3, 4, 7, 8, 11 or
// 12 bytes); the value is the path, then the operation's argument. Multi-path extras:
// optionally expiry u32, then optionally user flags u32 (both mutations only) and doc flags
// u8 (0, 1, 4, 5, 8 or 9 bytes). The user flags are big-endian, as SET's; clients send them
// once HELLO acknowledged SubdocBinaryXattr (the SDKs' transactions commit a document's staged
// flags so), and without them a mutation keeps the document's flags.
//
// Decoding checks everything that does not need the document: lengths, opcodes, flags and
// how they combine, the order of XATTR specs. Paths are parsed when the specs run, because
// a bad path fails only its own spec in a lookup.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "protocol/opcode.h"
#include "protocol/status.h"

namespace tern::subdoc {

// Path flags, per spec.
inline constexpr uint8_t kPathCreateParents = 0x01;
inline constexpr uint8_t kPathXattr = 0x04;
inline constexpr uint8_t kPathExpandMacros = 0x10;  // only with kPathXattr
inline constexpr uint8_t kPathBinaryValue = 0x20;   // only with kPathXattr: raw bytes, stored
                                                    // as subdoc/binary_value.h says

// Doc flags, per request.
inline constexpr uint8_t kDocMkdoc = 0x01;          // create the document if missing (upsert)
inline constexpr uint8_t kDocAdd = 0x02;            // create it; Exists if it is there (insert)
inline constexpr uint8_t kDocAccessDeleted = 0x04;  // a tombstone is a document to read and change
inline constexpr uint8_t kDocCreateAsDeleted = 0x08;  // create it as a tombstone (with kDocMkdoc
                                                      // or kDocAdd)
inline constexpr uint8_t kDocReviveDocument = 0x10;   // turn a tombstone into a live document
                                                      // (with kDocAccessDeleted)
inline constexpr uint8_t kDocReplicaRead = 0x20;      // a lookup of a replica vbucket's copy

inline constexpr size_t kMaxSpecs = 16;

enum class SpecOp : uint8_t {
  // Lookups.
  Get,       // SUBDOC_GET 0xc5
  Exists,    // SUBDOC_EXISTS 0xc6
  Count,     // SUBDOC_GET_COUNT 0xd2
  GetDoc,    // GET 0x00 in a multi-lookup: the whole body (empty path)
  // Mutations.
  DictAdd,         // 0xc7
  DictUpsert,      // 0xc8
  Remove,          // SUBDOC_DELETE 0xc9
  Replace,         // 0xca
  ArrayPushLast,   // 0xcb
  ArrayPushFirst,  // 0xcc
  ArrayInsert,     // 0xcd
  ArrayAddUnique,  // 0xce
  Counter,         // 0xcf
  SetDoc,          // SET 0x01 in a multi-mutation: the whole body (empty path)
  DeleteDoc,       // DELETE 0x04 in a multi-mutation: remove the body (empty path)
  // 0xd3, in a multi-mutation: the body becomes the value of the XATTR path (how the SDKs
  // commit a transaction's staged content when the bucket lists the capability).
  ReplaceBodyWithXattr,
};

bool is_lookup(SpecOp op);

struct Spec {
  SpecOp op = SpecOp::Get;
  uint8_t path_flags = 0;
  std::string_view path;   // as sent, unparsed
  std::string_view value;  // mutations' argument (empty for lookups, Remove and DeleteDoc)

  bool xattr() const { return (path_flags & kPathXattr) != 0; }
  bool create_parents() const { return (path_flags & kPathCreateParents) != 0; }
  bool expand_macros() const { return (path_flags & kPathExpandMacros) != 0; }
  bool binary_value() const { return (path_flags & kPathBinaryValue) != 0; }
};

struct Request {
  bool mutation = false;  // the specs change the document
  bool multi = false;     // a multi-path command: the answer has one entry per spec
  uint8_t doc_flags = 0;
  uint32_t expiry = 0;    // mutations; 0 when the request carries none
  bool has_user_flags = false;  // mutations: the request sets the document's flags
  uint32_t user_flags = 0;
  size_t spec_count = 0;
  Spec specs[kMaxSpecs];

  std::span<const Spec> spec_list() const { return {specs, spec_count}; }
  bool has(uint8_t doc_flag) const { return (doc_flags & doc_flag) != 0; }
  // Whether a spec addresses XATTRs (XATTR specs come first, so the first one says it).
  bool addresses_xattrs() const { return spec_count > 0 && specs[0].xattr(); }
};

// Decodes a request of a sub-document command (`opcode` its loud variant). Returns Success,
// or the status the whole request is refused with. The rules and their order are
// Couchbase's (kv_engine daemon/subdocument_validators.cc), so a client sees the status it
// would see there:
// - Einval: extras lengths other than those above (lookups take no expiry); unknown doc
//   flags; value lengths that do not add up
//   (a spec or path running past the value, a single-path path longer than the value); a
//   value missing where the
//   operation takes one, or present where it takes none; path flags the operation does not
//   take (CreateParents on a lookup, Replace or ArrayInsert; ExpandMacros on ArrayAddUnique
//   or Counter; any flag on the whole-document operations); doc flags the operation does
//   not take (a lookup takes only AccessDeleted, ReviveDocument and ReplicaRead; Remove, DeleteDoc
//   and the lookups neither Mkdoc nor Add; SetDoc only those two); Mkdoc together with Add;
//   ReviveDocument without AccessDeleted or with CreateAsDeleted; in a single-path request,
//   CreateAsDeleted without Mkdoc or Add, or on a body path; an empty path where the
//   operation needs one (a body path of anything but Count, the array pushes, ArrayAddUnique
//   and the whole-document operations); a path on GetDoc, SetDoc or DeleteDoc;
//   BinaryValue is taken only by Get, DictAdd, DictUpsert, Replace and ReplaceBodyWithXattr;
// - SubdocXattrInvalidFlagCombo: ExpandMacros or BinaryValue without Xattr, or both together;
// - XattrEinval: an XATTR path whose key breaks subdoc/xattr_key.h's rules; an XATTR
//   mutation's value (without BinaryValue) holding an encoded binary value that does not
//   decode (subdoc/binary_value.h);
// - SubdocXattrCantModifyVattr: a mutation of a virtual XATTR ('$' key);
// - SubdocXattrUnknownMacro: ExpandMacros on a value that is no macro ("${Mutation.CAS}",
//   "${Mutation.seqno}", "${Mutation.value_crc32c}" or "${$document...}", quotes included);
// - SubdocInvalidCombo (multi-path): no spec, more than kMaxSpecs, an opcode that is no
//   sub-document operation, a lookup opcode in a mutation or a mutation opcode in a lookup,
//   any spec after DeleteDoc or DeleteDoc after a body spec (it must be the only body spec);
// - SubdocInvalidXattrOrder (multi-path): an XATTR spec after a body spec.
// Checks that need the frame's header or the connection (the request's CAS and datatype,
// whether Xattr was negotiated) are the handlers' (commands/subdoc_command.h).
// The specs' views point into `value`, which must outlive `out`.
protocol::Status decode_request(protocol::Opcode opcode, std::span<const uint8_t> extras,
                                std::span<const uint8_t> value, Request& out);

// Whether a request of a sub-document lookup opcode asks for a replica's copy (ReplicaRead
// among its doc flags): the dispatcher, which picks the vbucket state that serves a request,
// asks before anything is decoded. False for every other opcode and for extras of a length
// decode_request() refuses.
bool reads_replica(protocol::Opcode opcode, std::span<const uint8_t> extras);

}  // namespace tern::subdoc
