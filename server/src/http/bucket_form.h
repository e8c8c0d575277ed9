#pragma once
// A bucket's settings as the management port takes them: the form fields the SDKs' bucket
// managers send (name, bucketType, ramQuotaMB, replicaNumber, evictionPolicy, flushEnabled,
// maxTTL, durabilityMinLevel), checked with Couchbase's messages. Fields this node has no use
// for (compressionMode, conflictResolutionType=seqno, replicaIndex, ...) are accepted and
// ignored, as a one-node cluster would.

#include <map>
#include <optional>
#include <string>

#include "config/file_config.h"
#include "http/form.h"

namespace tern::http {

// Field -> Couchbase's message for it; what {"errors":{...}} lists.
using FieldErrors = std::map<std::string, std::string>;

// Settings for a new bucket (`current` null), or `current` with the form's changes. Sets
// `errors` (and returns nullopt) for every field that is refused.
std::optional<config::BucketSpec> bucket_spec_from_form(const Form& form,
                                                        const config::BucketSpec* current,
                                                        FieldErrors& errors);

// Couchbase's names for the settings, as GET answers them.
const char* bucket_type_name(config::BucketType type);  // "membase" or "ephemeral"
const char* eviction_policy_name(const config::BucketSpec& spec);

}  // namespace tern::http
