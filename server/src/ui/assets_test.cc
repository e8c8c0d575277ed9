#include "ui/assets.h"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>

namespace tern::ui {
namespace {

std::string read_source(std::string_view path) {
  std::ifstream in(std::string(TERN_UI_DIR) + "/" + std::string(path), std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// The directory part of an asset path ("js/api.js" -> "js/").
std::string directory_of(std::string_view path) {
  auto slash = path.rfind('/');
  return slash == std::string_view::npos ? "" : std::string(path.substr(0, slash + 1));
}

// Resolves "./x.js" and "x.js" against a directory; "../" is not used by the console.
std::string resolve(const std::string& dir, std::string ref) {
  if (ref.starts_with("./")) ref = ref.substr(2);
  return dir + ref;
}

TEST(AssetsTest, ThePageIsServedForTheEmptyPathAndByName) {
  const Asset* page = find_asset("");
  ASSERT_NE(page, nullptr);
  EXPECT_EQ(page, find_asset("index.html"));
  EXPECT_EQ(page->content_type, "text/html; charset=utf-8");
  EXPECT_NE(page->body.find("<!doctype html>"), std::string_view::npos);
}

TEST(AssetsTest, OwnFilesAreEmbeddedByteForByte) {
  int checked = 0;
  for (const Asset& asset : all_assets()) {
    if (asset.path.starts_with("vendor/")) continue;
    std::string source = read_source(asset.path);
    ASSERT_FALSE(source.empty()) << asset.path << " is not in " << TERN_UI_DIR;
    EXPECT_EQ(asset.body, source) << asset.path;
    ++checked;
  }
  EXPECT_GE(checked, 5) << "the page, its style sheet and its scripts";
}

TEST(AssetsTest, TheChartingLibraryAndItsLicenceAreEmbedded) {
  const Asset* script = find_asset("vendor/uPlot.iife.min.js");
  ASSERT_NE(script, nullptr);
  EXPECT_EQ(script->content_type, "text/javascript; charset=utf-8");
  EXPECT_GT(script->body.size(), 10000u);
  EXPECT_NE(script->body.find("uPlot"), std::string_view::npos);
  const Asset* css = find_asset("vendor/uPlot.min.css");
  ASSERT_NE(css, nullptr);
  EXPECT_EQ(css->content_type, "text/css; charset=utf-8");
  const Asset* licence = find_asset("vendor/uPlot.LICENSE.txt");
  ASSERT_NE(licence, nullptr);
  EXPECT_NE(licence->body.find("MIT"), std::string_view::npos);
}

// A file the page or a script names but the build did not embed would be a 404 in the browser.
TEST(AssetsTest, EveryFileThePageAndItsScriptsNameIsEmbedded) {
  const std::regex page_ref(R"re((?:src|href)="([^":#?]+)")re");
  const std::regex import_ref(R"(\bfrom\s+'(\.[^']+)')");
  int references = 0;
  for (const Asset& asset : all_assets()) {
    if (asset.path.starts_with("vendor/")) continue;
    const bool is_page = asset.path.ends_with(".html");
    const bool is_script = asset.path.ends_with(".js");
    if (!is_page && !is_script) continue;
    std::string body(asset.body);
    const std::regex& ref = is_page ? page_ref : import_ref;
    for (std::sregex_iterator it(body.begin(), body.end(), ref), end; it != end; ++it) {
      std::string target = resolve(directory_of(asset.path), (*it)[1].str());
      EXPECT_NE(find_asset(target), nullptr) << asset.path << " names " << target;
      ++references;
    }
  }
  EXPECT_GE(references, 5);
}

TEST(AssetsTest, UnknownPathsAreNotFound) {
  EXPECT_EQ(find_asset("nope.js"), nullptr);
  EXPECT_EQ(find_asset("../CMakeLists.txt"), nullptr);
  EXPECT_EQ(find_asset("/index.html"), nullptr);
  EXPECT_EQ(find_asset("index.html/"), nullptr);
  EXPECT_EQ(find_asset("package.json"), nullptr);
}

TEST(AssetsTest, ContentTypesFollowTheExtension) {
  EXPECT_EQ(content_type_for("a/b.js"), "text/javascript; charset=utf-8");
  EXPECT_EQ(content_type_for("x.css"), "text/css; charset=utf-8");
  EXPECT_EQ(content_type_for("x.svg"), "image/svg+xml");
  EXPECT_EQ(content_type_for("x.png"), "image/png");
  EXPECT_EQ(content_type_for("x.js.map"), "application/octet-stream");
  EXPECT_EQ(content_type_for("js"), "application/octet-stream");
}

}  // namespace
}  // namespace tern::ui
