#pragma once
// The web console's static files (HTML, scripts, style sheets, the charting library), built
// into ternd so that it serves them with no file on disk and no internet access.
// Thread-safe: the table is built once and never changes.

#include <span>
#include <string_view>

namespace tern::ui {

struct Asset {
  std::string_view path;  // below /ui/, e.g. "index.html", "vendor/uPlot.iife.min.js"
  std::string_view
      content_type;  // for the Content-Type header, e.g. "text/javascript; charset=utf-8"
  std::string_view body;
};

// The asset at `path` (below /ui/, no leading slash; "" is the page, index.html), or null.
const Asset* find_asset(std::string_view path);

// Every asset, in path order.
std::span<const Asset> all_assets();

// The Content-Type for a file name, by its extension; application/octet-stream when unknown.
std::string_view content_type_for(std::string_view path);

}  // namespace tern::ui
