// GET_COLLECTIONS_MANIFEST, GET_COLLECTION_ID, GET_SCOPE_ID: how clients learn the ids their
// keys are prefixed with. The path comes in the value (the SDKs) or the key (older tools).
#include "commands/command.h"
#include "protocol/codec.h"
#include "protocol/datatype.h"

namespace tern::commands {

using protocol::Status;

namespace {

std::string_view path_of(const Command& cmd) {
  return cmd.request.value.empty() ? Command::as_text(cmd.request.key) : cmd.value();
}

// Answers a lookup in `manifest`: extras are the manifest uid and, for a collection, the id
// (u32); for a scope, the id too (u32). Unknown ones carry the manifest uid, so clients know
// how current the answer is. The manifest may change meanwhile: the caller reads it once, so
// that the uid is the one the lookup was made in.
Outcome answer_lookup(const Command& cmd, const cluster::CollectionsManifest& manifest,
                      const cluster::PathLookup& lookup) {
  if (lookup.status != Status::Success) {
    if (lookup.status == Status::UnknownCollection || lookup.status == Status::UnknownScope) {
      cmd.reply.error_with_manifest_uid(lookup.status, manifest.uid());
    } else {
      cmd.reply.error(lookup.status);
    }
    return Outcome::Continue;
  }
  uint8_t extras[12];
  protocol::store_be64(extras, manifest.uid());
  protocol::store_be32(extras + 8, lookup.id);
  cmd.reply.success(ReplyBody{.extras = extras});
  return Outcome::Continue;
}

}  // namespace

Outcome get_collections_manifest(const Command& cmd) {
  const std::string json = cmd.bucket().manifest().json();
  cmd.reply.success(ReplyBody{.value = json, .datatype = protocol::datatype::kJson});
  return Outcome::Continue;
}

Outcome get_collection_id(const Command& cmd) {
  const cluster::CollectionsManifest& manifest = cmd.bucket().manifest();
  return answer_lookup(cmd, manifest, manifest.lookup_collection(path_of(cmd)));
}

Outcome get_scope_id(const Command& cmd) {
  const cluster::CollectionsManifest& manifest = cmd.bucket().manifest();
  return answer_lookup(cmd, manifest, manifest.lookup_scope(path_of(cmd)));
}

}  // namespace tern::commands
