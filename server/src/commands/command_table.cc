#include "commands/command_table.h"

#include <array>

namespace tern::commands {

namespace {

using protocol::Opcode;
using K = KeyRule;
using A = Access;
constexpr uint8_t X = kExtrasCheckedByHandler;

constexpr CommandSpec kCommands[] = {
    // opcode                  extras    key           value  mutation access   handler
    {Opcode::Get,              {0, 0},   K::Required,  false, false, A::Document, get},
    {Opcode::GetK,             {0, 0},   K::Required,  false, false, A::Document, get},
    {Opcode::Gat,              {4, 4},   K::Required,  false, false, A::Document, get_and_touch},
    {Opcode::Touch,            {4, 4},   K::Required,  false, false, A::Document, touch},
    {Opcode::GetLocked,        {0, 4},   K::Required,  false, false, A::Document, get_locked},
    {Opcode::UnlockKey,        {0, 0},   K::Required,  false, false, A::Document, unlock},
    {Opcode::GetMeta,          {0, 1},   K::Required,  false, false, A::Document, get_meta},
    {Opcode::GetReplica,       {0, 0},   K::Required,  false, false, A::ReplicaDocument, get_replica},
    {Opcode::Set,              {8, 8},   K::Required,  true,  true,  A::Document, store},
    {Opcode::Add,              {8, 8},   K::Required,  true,  true,  A::Document, store},
    {Opcode::Replace,          {8, 8},   K::Required,  true,  true,  A::Document, store},
    {Opcode::Append,           {0, 0},   K::Required,  true,  true,  A::Document, concat},
    {Opcode::Prepend,          {0, 0},   K::Required,  true,  true,  A::Document, concat},
    {Opcode::Delete,           {0, 0},   K::Required,  false, true,  A::Document, remove},
    {Opcode::Increment,        {20, 20}, K::Required,  false, true,  A::Document, arithmetic},
    {Opcode::Decrement,        {20, 20}, K::Required,  false, true,  A::Document, arithmetic},
    // Sub-document: the value carries the path(s); decode_request checks the exact extras
    // forms (single-path 3/4/7/8/11/12 bytes, multi-path 0/1/4/5/8/9).
    {Opcode::SubdocGet,        {3, X},   K::Required,  true,  false, A::Document, subdoc_lookup},
    {Opcode::SubdocExists,     {3, X},   K::Required,  true,  false, A::Document, subdoc_lookup},
    {Opcode::SubdocGetCount,   {3, X},   K::Required,  true,  false, A::Document, subdoc_lookup},
    {Opcode::SubdocMultiLookup, {0, X},  K::Required,  true,  false, A::Document, subdoc_lookup},
    {Opcode::SubdocDictAdd,    {3, X},   K::Required,  true,  true,  A::Document, subdoc_mutation},
    {Opcode::SubdocDictUpsert, {3, X},   K::Required,  true,  true,  A::Document, subdoc_mutation},
    {Opcode::SubdocDelete,     {3, X},   K::Required,  true,  true,  A::Document, subdoc_mutation},
    {Opcode::SubdocReplace,    {3, X},   K::Required,  true,  true,  A::Document, subdoc_mutation},
    {Opcode::SubdocArrayPushLast, {3, X}, K::Required, true,  true,  A::Document, subdoc_mutation},
    {Opcode::SubdocArrayPushFirst, {3, X}, K::Required, true, true,  A::Document, subdoc_mutation},
    {Opcode::SubdocArrayInsert, {3, X},  K::Required,  true,  true,  A::Document, subdoc_mutation},
    {Opcode::SubdocArrayAddUnique, {3, X}, K::Required, true, true,  A::Document, subdoc_mutation},
    {Opcode::SubdocCounter,    {3, X},   K::Required,  true,  true,  A::Document, subdoc_mutation},
    {Opcode::SubdocMultiMutation, {0, X}, K::Required, true,  true,  A::Document, subdoc_mutation},
    // Range scans: the create's value is its JSON configuration; a continue's extras are the
    // scan's id and three limits, a cancel's the id.
    {Opcode::RangeScanCreate,  {0, 0},   K::Forbidden, true,  false, A::Bucket, range_scan_create},
    {Opcode::RangeScanContinue, {28, 28}, K::Forbidden, false, false, A::Bucket, range_scan_continue},
    {Opcode::RangeScanCancel,  {16, 16}, K::Forbidden, false, false, A::Bucket, range_scan_cancel},
    {Opcode::Flush,            {0, 4},   K::Forbidden, false, false, A::Bucket, flush},
    {Opcode::ObserveSeqno,     {0, 0},   K::Forbidden, true,  false, A::Bucket, observe_seqno},
    {Opcode::GetCollectionsManifest, {0, 0}, K::Forbidden, false, false, A::Bucket, get_collections_manifest},
    {Opcode::GetCollectionId,  {0, 0},   K::Optional,  true,  false, A::Bucket, get_collection_id},
    {Opcode::GetScopeId,       {0, 0},   K::Optional,  true,  false, A::Bucket, get_scope_id},
    {Opcode::Noop,             {0, 0},   K::Forbidden, false, false, A::Anyone, noop},
    {Opcode::Version,          {0, 0},   K::Forbidden, false, false, A::Anyone, version},
    {Opcode::Quit,             {0, 0},   K::Forbidden, false, false, A::Anyone, quit},
    {Opcode::Hello,            {0, 0},   K::Optional,  true,  false, A::Anyone, hello},
    {Opcode::GetErrorMap,      {0, 0},   K::Forbidden, true,  false, A::Anyone, get_error_map},
    {Opcode::SaslListMechs,    {0, 0},   K::Forbidden, false, false, A::Anyone, sasl_list_mechs},
    {Opcode::SaslAuth,         {0, 0},   K::Required,  true,  false, A::Anyone, sasl_auth},
    {Opcode::SaslStep,         {0, 0},   K::Required,  true,  false, A::Anyone, sasl_step},
    {Opcode::SelectBucket,     {0, 0},   K::Optional,  false, false, A::Authenticated, select_bucket},
    {Opcode::Stat,             {0, 0},   K::Optional,  false, false, A::Authenticated, stat},
    {Opcode::GetClusterConfig, {0, 16},  K::Forbidden, false, false, A::Authenticated, get_cluster_config},
    {Opcode::SetClusterConfig, {0, 16},  K::Optional,  true,  false, A::Admin, set_cluster_config},
    {Opcode::SetVbucket,       {1, 4},   K::Forbidden, true,  false, A::Admin, set_vbucket},
    {Opcode::GetVbucket,       {0, 0},   K::Forbidden, false, false, A::Admin, get_vbucket},
};

// Every request looks up its command, so the table is spread into an array indexed by
// opcode once.
std::array<const CommandSpec*, 256> make_index() {
  std::array<const CommandSpec*, 256> index{};
  for (const CommandSpec& spec : kCommands) index[static_cast<uint8_t>(spec.opcode)] = &spec;
  return index;
}

const std::array<const CommandSpec*, 256> kIndex = make_index();

}  // namespace

const CommandSpec* find_command(protocol::Opcode loud) {
  return kIndex[static_cast<uint8_t>(loud)];
}

}  // namespace tern::commands
