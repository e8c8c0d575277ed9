#pragma once
// The console's files as the build embedded them (server/cmake/ui_assets.cmake generates the
// definition from server/ui). Internal to ui/: everything else asks assets.h.

#include <span>
#include <string_view>

namespace tern::ui {

struct EmbeddedFile {
  std::string_view name;   // its path below /ui/, e.g. "js/api.js"
  std::string_view bytes;  // its whole content, static for the life of the program
};

// Every embedded file, sorted by nothing in particular; never empty.
std::span<const EmbeddedFile> embedded_files();

}  // namespace tern::ui
