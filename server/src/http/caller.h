#pragma once
// Who sent a management request, once HTTP Basic auth has checked the password against the
// KV port's users (the same SCRAM credentials, checked as SASL PLAIN checks them).

#include <string>
#include <string_view>

#include "auth/user.h"

namespace tern::http {

struct Caller {
  std::string user;  // empty when the node is open (no config file): everyone is admin there
  bool admin = false;
  const auth::User* account = nullptr;  // null when the node is open

  // Whether the caller may read `bucket`: admin, or the bucket is granted (or "*").
  bool may_read(std::string_view bucket) const {
    return admin || (account != nullptr && account->may_use(bucket));
  }
  // Whether any bucket is granted: what /metrics asks of a user who is not admin.
  bool may_read_any() const { return admin || (account != nullptr && !account->buckets.empty()); }
};

}  // namespace tern::http
