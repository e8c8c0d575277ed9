#pragma once
// Computing what a sub-document mutation makes of a document, without the engine: the specs
// run in order on the document's view (commands/subdoc_document.h), each one on the state the
// previous ones left, and only when every spec succeeds does the whole new stored value get
// built. The handler (subdoc_mutation.cc) reads the document, runs this, and writes the
// value; a spec that fails leaves nothing to write, so a multi-mutation is all or nothing.
//
// Couchbase's rules (kv_engine daemon/subdocument.cc, subdocument_context.cc), followed here:
// - XATTR specs run first, on the attributes as one JSON object whose first path component
//   is the attribute's key; body specs then run on the body. Mkdoc and Add imply
//   CreateParents for every spec.
// - A body path needs a body whose datatype says JSON: else SubdocDocNotJson. SetDoc takes
//   any bytes; the body is JSON (datatype bit) when they are. DeleteDoc empties the body and
//   keeps only the system attributes ('_' keys): the document becomes a tombstone.
// - A document that does not exist yet starts as "[]" when the first path spec's path starts
//   with an index, or is an empty path of an array push or ArrayAddUnique; as "{}" when it
//   has any other path spec; as an empty body when it has only whole-document specs; and
//   empty when created as deleted (a tombstone holds only XATTRs).
// - A document that is, and stays, deleted (read with AccessDeleted, or created as deleted,
//   and not revived) cannot end with a body: SubdocDeletedDocumentCantHaveValue.
// - ExpandMacros values: the ${Mutation...} macros become placeholders filled in once the
//   CAS and seqno are known (subdoc_macros.h); "${$document...}" becomes what a lookup of
//   that virtual XATTR path answers about the document as read (SubdocXattrUnknownVattrMacro
//   when it answers nothing).
// - BinaryValue values are raw bytes, stored in their attribute as subdoc/binary_value.h
//   encodes them. ReplaceBodyWithXattr makes the body what its attribute's value is: the
//   JSON text, or, flagged BinaryValue, the bytes it encodes (SubdocFieldNotBinaryValue when
//   it encodes none), JSON by datatype only when they are.
//
// Not thread-safe: keep one per thread. It keeps its buffers, and what it answers views
// them until its next run.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "commands/subdoc_document.h"
#include "commands/subdoc_macros.h"
#include "protocol/status.h"
#include "subdoc/json_document.h"
#include "subdoc/path.h"
#include "subdoc/request.h"
#include "xattr/blob.h"

namespace tern::commands {

// What running a mutation's specs on a document came to.
struct MutationPlan {
  // Success; the failing spec's status (see failed_spec); or a status for the whole
  // request (failed_spec < 0): SubdocDeletedDocumentCantHaveValue.
  protocol::Status status = protocol::Status::Success;
  int failed_spec = -1;

  // On Success, what to store:
  std::string_view value;      // the XATTR section (if any) then the body
  size_t section_bytes = 0;    // the XATTR section's length at the front of `value`
  uint8_t datatype = 0;        // XATTR bit when it has attributes, JSON bit for a JSON body
  bool deleted = false;        // publish a tombstone
  // Whether the answer is SubdocSuccessDeleted: the document was a tombstone (or is created
  // as one) and is not revived.
  bool reports_deleted = false;
  // Per spec: the value its answer carries (a Counter's new number), empty for the others.
  std::array<std::string_view, subdoc::kMaxSpecs> results{};
};

class MutationApplier {
 public:
  // Runs `request`'s specs on `doc`: the document as read, or a missing one
  // (doc.exists() false) that the request creates. `request` has been decoded (so its flags
  // combine as they may) and the document-level checks passed (Add found nothing, Revive
  // found a tombstone). The plan's views stay valid until the next run(); `doc` changes (its
  // current body and XATTRs are the plan's).
  const MutationPlan& run(SubdocDocument& doc, const subdoc::Request& request);

  // The macros of the last run: fill_cas_and_seqno() on the published value.
  const MacroExpansion& macros() const { return macros_; }

 private:
  // Where the current body is, spec after spec. A body that changed is loaded into the
  // view's JSON document only when a later spec needs to walk it: the last change of a
  // request is never indexed, only copied into the stored value.
  enum class Body : uint8_t {
    Stored,  // the document's as read (doc.body(); the view loads it on first use)
    Text,    // body_text_: a mutation's result, a SetDoc's bytes, an XATTR's value (a
             // ReplaceBodyWithXattr's), a new document's root
    Empty,   // DeleteDoc's, a tombstone's, or a new document's without a root
  };

  void start_new_document(const subdoc::Request& request);
  protocol::Status run_spec(SubdocDocument& doc, const subdoc::Spec& spec, bool create_parents,
                            std::string& result);
  protocol::Status run_xattr_spec(SubdocDocument& doc, const subdoc::Spec& spec,
                                  bool create_parents, std::string& result);
  protocol::Status run_body_spec(SubdocDocument& doc, const subdoc::Spec& spec,
                                 bool create_parents, std::string& result);
  protocol::Status replace_body_with_xattr(SubdocDocument& doc, const subdoc::Spec& spec);
  protocol::Status expanded_value(SubdocDocument& doc, const subdoc::Spec& spec,
                                  std::string_view& value);
  std::string_view current_body(const SubdocDocument& doc) const;
  protocol::Status build_value(SubdocDocument& doc);

  MutationPlan plan_;
  Body body_ = Body::Stored;
  bool body_is_json_ = false;
  std::string_view body_text_;
  bool xattrs_changed_ = false;
  bool delete_body_ = false;

  subdoc::Path path_;
  std::string spliced_;       // the XATTRs object a spec made
  std::string body_spliced_;  // the body a spec made
  std::string replaced_body_;  // the XATTR value a ReplaceBodyWithXattr made the body
  std::string encoded_;  // a BinaryValue spec's bytes as their attribute stores them
  std::string results_[subdoc::kMaxSpecs];
  std::string value_;
  std::vector<subdoc::JsonDocument::Member> members_;
  std::vector<xattr::Attribute> attributes_;
  std::array<std::string_view, subdoc::kMaxSpecs + 1> macro_exclusions_{};
  MacroExpansion macros_;
};

}  // namespace tern::commands
