#include "commands/session.h"

#include <spdlog/spdlog.h>

namespace tern::commands {

Session::Session(Node& node) : sasl(node.users(), node.settings().allow_plain_auth), node_(node) {
  bucket = node.initial_bucket();
  authenticated_ = node.settings().open_access;
  // memcached clients never say HELLO and must see what they always saw: every status, raw
  // datatypes (memcached keeps none, and the JSON bit ternd gives JSON values is for clients
  // that ask for it), and alt requests taken as they always were. A HELLO starts over.
  if (node.settings().open_access) {
    for (Feature feature : {Feature::Xerror, Feature::AltRequestSupport, Feature::SyncReplication,
                            Feature::PreserveTtl}) {
      features.add(feature);
    }
  }
}

void Session::authenticate(const auth::User& user) {
  authenticated_ = true;
  admin_ = user.admin;
  user_ = user.name;
  bucket = nullptr;
}

bool Session::authenticate_by_certificate(const std::string& user, const std::string& subject) {
  const auth::User* known = node_.users().find(user);
  if (known == nullptr) {
    spdlog::warn("{}: client certificate '{}' names no user ('{}'): connection refused", peer,
                 subject, user);
    return false;
  }
  authenticate(*known);
  spdlog::info("{} authenticated as {} by client certificate '{}'", peer, known->name, subject);
  return true;
}

}  // namespace tern::commands
