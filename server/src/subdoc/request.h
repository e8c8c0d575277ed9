#pragma once
// A sub-document request as it arrives, decoded into one shape whatever its command: the
// single-path commands (SUBDOC_GET ... SUBDOC_COUNTER, SUBDOC_GET_COUNT) carry one spec in
// their extras, key and value; SUBDOC_MULTI_LOOKUP and SUBDOC_MULTI_MUTATION carry up to
// kMaxSpecs in their value:
//
//   lookup spec:   op u8, path flags u8, path length u16, path
//   mutation spec: op u8, path flags u8, path length u16, value length u32, path, value
//
// Single-path extras: path length u16, path flags u8, then optionally expiry u32 (mutations
// only) and doc flags u8 (3, 4, 7 or 8 bytes). Multi-path extras: optionally expiry u32
// (mutations only) and doc flags u8 (0, 1, 4 or 5 bytes).
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

// Doc flags, per request.
inline constexpr uint8_t kDocMkdoc = 0x01;          // create the document if missing (upsert)
inline constexpr uint8_t kDocAdd = 0x02;            // create it; Exists if it is there (insert)
inline constexpr uint8_t kDocAccessDeleted = 0x04;  // a tombstone is a document to read and change
inline constexpr uint8_t kDocCreateAsDeleted = 0x08;  // create it as a tombstone (with kDocMkdoc
                                                      // or kDocAdd, and kDocAccessDeleted)
inline constexpr uint8_t kDocReviveDocument = 0x10;   // turn a tombstone into a live document

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
};

struct Request {
  bool mutation = false;  // the specs change the document
  bool multi = false;     // a multi-path command: the answer has one entry per spec
  uint8_t doc_flags = 0;
  uint32_t expiry = 0;    // mutations; 0 when the request carries none
  size_t spec_count = 0;
  Spec specs[kMaxSpecs];

  std::span<const Spec> spec_list() const { return {specs, spec_count}; }
  bool has(uint8_t doc_flag) const { return (doc_flags & doc_flag) != 0; }
};

// Decodes a request of a sub-document command (`opcode` its loud variant). Returns Success,
// or the status the whole request is refused with:
// - Einval: extras or value lengths that do not add up, unknown path or doc flags, Mkdoc
//   together with Add, CreateAsDeleted without AccessDeleted or without Mkdoc/Add, an expiry
//   on a lookup, a single-path command's empty path (other than for the whole-document
//   operations, which exist only in multi-path requests), a non-empty path on GetDoc,
//   SetDoc or DeleteDoc;
// - SubdocInvalidCombo: no spec, more than kMaxSpecs, a lookup opcode in a mutation or a
//   mutation opcode in a lookup, an opcode that is no sub-document operation, SetDoc
//   together with DeleteDoc;
// - SubdocXattrInvalidFlagCombo: ExpandMacros without Xattr; Xattr on a whole-document op;
// - SubdocInvalidXattrOrder: an XATTR spec after a body spec.
// The specs' views point into `value`, which must outlive `out`.
protocol::Status decode_request(protocol::Opcode opcode, std::span<const uint8_t> extras,
                                std::span<const uint8_t> value, Request& out);

}  // namespace tern::subdoc
