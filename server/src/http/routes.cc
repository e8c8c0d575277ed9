#include "http/routes.h"

#include <optional>
#include <utility>

#include "http/answer.h"
#include "http/basic_auth.h"
#include "http/certificate_auth.h"

namespace tern::http {

namespace {

// Couchbase's console sends this header so that a wrong password does not make the browser
// pop up its own login dialog; other clients get the usual challenge.
bool from_console(const httplib::Request& req) {
  return req.get_header_value("ns-server-ui") == "yes";
}

void answer_unauthorized(const httplib::Request& req, httplib::Response& res) {
  res.status = 401;
  if (!from_console(req)) {
    res.set_header("WWW-Authenticate", "Basic realm=\"Couchbase Server Admin / REST\"");
  }
}

bool allowed(const Caller& caller, Level level, const httplib::Request& req) {
  switch (level) {
    case Level::Authenticated:
      return true;
    case Level::ReadBucket:
      return req.matches.size() > 1 && caller.may_read(req.matches[1].str());
    case Level::ReadAny:
      return caller.may_read_any();
    case Level::Admin:
      return caller.admin;
  }
  return false;
}

std::string permission_text(std::string permission, const httplib::Request& req) {
  const size_t at = permission.find("{bucket}");
  if (at != std::string::npos && req.matches.size() > 1) {
    permission.replace(at, 8, req.matches[1].str());
  }
  return permission;
}

// A route that changes something, as a handler that reads the request's body itself. The
// official SDKs POST doFlush with neither Content-Length nor Transfer-Encoding: such an HTTP/1.1
// request has no body (RFC 9112, 6.3), but cpp-httplib 0.11 reads one until the connection
// closes, i.e. until its read timeout, and then answers 400.
httplib::Server::HandlerWithContentReader reading_body(httplib::Server::Handler handler) {
  return [handler = std::move(handler)](const httplib::Request& req, httplib::Response& res,
                                        const httplib::ContentReader& read_body) {
    httplib::Request request = req;  // req.matches still point into req.path, which outlives it
    if (req.has_header("Content-Length") || req.has_header("Transfer-Encoding")) {
      const bool whole = read_body([&request](const char* data, size_t size) {
        request.body.append(data, size);
        return true;
      });
      if (!whole) return;  // over the limit (413) or cut short (400): httplib set the status
    }
    handler(request, res);
  };
}

}  // namespace

Routes::Routes(httplib::Server& server, const commands::Node& node)
    : server_(server), node_(node) {}

httplib::Server::Handler Routes::guarded(Access access, Handler handler) const {
  return [&node = node_, access = std::move(access), handler = std::move(handler)](
             const httplib::Request& req, httplib::Response& res) {
    std::optional<Caller> caller = authenticate_basic(node.users(), node.settings().open_access,
                                                      req.get_header_value("Authorization"));
    // Over HTTPS, a client certificate logs its user in when no password did.
    if (!caller && req.ssl != nullptr) caller = authenticate_certificate(node.users(), *req.ssl);
    if (!caller) return answer_unauthorized(req, res);
    if (!allowed(*caller, access.level, req)) {
      return answer_json(res, 403,
                         "{\"message\":\"Forbidden. User needs the following permissions\","
                         "\"permissions\":[" +
                             json_string(permission_text(access.permission, req)) + "]}");
    }
    handler(req, res, *caller);
  };
}

void Routes::get(const std::string& pattern, Access access, Handler handler) {
  server_.Get(pattern, guarded(std::move(access), std::move(handler)));
}

void Routes::post(const std::string& pattern, Access access, Handler handler) {
  server_.Post(pattern, reading_body(guarded(std::move(access), std::move(handler))));
}

void Routes::put(const std::string& pattern, Access access, Handler handler) {
  server_.Put(pattern, reading_body(guarded(std::move(access), std::move(handler))));
}

void Routes::del(const std::string& pattern, Access access, Handler handler) {
  server_.Delete(pattern, guarded(std::move(access), std::move(handler)));
}

void Routes::get_public(const std::string& pattern, httplib::Server::Handler handler) {
  server_.Get(pattern, std::move(handler));
}

}  // namespace tern::http
