#include "ui/assets.h"

#include <algorithm>
#include <array>
#include <utility>
#include <vector>

#include "ui/embedded_files.h"

namespace tern::ui {
namespace {

const std::vector<Asset>& table() {
  static const std::vector<Asset> assets = [] {
    std::vector<Asset> out;
    for (const EmbeddedFile& file : embedded_files()) {
      out.push_back({file.name, content_type_for(file.name), file.bytes});
    }
    std::sort(out.begin(), out.end(),
              [](const Asset& a, const Asset& b) { return a.path < b.path; });
    return out;
  }();
  return assets;
}

}  // namespace

const Asset* find_asset(std::string_view path) {
  if (path.empty()) path = "index.html";
  const auto& assets = table();
  auto it = std::lower_bound(assets.begin(), assets.end(), path,
                             [](const Asset& a, std::string_view p) { return a.path < p; });
  return it != assets.end() && it->path == path ? &*it : nullptr;
}

std::span<const Asset> all_assets() { return table(); }

std::string_view content_type_for(std::string_view path) {
  // Text types say their charset: the console's files are UTF-8.
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 8> kTypes{{
      {".html", "text/html; charset=utf-8"},
      {".js", "text/javascript; charset=utf-8"},
      {".css", "text/css; charset=utf-8"},
      {".txt", "text/plain; charset=utf-8"},
      {".json", "application/json"},
      {".svg", "image/svg+xml"},
      {".png", "image/png"},
      {".ico", "image/x-icon"},
  }};
  for (const auto& [extension, type] : kTypes) {
    if (path.ends_with(extension)) return type;
  }
  return "application/octet-stream";
}

}  // namespace tern::ui
