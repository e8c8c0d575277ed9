#pragma once
// The stored document as the sub-document commands see it. A request reads its document once
// (engine::Engine::get_document: the live document, or with AccessDeleted its tombstone),
// loads it into a SubdocDocument, and runs every spec on that one view:
// - the body: the value after the XATTR section. Body paths run on it as JSON when its
//   datatype says JSON (Couchbase decides by the datatype too; values are given the bit when
//   stored); otherwise they answer SubdocDocNotJson. GetDoc answers the body whole;
// - the XATTRs: the section's attributes as ONE JSON object text, {"key":value,...}, in
//   stored order, keys written between quotes as stored (subdoc/xattr_key.h keeps them free
//   of anything JSON would escape). An XATTR spec's path starts with the attribute's key,
//   so it runs on that object whole: "meta.rev" is member "rev" of member "meta";
// - the virtual XATTRs (keys starting with '$'): $document (the metadata below), $XTOC (the
//   attributes' keys) and $vbucket (the vbucket's clock), built on first use as one more
//   JSON object, {"$document":{...},"$XTOC":[...],"$vbucket":{...}}, that the spec's path
//   runs on whole the same way. Any other '$' key answers SubdocXattrUnknownVattr.
// A document that does not exist yet (a mutation that creates it) is an empty view: no body,
// no attributes, not deleted.
//
// A lookup is a function of (view, spec): lookup() gives its status and value, for the
// lookup commands and for anything else that needs a lookup's meaning (a mutation's
// ${$document...} macros). Lookups never change the view.
//
// The JSON documents behind a view belong to its thread (JsonDocument keeps its buffers, so
// a steady load allocates nothing): one for the body, one for the XATTRs, one for the
// virtual XATTRs. So a view is used on the thread that loaded it; when another view loads
// on that thread, this one loads its stored document again on next use (losing what
// replace_*() put there). They hold the document's CURRENT state: a mutation goes on from a
// spec's result with replace_body() / replace_xattrs(), and later specs (and lookups) run on
// that. Values a lookup answered stay valid until the next load or replace on the thread, or
// the next lookup of a virtual attribute (which may rebuild their object).

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/engine.h"
#include "engine/item.h"
#include "protocol/status.h"
#include "subdoc/json_document.h"
#include "subdoc/request.h"
#include "xattr/blob.h"

namespace tern::commands {

// What the $document virtual attribute reports of a document.
struct VirtualDocumentMeta {
  uint64_t cas = 0;  // as a read reports it: engine::Engine::kLockedCas while locked
  uint64_t seqno = 0;
  uint64_t rev_seqno = 0;
  // Absolute Unix seconds; 0: never (Engine::expiry_unix_seconds). For a tombstone: when
  // the document was removed, as GET_META reports it (and Couchbase's $document does).
  uint32_t expiry = 0;
  uint32_t flags = 0;
  uint8_t datatype = 0;  // as stored: the XATTR bit when it has attributes
  bool deleted = false;
  uint64_t vbucket_uuid = 0;
};

class SubdocDocument {
 public:
  // Loads a document get_document() read (read.status must be Success): its item, live or a
  // tombstone, and whether it is locked. `vbucket_uuid` is its vbucket's, for $document.
  // Einternal when the stored XATTR section is malformed or an attribute's value is not
  // JSON: nothing valid can be said of such a document.
  protocol::Status load(const engine::GetResult& read, engine::Engine& engine,
                        uint64_t vbucket_uuid);

  // Loads the view of a document that does not exist (yet).
  void load_missing(uint64_t vbucket_uuid);

  // Lets go of the document read (a view kept for its buffers must not keep an item the
  // engine would free): the view is then a missing document's.
  void release() { load_missing(0); }

  bool exists() const { return item_ != nullptr; }
  bool deleted() const { return meta_.deleted; }
  bool locked() const { return locked_; }
  // What was read (null for a missing document): its real CAS is what write_document's
  // expected_cas wants (meta().cas hides it while the document is locked).
  const engine::ItemPtr& item() const { return item_; }
  const VirtualDocumentMeta& meta() const { return meta_; }
  // The CAS a lookup answers with: meta().cas.
  uint64_t reported_cas() const { return meta_.cas; }

  // The stored body (without the XATTR section) and whether its datatype says JSON.
  std::string_view body() const { return body_; }
  bool body_is_json() const { return body_is_json_; }

  // The stored attributes, in stored order, and the same as one JSON object's text.
  std::span<const xattr::Attribute> attributes() const { return attributes_; }
  std::string_view xattrs_text() const { return xattrs_text_; }

  // Runs one lookup spec (Get, Exists, Count or GetDoc; its path parsed here, so a bad path
  // fails this spec only). On Success `value` is what the answer carries for it: the JSON
  // text of the value for Get, the count for Count, the whole body for GetDoc, nothing for
  // Exists. Failures are statuses a client knows per spec: SubdocPathEnoent,
  // SubdocPathMismatch, SubdocPathEinval, SubdocPathE2big, SubdocDocE2deep,
  // SubdocDocNotJson (a body path on a body that is not JSON), SubdocXattrUnknownVattr,
  // SubdocFieldNotBinaryValue (a Get flagged BinaryValue of a value that encodes no bytes;
  // flagged so, a Get answers the bytes themselves).
  protocol::Status lookup(const subdoc::Spec& spec, std::string_view& value);

  // This thread's JSON document holding the current body, loaded from body() on first use.
  // SubdocDocNotJson when the body is not JSON (and nothing JSON replaced it).
  protocol::Status body_json(const subdoc::JsonDocument*& out);
  // Makes `text` the current body (a mutation's result, or a new document's "{}" / "[]"),
  // and returns its load status (SubdocDocNotJson: `text` is not JSON).
  protocol::Status replace_body(std::string_view text);

  // This thread's JSON document holding the current XATTRs object, loaded from
  // xattrs_text() on first use (never fails: load() checked the attributes).
  const subdoc::JsonDocument& xattrs_json();
  // Makes `object_text` (a JSON object: a mutation's result) the current XATTRs object.
  protocol::Status replace_xattrs(std::string_view object_text);

 private:
  enum class Loaded : uint8_t { No, Yes, NotJson };
  // The virtual attributes' object: not built, built, built with $document's value_crc32c
  // (virtual_xattrs.h: only the lookups that may see it pay for reading the whole body).
  enum class VirtualState : uint8_t { No, Yes, WithCrc32c };

  void reset(uint64_t vbucket_uuid);
  // Whether this thread's JSON documents still hold what this view loaded into them; if
  // another view has loaded since, claiming them makes this view load again on next use.
  bool owns_thread_documents() const;
  void claim_thread_documents();
  protocol::Status lookup_xattr(const subdoc::Spec& spec, std::string_view& value);
  protocol::Status lookup_body(const subdoc::Spec& spec, std::string_view& value);
  const subdoc::JsonDocument& virtual_json(bool with_crc32c);

  engine::ItemPtr item_;
  bool locked_ = false;
  VirtualDocumentMeta meta_;
  std::string_view body_;
  bool body_is_json_ = false;
  std::vector<xattr::Attribute> attributes_;
  std::string xattrs_text_ = "{}";
  uint64_t generation_ = 0;
  Loaded body_loaded_ = Loaded::No;
  bool xattrs_loaded_ = false;
  VirtualState virtual_crc32c_ = VirtualState::No;
  subdoc::Path path_;    // the spec being run's, reused
  std::string scratch_;  // Count's answer
  std::string binary_;   // a BinaryValue Get's answer: the bytes its attribute encodes
};

// Reads the document a sub-document request addresses into `doc` (get_document, with
// deleted documents when the request has AccessDeleted). Returns:
// - Success: `doc` holds the live document or tombstone;
// - KeyEnoent: there is none; `doc` is then a missing document, for a mutation that may
//   create it;
// - for a lookup, KeyEexists when `request_cas` is not 0 and not the CAS a read reports
//   (Couchbase checks a lookup's CAS too: kLockedCas while locked);
// - for a mutation, Locked when the document is locked and `request_cas` is 0, KeyEexists
//   when `request_cas` is not 0 and not the document's CAS (a locked document's lock CAS
//   is left to write_document to check);
// - Einternal as load();
// - Etmpfail with `evicted` set: the document's value is not in memory (engine NotResident);
//   the caller fetches it and runs the request again (background_fetch.h). `evicted` is
//   false for every other answer.
protocol::Status read_subdoc_document(engine::Engine& engine, std::string_view key,
                                      const subdoc::Request& request, uint64_t request_cas,
                                      uint64_t vbucket_uuid, SubdocDocument& doc,
                                      bool& evicted);

}  // namespace tern::commands
