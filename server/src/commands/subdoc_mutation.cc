// The sub-document mutations: the single-path SUBDOC_DICT_ADD ... SUBDOC_COUNTER and
// SUBDOC_MULTI_MUTATION. Each request reads its document, computes the whole new value
// (subdoc_apply.h) and publishes it only if the key still holds what was read, as Couchbase
// does (kv_engine daemon/subdocument.cc):
// - the document: missing answers KeyEnoent unless Mkdoc or Add creates it; Add answers
//   KeyEexists when it finds one (a tombstone too, when read with AccessDeleted); Revive
//   answers SubdocCanOnlyReviveDeletedDocuments on a live one; a request CAS must match
//   (KeyEexists) and a locked document takes only its lock's CAS (Locked);
// - a spec that fails writes nothing. A single-path request answers with its status; a
//   multi-path one with SubdocMultiPathFailure and a body naming the first failing spec:
//   index u8, status u16;
// - a request without a CAS that loses a race with another writer reads again and starts
//   over, up to 100 times, then answers Etmpfail; one with a CAS answers KeyEexists;
// - success answers the new CAS and seqno token, with SubdocSuccessDeleted instead of
//   Success when the document was (and stays) a tombstone. A single-path Counter's answer
//   is its new value (JSON); a multi-path answer carries, per spec that returns a value
//   (Counter), index u8, status u16 (0), length u32, value.
// - without PreserveTtl the document takes the request's expiry (none: it never expires),
//   as every Couchbase mutation does; its flags are the request's when it carries some
//   (after the expiry in its extras), else they are kept.
#include <string>

#include "commands/background_fetch.h"
#include "commands/command.h"
#include "commands/durable_reply.h"
#include "commands/subdoc_apply.h"
#include "commands/subdoc_command.h"
#include "commands/subdoc_document.h"
#include "engine/vbucket.h"
#include "protocol/codec.h"
#include "protocol/datatype.h"

namespace tern::commands {

using protocol::Status;

namespace {

// Couchbase's cb::limits::SubdocMaxAutoRetries.
constexpr int kMaxAttempts = 100;

// What the handler reuses from one request to the next on its thread.
struct MutationScratch {
  SubdocDocument doc;
  MutationApplier applier;
  std::string answer;
};

// This thread's scratch, for one request: the view lets go of the document it read when the
// request ends, so an idle thread keeps no item alive.
class ScratchLease {
 public:
  ScratchLease() : scratch_(instance()) {}
  ~ScratchLease() { scratch_.doc.release(); }
  ScratchLease(const ScratchLease&) = delete;
  ScratchLease& operator=(const ScratchLease&) = delete;
  MutationScratch* operator->() const { return &scratch_; }

 private:
  static MutationScratch& instance() {
    thread_local MutationScratch scratch;
    return scratch;
  }
  MutationScratch& scratch_;
};

// Why the document as read cannot be mutated (Success when it can). `read` is what
// read_subdoc_document answered.
Status check_document(Status read, const subdoc::Request& request, const SubdocDocument& doc) {
  if (read == Status::KeyEnoent) {
    const bool creates = request.has(subdoc::kDocMkdoc) || request.has(subdoc::kDocAdd);
    return creates ? Status::Success : Status::KeyEnoent;
  }
  if (read != Status::Success) return read;
  if (request.has(subdoc::kDocAdd)) return Status::KeyEexists;
  if (request.has(subdoc::kDocReviveDocument) && !doc.deleted()) {
    return Status::SubdocCanOnlyReviveDeletedDocuments;
  }
  return Status::Success;
}

void answer_failure(const Command& cmd, const subdoc::Request& request, const MutationPlan& plan,
                    std::string& answer) {
  if (!request.multi || plan.failed_spec < 0) {
    cmd.reply.error(plan.status);
    return;
  }
  uint8_t failure[3];
  failure[0] = static_cast<uint8_t>(plan.failed_spec);
  protocol::store_be16(failure + 1, static_cast<uint16_t>(plan.status));
  answer.assign(reinterpret_cast<const char*>(failure), sizeof failure);
  cmd.reply.append(Status::SubdocMultiPathFailure, ReplyBody{.value = answer});
}

Outcome answer_success(const Command& cmd, const subdoc::Request& request,
                       const MutationPlan& plan, const engine::MutationResult& written,
                       std::string& answer) {
  const Status status = plan.reports_deleted ? Status::SubdocSuccessDeleted : Status::Success;
  if (!request.multi) {
    const std::string_view value = plan.results[0];
    return succeed_mutation(
        cmd, written.cas,
        ReplyBody{.value = value,
                  .datatype = value.empty() ? uint8_t{0} : protocol::datatype::kJson,
                  .cas = written.cas,
                  .seqno = written.seqno},
        status);
  }
  answer.clear();
  for (size_t i = 0; i < request.spec_count; ++i) {
    const std::string_view value = plan.results[i];
    if (value.empty()) continue;
    uint8_t header[7];
    header[0] = static_cast<uint8_t>(i);
    protocol::store_be16(header + 1, static_cast<uint16_t>(Status::Success));
    protocol::store_be32(header + 3, static_cast<uint32_t>(value.size()));
    answer.append(reinterpret_cast<const char*>(header), sizeof header);
    answer.append(value);
  }
  return succeed_mutation(
      cmd, written.cas, ReplyBody{.value = answer, .cas = written.cas, .seqno = written.seqno},
      status);
}

}  // namespace

Outcome subdoc_mutation(const Command& cmd) {
  subdoc::Request request;
  const Status decoded = decode_subdoc_command(cmd, request);
  if (decoded != Status::Success) {
    cmd.reply.error(decoded);
    return Outcome::Continue;
  }

  const ScratchLease reused;
  SubdocDocument& doc = reused->doc;
  MutationApplier& applier = reused->applier;
  engine::Engine& engine = cmd.documents();
  const uint64_t request_cas = cmd.request.cas;
  const uint64_t vbucket_uuid = cmd.vbucket != nullptr ? cmd.vbucket->uuid() : 0;

  for (int attempt = 1;; ++attempt) {
    bool evicted = false;
    const Status read = read_subdoc_document(engine, cmd.key(), request, request_cas,
                                             vbucket_uuid, doc, evicted);
    if (evicted) return fetch_and_run_again(cmd);
    const Status usable = check_document(read, request, doc);
    if (usable != Status::Success) {
      cmd.reply.error(usable);
      return Outcome::Continue;
    }

    const MutationPlan& plan = applier.run(doc, request);
    if (plan.status != Status::Success) {
      answer_failure(cmd, request, plan, reused->answer);
      return Outcome::Continue;
    }

    engine::DocumentWrite write{
        .value = plan.value,
        .datatype = plan.datatype,
        .flags = request.has_user_flags ? request.user_flags
                 : doc.exists()         ? doc.item()->flags
                                        : 0,
        .expiry = request.expiry,
        .keep_expiry = cmd.preserve_ttl,
        .deleted = plan.deleted,
        // A locked document is written with the request's CAS, which the engine checks
        // against the lock's; otherwise the request's CAS matched what was read.
        .expected_cas = !doc.exists()      ? 0
                        : request_cas != 0 ? request_cas
                                           : doc.item()->cas,
        .read_deleted = request.has(subdoc::kDocAccessDeleted),
        // The ${Mutation.CAS} and ${Mutation.seqno} placeholders, filled in under the lock.
        .before_publish = nullptr,
    };
    if (applier.macros().used()) {
      const MacroExpansion& macros = applier.macros();
      write.before_publish = [&macros](std::span<char> value, uint64_t cas, uint64_t seqno) {
        macros.fill_cas_and_seqno(value, cas, seqno);
      };
    }
    const engine::MutationResult written =
        engine.write_document(cmd.key(), write, cmd.mutation_options());
    if (written.status == engine::Status::Success) {
      return answer_success(cmd, request, plan, written, reused->answer);
    }
    const bool raced = written.status == engine::Status::CasMismatch ||
                       written.status == engine::Status::Exists;
    if (raced && request_cas == 0) {
      if (attempt < kMaxAttempts) continue;
      cmd.reply.error(Status::Etmpfail);
      return Outcome::Continue;
    }
    return answer_engine_failure(cmd, written.status);
  }
}

}  // namespace tern::commands
