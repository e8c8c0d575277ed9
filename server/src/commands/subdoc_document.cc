#include "commands/subdoc_document.h"

#include <chrono>
#include <stdexcept>

#include "commands/engine_status.h"
#include "commands/virtual_xattrs.h"
#include "protocol/datatype.h"
#include "subdoc/binary_value.h"
#include "subdoc/xattr_key.h"

namespace tern::commands {

namespace {

using protocol::Status;

// The JSON documents a thread's views run on, and who loaded them last: a view whose
// generation is no longer the owner's finds them holding another view's text.
struct ThreadDocuments {
  subdoc::JsonDocument body;
  subdoc::JsonDocument xattrs;
  subdoc::JsonDocument virtuals;
  std::string virtual_text;
  uint64_t generation = 0;
};

ThreadDocuments& thread_documents() {
  thread_local ThreadDocuments documents;
  return documents;
}

subdoc::Lookup lookup_of(subdoc::SpecOp op) {
  switch (op) {
    case subdoc::SpecOp::Exists: return subdoc::Lookup::Exists;
    case subdoc::SpecOp::Count: return subdoc::Lookup::Count;
    default: return subdoc::Lookup::Get;
  }
}

uint64_t unix_seconds_now() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::seconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count());
}

}  // namespace

void SubdocDocument::reset(uint64_t vbucket_uuid) {
  item_.reset();
  locked_ = false;
  meta_ = VirtualDocumentMeta{.vbucket_uuid = vbucket_uuid};
  body_ = {};
  body_is_json_ = false;
  attributes_.clear();
  xattrs_text_.assign("{}");
  body_loaded_ = Loaded::No;
  xattrs_loaded_ = false;
  virtual_crc32c_ = VirtualState::No;
  generation_ = ++thread_documents().generation;
}

void SubdocDocument::load_missing(uint64_t vbucket_uuid) { reset(vbucket_uuid); }

Status SubdocDocument::load(const engine::GetResult& read, engine::Engine& engine,
                            uint64_t vbucket_uuid) {
  reset(vbucket_uuid);
  item_ = read.item;
  locked_ = read.locked;
  const engine::Item& item = *item_;
  xattr::Split split;
  if (!xattr::split(item.value(), item.datatype, split)) return Status::Einternal;
  if (!split.attributes.empty() && !xattr::parse(split.attributes, attributes_)) {
    return Status::Einternal;
  }
  body_ = split.body;
  body_is_json_ = (item.datatype & protocol::datatype::kJson) != 0;

  // One object of every attribute: keys are written as stored (xattr_key.h keeps them free
  // of what JSON escapes), values are JSON already.
  xattrs_text_.assign("{");
  for (const xattr::Attribute& attribute : attributes_) {
    if (xattrs_text_.size() > 1) xattrs_text_.push_back(',');
    xattrs_text_.push_back('"');
    xattrs_text_.append(attribute.key);
    xattrs_text_.append("\":");
    xattrs_text_.append(attribute.value);
  }
  xattrs_text_.push_back('}');

  meta_.cas = read.locked ? engine::Engine::kLockedCas : item.cas;
  meta_.seqno = item.seqno;
  meta_.rev_seqno = item.rev_seqno;
  meta_.expiry = engine.expiry_unix_seconds(item);
  if (item.deleted) {
    // A tombstone's expiry is when it may be purged; GET_META knows when it was removed.
    const engine::MetaResult removed = engine.get_meta(item.key());
    if (removed.status == engine::Status::Success && removed.deleted && removed.cas == item.cas) {
      meta_.expiry = removed.expiry;
    }
  }
  meta_.flags = item.flags;
  meta_.datatype = item.datatype;
  meta_.deleted = item.deleted;
  return Status::Success;
}

bool SubdocDocument::owns_thread_documents() const {
  return thread_documents().generation == generation_;
}

void SubdocDocument::claim_thread_documents() {
  if (owns_thread_documents()) return;
  // Another view loaded on this thread since: what this one had loaded is gone.
  generation_ = ++thread_documents().generation;
  body_loaded_ = Loaded::No;
  xattrs_loaded_ = false;
  virtual_crc32c_ = VirtualState::No;
}

Status SubdocDocument::body_json(const subdoc::JsonDocument*& out) {
  claim_thread_documents();
  subdoc::JsonDocument& document = thread_documents().body;
  if (body_loaded_ == Loaded::No) {
    body_loaded_ = body_is_json_ && document.load(body_) == Status::Success ? Loaded::Yes
                                                                           : Loaded::NotJson;
  }
  out = &document;
  return body_loaded_ == Loaded::Yes ? Status::Success : Status::SubdocDocNotJson;
}

Status SubdocDocument::replace_body(std::string_view text) {
  claim_thread_documents();
  const Status loaded = thread_documents().body.load(text);
  body_loaded_ = loaded == Status::Success ? Loaded::Yes : Loaded::NotJson;
  return loaded;
}

const subdoc::JsonDocument& SubdocDocument::xattrs_json() {
  claim_thread_documents();
  subdoc::JsonDocument& document = thread_documents().xattrs;
  if (!xattrs_loaded_) {
    // Attribute values are JSON: every writer of the XATTR section checks them.
    if (document.load(xattrs_text_) != Status::Success) {
      throw std::runtime_error("stored extended attributes are not JSON");
    }
    xattrs_loaded_ = true;
  }
  return document;
}

Status SubdocDocument::replace_xattrs(std::string_view object_text) {
  claim_thread_documents();
  const Status loaded = thread_documents().xattrs.load(object_text);
  xattrs_loaded_ = loaded == Status::Success;
  return loaded;
}

const subdoc::JsonDocument& SubdocDocument::virtual_json(bool with_crc32c) {
  claim_thread_documents();
  ThreadDocuments& documents = thread_documents();
  const VirtualState wanted = with_crc32c ? VirtualState::WithCrc32c : VirtualState::Yes;
  if (virtual_crc32c_ < wanted) {
    write_virtual_xattrs(meta_, body_, attributes_, unix_seconds_now(), with_crc32c,
                         documents.virtual_text);
    if (documents.virtuals.load(documents.virtual_text) != Status::Success) {
      throw std::runtime_error("virtual extended attributes are not JSON");
    }
    virtual_crc32c_ = wanted;
  }
  return documents.virtuals;
}

Status SubdocDocument::lookup(const subdoc::Spec& spec, std::string_view& value) {
  value = {};
  return spec.xattr() ? lookup_xattr(spec, value) : lookup_body(spec, value);
}

Status SubdocDocument::lookup_body(const subdoc::Spec& spec, std::string_view& value) {
  if (spec.op == subdoc::SpecOp::GetDoc) {
    // A body of no bytes is no body (a tombstone's): Couchbase answers PathEnoent.
    if (body_.empty()) return Status::SubdocPathEnoent;
    value = body_;
    return Status::Success;
  }
  const subdoc::JsonDocument* document = nullptr;
  if (const Status loaded = body_json(document); loaded != Status::Success) return loaded;
  if (const Status parsed = subdoc::parse_path(spec.path, path_); parsed != Status::Success) {
    return parsed;
  }
  return document->lookup(lookup_of(spec.op), path_, value, scratch_);
}

Status SubdocDocument::lookup_xattr(const subdoc::Spec& spec, std::string_view& value) {
  const std::string_view key = subdoc::xattr_key_of(spec.path);
  const bool is_virtual = subdoc::is_virtual_xattr_key(key);
  if (is_virtual && !is_known_virtual_xattr(key)) return Status::SubdocXattrUnknownVattr;
  if (const Status parsed = subdoc::parse_path(spec.path, path_); parsed != Status::Success) {
    return parsed;
  }
  const subdoc::JsonDocument& document =
      is_virtual ? virtual_json(needs_value_crc32c(path_)) : xattrs_json();
  const Status found = document.lookup(lookup_of(spec.op), path_, value, scratch_);
  if (found != Status::Success || !spec.binary_value()) return found;
  if (!subdoc::decode_binary_value(value, binary_)) return Status::SubdocFieldNotBinaryValue;
  value = binary_;
  return Status::Success;
}

Status read_subdoc_document(engine::Engine& engine, std::string_view key,
                            const subdoc::Request& request, uint64_t request_cas,
                            uint64_t vbucket_uuid, SubdocDocument& doc, bool& evicted) {
  const engine::GetResult read =
      engine.get_document(key, request.has(subdoc::kDocAccessDeleted));
  evicted = read.status == engine::Status::NotResident;
  if (read.status != engine::Status::Success) {
    doc.load_missing(vbucket_uuid);
    return to_wire(read.status);
  }
  if (const Status loaded = doc.load(read, engine, vbucket_uuid); loaded != Status::Success) {
    return loaded;
  }
  if (!request.mutation) {
    return request_cas != 0 && request_cas != doc.reported_cas() ? Status::KeyEexists
                                                                 : Status::Success;
  }
  if (read.locked) {
    // Only the lock's CAS may change a locked document; write_document checks it.
    return request_cas == 0 || request_cas == engine::Engine::kLockedCas ? Status::Locked
                                                                         : Status::Success;
  }
  return request_cas != 0 && request_cas != read.item->cas ? Status::KeyEexists
                                                           : Status::Success;
}

}  // namespace tern::commands
