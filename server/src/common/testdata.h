#pragma once
// The shared vectors in testdata/mcbp/, which the .NET SDK's tests read too, for the server's
// tests. TERN_TESTDATA_DIR is defined on every test target (see server/CMakeLists.txt).

#include <rapidjson/document.h>

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace tern::testdata {

// Parses testdata/mcbp/<name>; throws naming the file when it is missing or not JSON.
inline rapidjson::Document load_mcbp_json(const std::string& name) {
  const std::string path = std::string(TERN_TESTDATA_DIR) + "/mcbp/" + name;
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::stringstream text;
  text << in.rdbuf();
  rapidjson::Document doc;
  doc.Parse(text.str().c_str());
  if (doc.HasParseError()) throw std::runtime_error("bad JSON in " + path);
  return doc;
}

}  // namespace tern::testdata
