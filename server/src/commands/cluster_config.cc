// The cluster map: GET_CLUSTER_CONFIG, which every client polls or is pushed; and the
// cluster manager's commands, SET_CLUSTER_CONFIG and SET_VBUCKET / GET_VBUCKET, with which
// an administrator decides which vbuckets this node serves and what map clients route by.
#include <string>

#include <spdlog/spdlog.h>

#include "cluster/vbucket_state.h"
#include "commands/command.h"
#include "protocol/codec.h"
#include "protocol/datatype.h"

namespace tern::commands {

using protocol::Status;

namespace {

// The bucket a cluster-control command is about: the one its key names, else the selected
// one; nullptr after answering why there is none.
std::shared_ptr<engine::Bucket> target_bucket(const Command& cmd) {
  const std::string_view name = Command::as_text(cmd.request.key);
  std::shared_ptr<engine::Bucket> bucket =
      name.empty() ? cmd.session.bucket : cmd.node().find_bucket(name);
  if (bucket == nullptr) cmd.reply.error(name.empty() ? Status::NoBucket : Status::KeyEnoent);
  return bucket;
}

}  // namespace

Outcome get_cluster_config(const Command& cmd) {
  engine::Bucket* bucket = cmd.session.bucket.get();
  // Without a bucket, the node's own map (Couchbase's global config), once there is one.
  const auto map = bucket != nullptr ? bucket->cluster_map() : cmd.node().global_map();
  if (map == nullptr) {
    cmd.reply.error(Status::NoBucket);
    return Outcome::Continue;
  }
  if (cmd.has_extras()) {
    // The client says which map it has; one that is current gets an empty answer.
    const auto epoch = static_cast<int64_t>(protocol::load_be64(cmd.extras()));
    const auto rev = static_cast<int64_t>(protocol::load_be64(cmd.extras() + 8));
    if (!map->newer_than(epoch, rev)) {
      cmd.reply.success();
      return Outcome::Continue;
    }
  }
  cmd.reply.success(ReplyBody{.value = map->json(), .datatype = protocol::datatype::kJson});
  return Outcome::Continue;
}

Outcome set_cluster_config(const Command& cmd) {
  const std::shared_ptr<engine::Bucket> bucket = target_bucket(cmd);
  if (bucket == nullptr) return Outcome::Continue;
  std::string error;
  auto map = cluster::ClusterMap::parse(cmd.value(), error);
  if (!map) {
    spdlog::warn("{}: SET_CLUSTER_CONFIG for bucket {} refused: {}", cmd.session.peer,
                 bucket->name(), error);
    cmd.reply.error(Status::Einval);
    return Outcome::Continue;
  }
  if (map->vbucket_count() != cluster::kVBucketCount) {
    spdlog::warn("{}: SET_CLUSTER_CONFIG for bucket {} refused: {} vbuckets, not {}",
                 cmd.session.peer, bucket->name(), map->vbucket_count(), cluster::kVBucketCount);
    cmd.reply.error(Status::Einval);
    return Outcome::Continue;
  }
  const int64_t epoch = map->epoch();
  const int64_t rev = map->rev();
  // An older map than the current one is ignored, as kv_engine does: a late delivery must
  // not undo a newer decision.
  if (cmd.node().install_cluster_map(*bucket, std::move(*map))) {
    spdlog::info("bucket {}: cluster map epoch {} rev {} installed by {}", bucket->name(),
                 epoch, rev, cmd.session.user());
  }
  cmd.reply.success();
  return Outcome::Continue;
}

Outcome set_vbucket(const Command& cmd) {
  const std::shared_ptr<engine::Bucket> bucket = target_bucket(cmd);
  if (bucket == nullptr) return Outcome::Continue;
  const auto request =
      cluster::parse_set_vbucket(cmd.request.extras, cmd.request.value, cmd.request.datatype);
  if (!request || !bucket->set_vbucket_state(cmd.vbucket_id(), request->state)) {
    cmd.reply.error(Status::Einval);
    return Outcome::Continue;
  }
  spdlog::debug("bucket {}: vbucket {} is now {}", bucket->name(), cmd.vbucket_id(),
                cluster::vbucket_state_name(request->state));
  cmd.reply.success();
  return Outcome::Continue;
}

Outcome get_vbucket(const Command& cmd) {
  const std::shared_ptr<engine::Bucket> bucket = target_bucket(cmd);
  if (bucket == nullptr) return Outcome::Continue;
  const engine::VBucket* vbucket = bucket->vbucket(cmd.vbucket_id());
  if (vbucket == nullptr) {
    cmd.reply.error(Status::NotMyVbucket);
    return Outcome::Continue;
  }
  uint8_t state[4];
  protocol::store_be32(state, static_cast<uint32_t>(vbucket->state()));
  cmd.reply.success(ReplyBody{.value = Command::as_text(state)});
  return Outcome::Continue;
}

}  // namespace tern::commands
