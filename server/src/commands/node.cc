#include "commands/node.h"

namespace tern::commands {

Node::Node(NodeSettings settings, std::vector<std::unique_ptr<engine::Bucket>> buckets,
           auth::UserDirectory users, const Clock& clock)
    : settings_(std::move(settings)),
      buckets_(std::move(buckets)),
      users_(std::move(users)),
      clock_(clock) {}

engine::Bucket* Node::find_bucket(std::string_view name) const {
  for (const auto& bucket : buckets_) {
    if (bucket->name() == name) return bucket.get();
  }
  return nullptr;
}

engine::Bucket* Node::initial_bucket() const {
  if (settings_.open_access) return buckets_.front().get();
  return settings_.anonymous_bucket.empty() ? nullptr : find_bucket(settings_.anonymous_bucket);
}

bool Node::install_cluster_map(engine::Bucket& bucket, cluster::ClusterMap map) {
  if (!bucket.install_cluster_map(std::move(map))) return false;
  if (map_listener_) map_listener_(bucket);
  return true;
}

void Node::set_cluster_map_listener(std::function<void(engine::Bucket&)> listener) {
  map_listener_ = std::move(listener);
}

}  // namespace tern::commands
