#pragma once
// The management port's routing table: each route is a method, a path pattern (a regex, as
// cpp-httplib matches them) and who may call it. Every route but the console's static
// assets checks HTTP Basic auth first (401 without it), then the route's access (403, with
// the permission Couchbase would name), and only then runs its handler, so a handler never
// sees an unauthenticated or unauthorised request.
//
// Built once, before the server starts; handlers run on the HTTP server's own threads, many
// at once, so they must be thread-safe.

#include <httplib.h>

#include <functional>
#include <string>

#include "commands/node.h"
#include "http/caller.h"

namespace tern::http {

enum class Level {
  Authenticated,  // any known user
  ReadBucket,     // admin, or a user granted the bucket named by the pattern's first capture
  ReadAny,        // admin, or a user granted some bucket
  Admin,          // admin only: every change
};

// Who may call a route, and what a refusal names: Couchbase's permission text, where
// "{bucket}" stands for the first capture, e.g. "cluster.bucket[{bucket}].settings!read".
struct Access {
  Level level;
  std::string permission;
};

using Handler = std::function<void(const httplib::Request&, httplib::Response&, const Caller&)>;

class Routes {
 public:
  // `server` and `node` must outlive the routes' use.
  Routes(httplib::Server& server, const commands::Node& node);

  void get(const std::string& pattern, Access access, Handler handler);
  void post(const std::string& pattern, Access access, Handler handler);
  void put(const std::string& pattern, Access access, Handler handler);
  void del(const std::string& pattern, Access access, Handler handler);

  // An unauthenticated GET: the console's static assets only, which hold no data.
  void get_public(const std::string& pattern, httplib::Server::Handler handler);

 private:
  httplib::Server::Handler guarded(Access access, Handler handler) const;

  httplib::Server& server_;
  const commands::Node& node_;
};

}  // namespace tern::http
