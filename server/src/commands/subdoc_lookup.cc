// The sub-document lookups: SUBDOC_GET, SUBDOC_EXISTS, SUBDOC_GET_COUNT (one path each) and
// SUBDOC_MULTI_LOOKUP (up to 16 specs, which is what every lookupIn of the official SDKs
// sends). Each spec is a lookup on the document's view (subdoc_document.h); this file only
// shapes the answers, as Couchbase does (kv_engine daemon/subdocument.cc):
// - no document (or only a tombstone without AccessDeleted): KeyEnoent, no body;
// - single path: Success with the value (datatype JSON for GET and GET_COUNT, raw for a GET
//   flagged BinaryValue, no value for EXISTS) and the document's CAS; a failing spec's
//   status is the answer's, with no body;
// - multi path: per spec, in request order, status u16, value length u32, value (raw
//   datatype); the answer's status is Success when every spec succeeded, else
//   SubdocMultiPathFailure, and the CAS is the document's either way;
// - a tombstone read with AccessDeleted turns Success into SubdocSuccessDeleted and
//   SubdocMultiPathFailure into SubdocMultiPathFailureDeleted, so the client knows.
// The CAS is what a read reports: kLockedCas while the document is locked, as GET.
#include <string>

#include "commands/background_fetch.h"
#include "commands/command.h"
#include "commands/subdoc_command.h"
#include "commands/subdoc_document.h"
#include "protocol/codec.h"
#include "protocol/datatype.h"

namespace tern::commands {

namespace {

using protocol::Status;

// What one thread reuses from request to request: the view (its buffers) and the answer.
struct LookupBuffers {
  subdoc::Request request;
  SubdocDocument document;
  std::string body;
};

LookupBuffers& lookup_buffers() {
  thread_local LookupBuffers buffers;
  return buffers;
}

Status success_status(const SubdocDocument& document) {
  return document.deleted() ? Status::SubdocSuccessDeleted : Status::Success;
}

void answer_single(const Command& cmd, const subdoc::Spec& spec, SubdocDocument& document) {
  std::string_view value;
  const Status status = document.lookup(spec, value);
  if (status != Status::Success) {
    cmd.reply.error(status);
    return;
  }
  const bool json = spec.op != subdoc::SpecOp::Exists && !spec.binary_value();
  cmd.reply.success(ReplyBody{.value = value,
                              .datatype = json ? protocol::datatype::kJson : uint8_t{0},
                              .cas = document.reported_cas()},
                    success_status(document));
}

void append_result(std::string& body, Status status, std::string_view value) {
  uint8_t header[6];
  protocol::store_be16(header, static_cast<uint16_t>(status));
  protocol::store_be32(header + 2, static_cast<uint32_t>(value.size()));
  body.append(reinterpret_cast<const char*>(header), sizeof header);
  body.append(value);
}

void answer_multi(const Command& cmd, const subdoc::Request& request, SubdocDocument& document,
                  std::string& body) {
  body.clear();
  bool all_succeeded = true;
  for (const subdoc::Spec& spec : request.spec_list()) {
    std::string_view value;
    const Status status = document.lookup(spec, value);
    all_succeeded = all_succeeded && status == Status::Success;
    // Copied at once: the next spec may rebuild what `value` points into.
    append_result(body, status, status == Status::Success ? value : std::string_view{});
  }
  Status status = success_status(document);
  if (!all_succeeded) {
    status = document.deleted() ? Status::SubdocMultiPathFailureDeleted
                                : Status::SubdocMultiPathFailure;
  }
  cmd.reply.success(ReplyBody{.value = body, .cas = document.reported_cas()}, status);
}

uint64_t vbucket_uuid(const Command& cmd) {
  const engine::VBucket* vbucket = cmd.bucket().vbucket(cmd.vbucket_id());
  return vbucket != nullptr ? vbucket->uuid() : 0;
}

}  // namespace

Outcome subdoc_lookup(const Command& cmd) {
  LookupBuffers& buffers = lookup_buffers();
  // The view keeps its buffers, not the document (the engine may free it), whatever happens.
  struct Release {
    SubdocDocument& document;
    ~Release() { document.release(); }
  } release{buffers.document};
  subdoc::Request& request = buffers.request;
  Status status = decode_subdoc_command(cmd, request);
  if (status == Status::Success) {
    bool evicted = false;
    status = read_subdoc_document(cmd.documents(), cmd.key(), request, cmd.request.cas,
                                  vbucket_uuid(cmd), buffers.document, evicted);
    if (evicted) return fetch_and_run_again(cmd);
  }
  if (status != Status::Success) {
    cmd.reply.error(status);
  } else if (request.multi) {
    answer_multi(cmd, request, buffers.document, buffers.body);
  } else {
    answer_single(cmd, request.specs[0], buffers.document);
  }
  return Outcome::Continue;
}

}  // namespace tern::commands
