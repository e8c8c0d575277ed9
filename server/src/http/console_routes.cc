// The web console: / and /ui redirect to /ui/, and /ui/<path> answers the embedded asset
// (ui/assets.h) with its Content-Type. The assets are public, as Couchbase's console's are:
// they hold no data, and every data request the page makes carries the user's login.

#include <string>

#include "http/answer.h"
#include "http/route_groups.h"
#include "ui/assets.h"

namespace tern::http {

namespace {

// The page loads only its own scripts, styles and data (no inline script, no other origin):
// a document's text shown in the editor can never run. uPlot sizes its elements with style
// attributes, hence 'unsafe-inline' for styles alone.
constexpr char kPagePolicy[] =
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; "
    "form-action 'none'";

void answer_asset(const ui::Asset& asset, httplib::Response& res) {
  // no-cache: the browser asks again (the files are small) and so never mixes the page of
  // one ternd build with the scripts of another.
  res.set_header("Cache-Control", "no-cache");
  res.set_header("X-Content-Type-Options", "nosniff");
  if (asset.content_type.starts_with("text/html")) {
    res.set_header("Content-Security-Policy", kPagePolicy);
  }
  res.set_content(asset.body.data(), asset.body.size(), std::string(asset.content_type));
  res.status = 200;
}

void redirect_to_console(const httplib::Request&, httplib::Response& res) {
  res.set_redirect("/ui/");
}

}  // namespace

void add_console_routes(Routes& routes, MgmtContext& /*context*/) {
  routes.get_public("/", redirect_to_console);
  routes.get_public("/ui", redirect_to_console);
  routes.get_public(R"(/ui/(.*))", [](const httplib::Request& req, httplib::Response& res) {
    const ui::Asset* asset = ui::find_asset(req.matches[1].str());
    if (asset == nullptr) return answer_not_found(res);
    answer_asset(*asset, res);
  });
}

}  // namespace tern::http
