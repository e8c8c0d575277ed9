#include "http/bucket_form.h"

#include <array>
#include <string_view>

#include "config/durability_levels.h"
#include "config/names.h"

namespace tern::http {

namespace {

constexpr size_t kBytesPerMb = size_t{1024} * 1024;
constexpr int64_t kMinQuotaMb = 100;  // as Couchbase
constexpr int64_t kMaxTtl = 2147483647;


void read_type(const Form& form, config::BucketSpec& spec, bool creating, FieldErrors& errors) {
  const std::optional<std::string> type = form.text("bucketType");
  if (!type) return;
  config::BucketType chosen;
  if (*type == "couchbase" || *type == "membase") {
    chosen = config::BucketType::Couchbase;
  } else if (*type == "ephemeral") {
    chosen = config::BucketType::Ephemeral;
  } else if (*type == "memcached") {
    errors["bucketType"] = "ternd has no memcached buckets: use an ephemeral bucket";
    return;
  } else {
    errors["bucketType"] = "invalid bucket type";
    return;
  }
  if (!creating && chosen != spec.type) {
    errors["bucketType"] = "Cannot change bucket type.";
    return;
  }
  spec.type = chosen;
}

void read_eviction(const Form& form, config::BucketSpec& spec, bool creating, FieldErrors& errors) {
  const std::optional<std::string> policy = form.text("evictionPolicy");
  if (!policy) return;
  if (spec.type == config::BucketType::Ephemeral) {
    // ternd's ephemeral buckets evict the least recently used items under memory pressure,
    // as memcached does: Couchbase's nruEviction.
    if (*policy != "nruEviction") {
      errors["evictionPolicy"] =
          *policy == "noEviction"
              ? "ternd's ephemeral buckets always evict under memory pressure: use nruEviction"
              : "Eviction policy must be either 'noEviction' or 'nruEviction' for ephemeral "
                "buckets";
    }
    return;
  }
  config::EvictionPolicy chosen;
  if (*policy == "valueOnly") {
    chosen = config::EvictionPolicy::Value;
  } else if (*policy == "fullEviction") {
    chosen = config::EvictionPolicy::Full;
  } else {
    errors["evictionPolicy"] =
        "Eviction policy must be either 'valueOnly' or 'fullEviction' for couchbase buckets";
    return;
  }
  if (!creating && chosen != spec.eviction_policy) {
    errors["evictionPolicy"] = "ternd cannot change the eviction policy of a live bucket";
    return;
  }
  spec.eviction_policy = chosen;
}

void read_durability(const Form& form, config::BucketSpec& spec, FieldErrors& errors) {
  const std::optional<std::string> level = form.text("durabilityMinLevel");
  if (!level) return;
  if (!config::durability_level_number(*level)) {
    errors["durabilityMinLevel"] =
        "Durability minimum level must be either 'none', 'majority', "
        "'majorityAndPersistActive', or 'persistToMajority'";
    return;
  }
  if (spec.type == config::BucketType::Ephemeral && *level != "none" && *level != "majority") {
    errors["durabilityMinLevel"] =
        "Durability minimum level must be either 'none' or 'majority' for ephemeral buckets";
    return;
  }
  spec.durability_min_level = *level;
}

void read_numbers(const Form& form, config::BucketSpec& spec, bool creating, FieldErrors& errors) {
  std::string error;
  // Couchbase 7 names it ramQuota; the SDKs still send ramQuotaMB.
  const char* quota_field = form.has("ramQuota") ? "ramQuota" : "ramQuotaMB";
  if (const auto quota = form.integer(quota_field, 1, int64_t{config::kMaxBucketQuotaMb}, error)) {
    if (*quota < kMinQuotaMb) {
      errors["ramQuota"] = "RAM quota cannot be less than 100 MiB";
    } else {
      spec.memory_quota_bytes = static_cast<size_t>(*quota) * kBytesPerMb;
    }
  } else if (!error.empty() || creating) {
    errors["ramQuota"] = "The RAM Quota must be specified and must be a positive integer.";
    error.clear();
  }
  if (const auto replicas = form.integer("replicaNumber", 0, 3, error)) {
    if (*replicas != 0)
      errors["replicaNumber"] = "ternd keeps no replicas: replicaNumber must be 0";
  } else if (!error.empty()) {
    errors["replicaNumber"] =
        "The replica number must be specified and must be a non-negative integer.";
    error.clear();
  }
  if (const auto flush = form.integer("flushEnabled", 0, 1, error)) {
    spec.flush_enabled = *flush == 1;
  } else if (!error.empty()) {
    errors["flushEnabled"] = "flushEnabled can only be 1 or 0";
    error.clear();
  }
  if (const auto ttl = form.integer("maxTTL", 0, kMaxTtl, error)) {
    spec.max_ttl_seconds = static_cast<uint32_t>(*ttl);
  } else if (!error.empty()) {
    errors["maxTTL"] = "Max TTL must be an integer between 0 and 2147483647";
    error.clear();
  }
}

}  // namespace

std::optional<config::BucketSpec> bucket_spec_from_form(const Form& form,
                                                        const config::BucketSpec* current,
                                                        FieldErrors& errors) {
  const bool creating = current == nullptr;
  config::BucketSpec spec = creating ? config::BucketSpec{} : *current;
  if (creating) {
    const std::optional<std::string> name = form.text("name");
    if (!name || name->empty()) {
      errors["name"] = "Bucket name needs to be specified";
    } else if (config::bucket_name_problem(*name)) {
      errors["name"] =
          "Bucket name can only contain characters in range A-Z, a-z, 0-9 as well as "
          "underscore, period, dash & percent. Consult the documentation.";
    } else {
      spec.name = *name;
    }
  }
  read_type(form, spec, creating, errors);
  read_eviction(form, spec, creating, errors);
  read_numbers(form, spec, creating, errors);
  read_durability(form, spec, errors);
  if (!errors.empty()) return std::nullopt;
  return spec;
}

const char* bucket_type_name(config::BucketType type) {
  return type == config::BucketType::Ephemeral ? "ephemeral" : "membase";
}

const char* eviction_policy_name(const config::BucketSpec& spec) {
  if (spec.type == config::BucketType::Ephemeral) return "nruEviction";
  return spec.eviction_policy == config::EvictionPolicy::Full ? "fullEviction" : "valueOnly";
}

}  // namespace tern::http
