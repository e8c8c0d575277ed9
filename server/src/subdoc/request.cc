#include "subdoc/request.h"

#include "protocol/codec.h"
#include "subdoc/binary_value.h"
#include "subdoc/path.h"
#include "subdoc/xattr_key.h"

namespace tern::subdoc {

namespace {

using protocol::Opcode;
using protocol::Status;

constexpr uint8_t kKnownDocFlags = kDocMkdoc | kDocAdd | kDocAccessDeleted | kDocCreateAsDeleted |
                                   kDocReviveDocument | kDocReplicaRead;

// What Couchbase lets each operation take (kv_engine's per-command traits).
struct OpRules {
  SpecOp op;
  uint8_t path_flags;  // the path flags it accepts
  uint8_t doc_flags;   // the doc flags it accepts
  bool takes_value;
  bool empty_path;     // a body path may be empty (the document's root)
  bool whole_document; // GetDoc, SetDoc, DeleteDoc: no path, no path flags
  bool xattr_only = false;  // ReplaceBodyWithXattr: the path must be an XATTR's
};

constexpr uint8_t kX = kPathXattr;
constexpr uint8_t kP = kPathCreateParents;
constexpr uint8_t kM = kPathExpandMacros;
constexpr uint8_t kB = kPathBinaryValue;
constexpr uint8_t kLookupDocFlags = kDocAccessDeleted | kDocReviveDocument | kDocReplicaRead;
constexpr uint8_t kCreatingDocFlags =
    kDocMkdoc | kDocAdd | kDocAccessDeleted | kDocCreateAsDeleted | kDocReviveDocument;

// The operation an opcode names inside a request, or nullptr: the single-path opcodes name
// themselves, and the multi-path requests add the whole-document ones.
const OpRules* rules_of(uint8_t opcode) {
  static constexpr OpRules kGet{SpecOp::Get, kX | kB, kLookupDocFlags, false, false, false};
  static constexpr OpRules kExists{SpecOp::Exists, kX, kLookupDocFlags, false, false, false};
  static constexpr OpRules kCount{SpecOp::Count, kX, kLookupDocFlags, false, true, false};
  static constexpr OpRules kGetDoc{SpecOp::GetDoc, 0, kLookupDocFlags, false, true, true};
  static constexpr OpRules kDictAdd{SpecOp::DictAdd, kP | kX | kM | kB, kCreatingDocFlags,
                                    true, false, false};
  static constexpr OpRules kDictUpsert{SpecOp::DictUpsert, kP | kX | kM | kB,
                                       kCreatingDocFlags, true, false, false};
  static constexpr OpRules kRemove{SpecOp::Remove, kX, kDocAccessDeleted | kDocReviveDocument,
                                   false, false, false};
  static constexpr OpRules kReplace{SpecOp::Replace, kX | kM | kB,
                                    kDocAccessDeleted | kDocReviveDocument | kDocAdd, true,
                                    false, false};
  static constexpr OpRules kPushLast{SpecOp::ArrayPushLast, kP | kX | kM, kCreatingDocFlags,
                                     true, true, false};
  static constexpr OpRules kPushFirst{SpecOp::ArrayPushFirst, kP | kX | kM, kCreatingDocFlags,
                                      true, true, false};
  static constexpr OpRules kInsert{
      SpecOp::ArrayInsert, kX | kM,
      kDocAccessDeleted | kDocReviveDocument | kDocAdd | kDocCreateAsDeleted, true, false,
      false};
  static constexpr OpRules kAddUnique{SpecOp::ArrayAddUnique, kP | kX, kCreatingDocFlags,
                                      true, true, false};
  static constexpr OpRules kCounter{SpecOp::Counter, kP | kX, kCreatingDocFlags, true, false,
                                    false};
  static constexpr OpRules kSetDoc{SpecOp::SetDoc, 0, kDocMkdoc | kDocAdd, true, true, true};
  static constexpr OpRules kDeleteDoc{SpecOp::DeleteDoc, 0,
                                      kDocAccessDeleted | kDocReviveDocument, false, true,
                                      true};
  static constexpr OpRules kReplaceBodyWithXattr{SpecOp::ReplaceBodyWithXattr, kX | kB,
                                                 kDocAccessDeleted | kDocReviveDocument, false,
                                                 false, false, true};
  switch (static_cast<Opcode>(opcode)) {
    case Opcode::SubdocGet: return &kGet;
    case Opcode::SubdocExists: return &kExists;
    case Opcode::SubdocGetCount: return &kCount;
    case Opcode::Get: return &kGetDoc;
    case Opcode::SubdocDictAdd: return &kDictAdd;
    case Opcode::SubdocDictUpsert: return &kDictUpsert;
    case Opcode::SubdocDelete: return &kRemove;
    case Opcode::SubdocReplace: return &kReplace;
    case Opcode::SubdocArrayPushLast: return &kPushLast;
    case Opcode::SubdocArrayPushFirst: return &kPushFirst;
    case Opcode::SubdocArrayInsert: return &kInsert;
    case Opcode::SubdocArrayAddUnique: return &kAddUnique;
    case Opcode::SubdocCounter: return &kCounter;
    case Opcode::Set: return &kSetDoc;
    case Opcode::Delete: return &kDeleteDoc;
    case Opcode::SubdocReplaceBodyWithXattr: return &kReplaceBodyWithXattr;
    default: return nullptr;
  }
}

bool is_macro(std::string_view value) {
  if (value == R"("${Mutation.CAS}")" || value == R"("${Mutation.seqno}")" ||
      value == R"("${Mutation.value_crc32c}")") {
    return true;
  }
  return value.starts_with(R"("${$document)") && value.ends_with(R"(}")");
}

// The XATTR rules of one spec, in Couchbase's order.
Status check_xattr_rules(const Spec& spec, bool mutation) {
  if (!spec.xattr()) {
    return spec.expand_macros() || spec.binary_value() ? Status::SubdocXattrInvalidFlagCombo
                                                       : Status::Success;
  }
  if (spec.expand_macros() && spec.binary_value()) return Status::SubdocXattrInvalidFlagCombo;
  if (!is_valid_xattr_path(spec.path)) return Status::XattrEinval;
  if (mutation && is_virtual_xattr_key(xattr_key_of(spec.path))) {
    return Status::SubdocXattrCantModifyVattr;
  }
  if (spec.expand_macros() && !is_macro(spec.value)) return Status::SubdocXattrUnknownMacro;
  if (mutation && !spec.binary_value() && !binary_values_well_formed(spec.value)) {
    return Status::XattrEinval;
  }
  return Status::Success;
}

// The checks one spec gets whatever request carries it, in Couchbase's order, which differs
// a little between single-path requests (`single`) and multi-path ones; a single-path one's
// empty-path rule does not look at the XATTR flag either.
Status check_spec(const OpRules& rules, const Spec& spec, uint8_t doc_flags, bool mutation,
                  bool single) {
  if (single && rules.takes_value == spec.value.empty()) return Status::Einval;
  if ((spec.path_flags & ~rules.path_flags) != 0) return Status::Einval;
  if (rules.xattr_only && !spec.xattr()) return Status::Einval;
  if ((doc_flags & ~rules.doc_flags) != 0) return Status::Einval;
  if (rules.whole_document && !spec.path.empty()) return Status::Einval;
  if (const Status xattr = check_xattr_rules(spec, mutation); xattr != Status::Success) {
    return xattr;
  }
  if (spec.path.empty() && !rules.empty_path && (single || !spec.xattr())) return Status::Einval;
  if (rules.takes_value == spec.value.empty()) return Status::Einval;
  return Status::Success;
}

// What every request's doc flags must satisfy.
Status check_doc_flags(uint8_t doc_flags) {
  if ((doc_flags & ~kKnownDocFlags) != 0) return Status::Einval;
  if ((doc_flags & kDocMkdoc) != 0 && (doc_flags & kDocAdd) != 0) return Status::Einval;
  if ((doc_flags & kDocReviveDocument) != 0 &&
      ((doc_flags & kDocAccessDeleted) == 0 || (doc_flags & kDocCreateAsDeleted) != 0)) {
    return Status::Einval;
  }
  return Status::Success;
}

std::string_view text_of(std::span<const uint8_t> bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

// The extras after a single-path request's path length and flags, or a multi-path request's
// whole extras: [expiry u32 [user flags u32]] [doc flags u8], the first part for mutations
// only. False for any other length.
bool decode_mutation_extras(std::span<const uint8_t> extras, Request& out) {
  const size_t length = extras.size();
  const bool doc_flags = length % 4 == 1;
  const size_t words = length / 4;  // expiry, then user flags
  if (length % 4 > 1 || words > 2 || (words > 0 && !out.mutation)) return false;
  out.doc_flags = doc_flags ? extras[length - 1] : 0;
  out.expiry = words >= 1 ? protocol::load_be32(extras.data()) : 0;
  out.has_user_flags = words == 2;
  out.user_flags = words == 2 ? protocol::load_be32(extras.data() + 4) : 0;
  return true;
}

Status decode_single(Opcode opcode, std::span<const uint8_t> extras,
                     std::span<const uint8_t> value, Request& out) {
  const OpRules* rules = rules_of(static_cast<uint8_t>(opcode));
  out.mutation = !is_lookup(rules->op);
  if (extras.size() < 3 || !decode_mutation_extras(extras.subspan(3), out)) return Status::Einval;
  const Status doc_flags = check_doc_flags(out.doc_flags);
  if (doc_flags != Status::Success) return doc_flags;

  const size_t path_length = protocol::load_be16(extras.data());
  if (path_length > value.size()) return Status::Einval;
  Spec& spec = out.specs[0];
  spec.op = rules->op;
  spec.path_flags = extras[2];
  spec.path = text_of(value.first(path_length));
  spec.value = text_of(value.subspan(path_length));
  out.spec_count = 1;
  if (out.has(kDocCreateAsDeleted) &&
      (!(out.has(kDocMkdoc) || out.has(kDocAdd)) || !spec.xattr())) {
    return Status::Einval;
  }
  return check_spec(*rules, spec, out.doc_flags, out.mutation, /*single=*/true);
}

Status decode_multi(std::span<const uint8_t> extras, std::span<const uint8_t> value,
                    Request& out) {
  if (!decode_mutation_extras(extras, out)) return Status::Einval;
  const Status doc_flags = check_doc_flags(out.doc_flags);
  if (doc_flags != Status::Success) return doc_flags;

  const size_t header = out.mutation ? 8 : 4;  // op, flags, path length (, value length)
  size_t offset = 0;
  bool body_seen = false;  // XATTR specs come first
  bool body_closed = false;  // DeleteDoc was the body's spec: nothing may follow it
  while (offset < value.size() && out.spec_count < kMaxSpecs) {
    if (body_closed) return Status::SubdocInvalidCombo;
    if (value.size() - offset < header) return Status::Einval;
    const uint8_t* at = value.data() + offset;
    const size_t path_length = protocol::load_be16(at + 2);
    const size_t value_length = out.mutation ? protocol::load_be32(at + 4) : 0;
    if (path_length + value_length > value.size() - offset - header) return Status::Einval;

    const OpRules* rules = rules_of(at[0]);
    if (rules == nullptr) return Status::SubdocInvalidCombo;
    if (is_lookup(rules->op) == out.mutation) return Status::SubdocInvalidCombo;
    Spec& spec = out.specs[out.spec_count++];
    spec.op = rules->op;
    spec.path_flags = at[1];
    spec.path = text_of(value.subspan(offset + header, path_length));
    spec.value = text_of(value.subspan(offset + header + path_length, value_length));
    const Status checked = check_spec(*rules, spec, out.doc_flags, out.mutation, false);
    if (checked != Status::Success) return checked;

    if (spec.xattr()) {
      if (body_seen) return Status::SubdocInvalidXattrOrder;
    } else {
      if (spec.op == SpecOp::DeleteDoc) {
        if (body_seen) return Status::SubdocInvalidCombo;
        body_closed = true;
      }
      body_seen = true;
    }
    offset += header + path_length + value_length;
  }
  // No spec, or specs left over past kMaxSpecs.
  if (out.spec_count == 0 || offset != value.size()) return Status::SubdocInvalidCombo;
  return Status::Success;
}

}  // namespace

bool is_lookup(SpecOp op) {
  switch (op) {
    case SpecOp::Get:
    case SpecOp::Exists:
    case SpecOp::Count:
    case SpecOp::GetDoc:
      return true;
    default:
      return false;
  }
}

bool reads_replica(protocol::Opcode opcode, std::span<const uint8_t> extras) {
  // Where decode_single() and decode_multi() find a lookup's doc flags.
  switch (opcode) {
    case Opcode::SubdocMultiLookup:
      return extras.size() == 1 && (extras[0] & kDocReplicaRead) != 0;
    case Opcode::SubdocGet:
    case Opcode::SubdocExists:
    case Opcode::SubdocGetCount:
      return extras.size() == 4 && (extras[3] & kDocReplicaRead) != 0;
    default:
      return false;
  }
}

protocol::Status decode_request(protocol::Opcode opcode, std::span<const uint8_t> extras,
                                std::span<const uint8_t> value, Request& out) {
  out = Request{};
  switch (opcode) {
    case Opcode::SubdocMultiLookup:
      out.multi = true;
      return decode_multi(extras, value, out);
    case Opcode::SubdocMultiMutation:
      out.multi = true;
      out.mutation = true;
      return decode_multi(extras, value, out);
    case Opcode::SubdocGet:
    case Opcode::SubdocExists:
    case Opcode::SubdocGetCount:
    case Opcode::SubdocDictAdd:
    case Opcode::SubdocDictUpsert:
    case Opcode::SubdocDelete:
    case Opcode::SubdocReplace:
    case Opcode::SubdocArrayPushLast:
    case Opcode::SubdocArrayPushFirst:
    case Opcode::SubdocArrayInsert:
    case Opcode::SubdocArrayAddUnique:
    case Opcode::SubdocCounter:
      return decode_single(opcode, extras, value, out);
    default:
      return Status::UnknownCommand;
  }
}

}  // namespace tern::subdoc
