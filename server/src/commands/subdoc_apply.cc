#include "commands/subdoc_apply.h"

#include <algorithm>

#include "protocol/datatype.h"
#include "subdoc/binary_value.h"

namespace tern::commands {

using protocol::Status;
using subdoc::SpecOp;

namespace {

subdoc::Mutation mutation_of(SpecOp op) {
  switch (op) {
    case SpecOp::DictAdd: return subdoc::Mutation::DictAdd;
    case SpecOp::DictUpsert: return subdoc::Mutation::DictUpsert;
    case SpecOp::Remove: return subdoc::Mutation::Remove;
    case SpecOp::Replace: return subdoc::Mutation::Replace;
    case SpecOp::ArrayPushLast: return subdoc::Mutation::ArrayPushLast;
    case SpecOp::ArrayPushFirst: return subdoc::Mutation::ArrayPushFirst;
    case SpecOp::ArrayInsert: return subdoc::Mutation::ArrayInsert;
    case SpecOp::ArrayAddUnique: return subdoc::Mutation::ArrayAddUnique;
    default: return subdoc::Mutation::Counter;  // Counter; decode admits no other op here
  }
}

bool is_whole_document(SpecOp op) { return op == SpecOp::SetDoc || op == SpecOp::DeleteDoc; }

// The body a document that does not exist yet starts as, for its first path spec (Couchbase:
// subjson's get_root_type): an array when the path starts with an index or when an array
// push or ArrayAddUnique addresses the root itself; an object for any other path; nothing
// for an empty path of another operation.
std::string_view root_for(const subdoc::Spec& spec) {
  const size_t first = spec.path.find_first_not_of(" \t\n\v\f\r");
  if (first == std::string_view::npos) {
    switch (spec.op) {
      case SpecOp::ArrayPushLast:
      case SpecOp::ArrayPushFirst:
      case SpecOp::ArrayAddUnique:
        return "[]";
      default:
        return {};
    }
  }
  return spec.path[first] == '[' ? "[]" : "{}";
}

}  // namespace

const MutationPlan& MutationApplier::run(SubdocDocument& doc, const subdoc::Request& request) {
  plan_ = MutationPlan{};
  body_ = Body::Stored;
  body_is_json_ = doc.body_is_json();
  body_text_ = {};
  xattrs_changed_ = false;
  delete_body_ = false;

  const bool creating = !doc.exists();
  if (creating) start_new_document(request);
  const bool was_deleted = creating ? request.has(subdoc::kDocCreateAsDeleted) : doc.deleted();
  const bool stays_deleted = was_deleted && !request.has(subdoc::kDocReviveDocument);

  // Placeholders must not occur in anything the XATTRs could be built from.
  const std::span<const subdoc::Spec> specs = request.spec_list();
  macro_exclusions_[0] = doc.xattrs_text();
  for (size_t i = 0; i < specs.size(); ++i) macro_exclusions_[i + 1] = specs[i].value;
  macros_.reset(std::span(macro_exclusions_.data(), specs.size() + 1));

  // Couchbase: the doc flags that may create the document imply CreateParents everywhere.
  const bool create_parents_everywhere =
      request.has(subdoc::kDocMkdoc) || request.has(subdoc::kDocAdd);
  for (size_t i = 0; i < specs.size(); ++i) {
    const subdoc::Spec& spec = specs[i];
    results_[i].clear();
    const Status status =
        run_spec(doc, spec, create_parents_everywhere || spec.create_parents(), results_[i]);
    if (status != Status::Success) {
      plan_.status = status;
      plan_.failed_spec = static_cast<int>(i);
      return plan_;
    }
    if (spec.op == SpecOp::Counter) plan_.results[i] = results_[i];
  }

  if (stays_deleted && !current_body(doc).empty()) {
    plan_.status = Status::SubdocDeletedDocumentCantHaveValue;
    return plan_;
  }
  // The attributes' object always lists its members (every spec left it an object), but
  // were it not to, writing part of them would lose the rest: nothing is written then.
  if (const Status built = build_value(doc); built != Status::Success) {
    plan_.status = built;
    return plan_;
  }
  plan_.deleted = delete_body_ || stays_deleted;
  plan_.reports_deleted = stays_deleted;
  return plan_;
}

void MutationApplier::start_new_document(const subdoc::Request& request) {
  body_ = Body::Empty;
  body_is_json_ = false;
  // A tombstone holds only XATTRs.
  if (request.has(subdoc::kDocCreateAsDeleted)) return;
  for (const subdoc::Spec& spec : request.spec_list()) {
    if (is_whole_document(spec.op)) continue;
    const std::string_view root = root_for(spec);
    if (!root.empty()) {
      body_ = Body::Text;
      body_text_ = root;
      body_is_json_ = true;
    }
    return;
  }
}

Status MutationApplier::run_spec(SubdocDocument& doc, const subdoc::Spec& spec,
                                 bool create_parents, std::string& result) {
  return spec.xattr() ? run_xattr_spec(doc, spec, create_parents, result)
                      : run_body_spec(doc, spec, create_parents, result);
}

Status MutationApplier::run_xattr_spec(SubdocDocument& doc, const subdoc::Spec& spec,
                                       bool create_parents, std::string& result) {
  if (spec.op == SpecOp::ReplaceBodyWithXattr) return replace_body_with_xattr(doc, spec);
  Status status = subdoc::parse_path(spec.path, path_);
  if (status != Status::Success) return status;
  std::string_view value = spec.value;
  if (spec.expand_macros()) {
    status = expanded_value(doc, spec, value);
    if (status != Status::Success) return status;
  } else if (spec.binary_value()) {
    subdoc::encode_binary_value(spec.value, encoded_);
    value = encoded_;
  }
  // The path's first component is the attribute's key: a member of the XATTRs object.
  status = doc.xattrs_json().mutate(mutation_of(spec.op), path_, value, create_parents,
                                    spliced_, result);
  if (status != Status::Success) return status;
  xattrs_changed_ = true;
  return doc.replace_xattrs(spliced_);
}

Status MutationApplier::replace_body_with_xattr(SubdocDocument& doc, const subdoc::Spec& spec) {
  // The attribute as the specs before this one left it: the SDKs read the staged content and
  // remove it in one request, in that order.
  const subdoc::Spec lookup{.op = SpecOp::Get,
                            .path_flags = static_cast<uint8_t>(
                                subdoc::kPathXattr | (spec.path_flags & subdoc::kPathBinaryValue)),
                            .path = spec.path,
                            .value = {}};
  std::string_view value;
  const Status found = doc.lookup(lookup, value);
  if (found != Status::Success) return found;
  replaced_body_.assign(value);
  body_ = Body::Text;
  body_text_ = replaced_body_;
  // An attribute's value is JSON; the bytes it encodes may be anything.
  body_is_json_ = !spec.binary_value() || subdoc::is_json(replaced_body_);
  return Status::Success;
}

Status MutationApplier::run_body_spec(SubdocDocument& doc, const subdoc::Spec& spec,
                                      bool create_parents, std::string& result) {
  switch (spec.op) {
    case SpecOp::SetDoc:
      // Any bytes make a body; the datatype says whether they are JSON.
      body_ = Body::Text;
      body_text_ = spec.value;
      body_is_json_ = subdoc::is_json(spec.value);
      return Status::Success;
    case SpecOp::DeleteDoc:
      body_ = Body::Empty;
      body_is_json_ = false;
      delete_body_ = true;
      return Status::Success;
    default:
      break;
  }
  // Couchbase goes by the datatype: a body not stored as JSON takes no path.
  if (!body_is_json_) return Status::SubdocDocNotJson;
  Status status = Status::Success;
  if (body_ == Body::Text) {
    // The view copies the text in, so body_spliced_ is free for this spec's result.
    status = doc.replace_body(body_text_);
    if (status != Status::Success) return status;
  }
  const subdoc::JsonDocument* json = nullptr;
  status = doc.body_json(json);
  if (status != Status::Success) return status;
  status = subdoc::parse_path(spec.path, path_);
  if (status != Status::Success) return status;
  status = json->mutate(mutation_of(spec.op), path_, spec.value, create_parents, body_spliced_,
                        result);
  if (status != Status::Success) return status;
  body_ = Body::Text;
  body_text_ = body_spliced_;
  return Status::Success;
}

Status MutationApplier::expanded_value(SubdocDocument& doc, const subdoc::Spec& spec,
                                       std::string_view& value) {
  if (const std::optional<MutationMacro> macro = mutation_macro(spec.value)) {
    value = macros_.placeholder(*macro);
    return Status::Success;
  }
  // A virtual macro, "${$document...}" (decoding admitted no other): what a lookup of the
  // virtual XATTR path between "${ and }" answers about the document as read.
  constexpr std::string_view kOpen = "\"${";
  constexpr std::string_view kClose = "}\"";
  const std::string_view path =
      spec.value.substr(kOpen.size(), spec.value.size() - kOpen.size() - kClose.size());
  const subdoc::Spec lookup{
      .op = SpecOp::Get, .path_flags = subdoc::kPathXattr, .path = path, .value = {}};
  if (doc.lookup(lookup, value) != Status::Success) {
    return Status::SubdocXattrUnknownVattrMacro;
  }
  return Status::Success;
}

std::string_view MutationApplier::current_body(const SubdocDocument& doc) const {
  switch (body_) {
    case Body::Stored: return doc.body();
    case Body::Text: return body_text_;
    case Body::Empty: return {};
  }
  return {};
}

Status MutationApplier::build_value(SubdocDocument& doc) {
  attributes_.clear();
  if (xattrs_changed_) {
    // The object's members are the attributes; load() and the key rules keep its member
    // names plain (nothing escaped), so they are the keys as stored.
    if (doc.xattrs_json().members(members_) != Status::Success) return Status::Einternal;
    for (const auto& member : members_) attributes_.push_back({member.key, member.value});
  } else {
    const std::span<const xattr::Attribute> stored = doc.attributes();
    attributes_.assign(stored.begin(), stored.end());
  }
  if (delete_body_) {
    // A removed document keeps only its system attributes, as a plain DELETE's tombstone.
    std::erase_if(attributes_,
                  [](const xattr::Attribute& a) { return !xattr::is_system_key(a.key); });
  }

  const std::string_view body = current_body(doc);
  value_.clear();
  xattr::append_section(attributes_, value_);
  const size_t section_bytes = value_.size();
  value_.append(body);

  if (macros_.used()) {
    macros_.locate(std::string_view(value_).substr(0, section_bytes));
    // The CRC is of the body, known now; the CAS and seqno wait for the engine.
    if (macros_.uses(MutationMacro::ValueCrc32c)) {
      macros_.fill_value_crc32c(std::span(value_.data(), value_.size()), crc32c(body));
    }
  }

  plan_.value = value_;
  plan_.section_bytes = section_bytes;
  plan_.datatype = static_cast<uint8_t>((section_bytes > 0 ? protocol::datatype::kXattr : 0) |
                                        (body_is_json_ && !body.empty() ? protocol::datatype::kJson : 0));
  return Status::Success;
}

}  // namespace tern::commands
