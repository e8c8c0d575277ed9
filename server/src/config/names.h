#pragma once
// The names Couchbase accepts for buckets, scopes, collections and users. A name it would
// refuse could not be addressed the same way through an SDK or a real cluster, so the
// configuration refuses it too. Each check returns nullopt for a good name, else the rule
// the name breaks, worded to follow the name in an error message.

#include <optional>
#include <string>
#include <string_view>

#include "cluster/collection_names.h"

namespace tern::config {

// 1-100 characters of A-Z a-z 0-9 . _ % -, not starting with '.'.
std::optional<std::string> bucket_name_problem(std::string_view name);

// Scope and collection names: the cluster's rule, which creating them over HTTP follows too.
using cluster::scope_or_collection_name_problem;

// 1-128 characters (UTF-8 code points), none of them a space, a control character or one of
// ( ) < > @ , ; : \ " / [ ] ? = { } (they would clash with HTTP and SASL syntax).
std::optional<std::string> user_name_problem(std::string_view name);

}  // namespace tern::config
