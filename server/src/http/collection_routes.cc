// The collection manager's routes: list, create and drop scopes and collections. Each change
// raises the bucket's manifest uid and answers {"uid":"<hex>"}; the bucket's manifest listener
// (set by ternd) then pushes the new uid in the cluster map and writes the node state file.
// Refusals carry the texts the SDKs match to typed errors (scope or collection exists or is
// not found).

#include <fmt/format.h>

#include <memory>

#include "http/answer.h"
#include "http/form.h"
#include "http/route_groups.h"

namespace tern::http {

namespace {

constexpr const char* kScopes = R"(/pools/default/buckets/([^/]+)/scopes)";
constexpr const char* kScope = R"(/pools/default/buckets/([^/]+)/scopes/([^/]+))";
constexpr const char* kCollections = R"(/pools/default/buckets/([^/]+)/scopes/([^/]+)/collections)";
constexpr const char* kCollection =
    R"(/pools/default/buckets/([^/]+)/scopes/([^/]+)/collections/([^/]+))";

const Access kRead{Level::ReadBucket, "cluster.bucket[{bucket}].collections!read"};
const Access kWrite{Level::Admin, "cluster.bucket[{bucket}].collections!write"};

struct Names {
  std::string scope;
  std::string collection;
};

Names names_of(const httplib::Request& req) {
  return {req.matches.size() > 2 ? req.matches[2].str() : "",
          req.matches.size() > 3 ? req.matches[3].str() : ""};
}

void answer_change(httplib::Response& res, const cluster::ManifestChange& change,
                   const Names& names) {
  using cluster::ManifestError;
  const std::string scope = json_string(names.scope);
  const std::string collection = json_string(names.collection);
  switch (change.error) {
    case ManifestError::None:
      return answer_json(res, 200, fmt::format("{{\"uid\":\"{:x}\"}}", change.uid));
    case ManifestError::InvalidName:
      return answer_field_error(
          res, 400, "name",
          "Can only contain alphanumeric characters and '_', '-' or '%', must not start with "
          "'_' or '%' and must be 1 to 251 characters long");
    case ManifestError::ScopeExists:
      return answer_field_error(res, 400, "_",
                                fmt::format("Scope with name {} already exists", scope));
    case ManifestError::ScopeNotFound:
      return answer_field_error(res, 404, "_",
                                fmt::format("Scope with name {} is not found", scope));
    case ManifestError::CollectionExists:
      return answer_field_error(
          res, 400, "_",
          fmt::format("Collection with name {} in scope {} already exists", collection, scope));
    case ManifestError::CollectionNotFound:
      return answer_field_error(
          res, 404, "_",
          fmt::format("Collection with name {} in scope {} is not found", collection, scope));
    case ManifestError::LimitReached:
      return answer_field_error(res, 400, "_",
                                "Maximum number of scopes or collections has been reached");
    case ManifestError::DefaultScopeUndroppable:
      return answer_field_error(res, 400, "_", "Deleting _default scope is not allowed");
    case ManifestError::InvalidMaxTtl:
      return answer_field_error(res, 400, "maxTTL",
                                "Max TTL must be an integer between -1 and 2147483647");
  }
}

// The bucket the path names, or null after answering 404.
std::shared_ptr<engine::Bucket> bucket_or_404(const httplib::Request& req, httplib::Response& res,
                                              const MgmtContext& context) {
  std::shared_ptr<engine::Bucket> bucket = context.node.find_bucket(req.matches[1].str());
  if (!bucket) answer_not_found(res);
  return bucket;
}

void create_collection(const httplib::Request& req, httplib::Response& res,
                       const MgmtContext& context) {
  const std::shared_ptr<engine::Bucket> bucket = bucket_or_404(req, res, context);
  if (!bucket) return;
  const std::optional<Form> form = Form::parse_or_answer(req, res);
  if (!form) return;
  Names names = names_of(req);
  names.collection = form->text("name").value_or("");
  // history is a Magma bucket's (change history for CDC); ternd keeps none.
  if (form->text("history").value_or("false") != "false") {
    return answer_field_error(res, 400, "history", "Not allowed on this type of bucket");
  }
  std::string error;
  const std::optional<int64_t> max_ttl =
      form->integer("maxTTL", -1, cluster::CollectionsManifest::kMaxTtlSeconds, error);
  if (!error.empty()) return answer_field_error(res, 400, "maxTTL", error);
  if (max_ttl == -1 && bucket->documents().max_ttl() != 0) {
    // Couchbase 7.6's "never expire, whatever the bucket's maxTTL": without a bucket maxTTL
    // that is what 0 means; with one, ternd has no way to exempt a collection yet.
    return answer_field_error(res, 400, "maxTTL",
                              "ternd cannot exempt a collection from its bucket's maxTTL "
                              "(maxTTL=-1): create it with maxTTL 0 or a number of seconds");
  }
  std::optional<uint32_t> ttl;
  if (max_ttl && *max_ttl > 0) ttl = static_cast<uint32_t>(*max_ttl);
  answer_change(res, bucket->create_collection(names.scope, names.collection, ttl), names);
}

}  // namespace

void add_collection_routes(Routes& routes, MgmtContext& context) {
  routes.get(kScopes, kRead,
             [&context](const httplib::Request& req, httplib::Response& res, const Caller&) {
               const auto bucket = bucket_or_404(req, res, context);
               if (bucket) answer_json(res, 200, bucket->manifest().rest_json());
             });
  routes.post(kScopes, kWrite,
              [&context](const httplib::Request& req, httplib::Response& res, const Caller&) {
                const auto bucket = bucket_or_404(req, res, context);
                if (!bucket) return;
                const std::optional<Form> form = Form::parse_or_answer(req, res);
                if (!form) return;
                const Names names{form->text("name").value_or(""), ""};
                answer_change(res, bucket->create_scope(names.scope), names);
              });
  routes.del(kScope, kWrite,
             [&context](const httplib::Request& req, httplib::Response& res, const Caller&) {
               const auto bucket = bucket_or_404(req, res, context);
               if (!bucket) return;
               const Names names = names_of(req);
               answer_change(res, bucket->drop_scope(names.scope), names);
             });
  routes.post(kCollections, kWrite,
              [&context](const httplib::Request& req, httplib::Response& res, const Caller&) {
                create_collection(req, res, context);
              });
  routes.del(kCollection, kWrite,
             [&context](const httplib::Request& req, httplib::Response& res, const Caller&) {
               const auto bucket = bucket_or_404(req, res, context);
               if (!bucket) return;
               const Names names = names_of(req);
               answer_change(res, bucket->drop_collection(names.scope, names.collection), names);
             });
}

}  // namespace tern::http
