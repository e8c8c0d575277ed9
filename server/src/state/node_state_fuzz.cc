// libFuzzer target: the node state file's parser (parse_node_state) on any text. A file it
// refuses must be refused with a StateError naming the file, never another exception or a
// crash; a state it accepts must be written back (to_json) as text that parses to the same,
// and hold nothing ternd would trip over: valid bucket names and durability levels, and
// directories that stay inside the data directory (ternd removes pending_removal's).

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include "common/fuzz_check.h"
#include "config/durability_levels.h"
#include "config/names.h"
#include "state/node_state.h"

namespace {

constexpr std::string_view kSource = "fuzz-state.json";

// A name of one entry in the data directory: no separator, not "." or "..".
bool is_plain_name(std::string_view name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string_view::npos &&
         name.find('\0') == std::string_view::npos;
}

void check_state(const tern::state::NodeState& state) {
  std::set<std::string_view> names;
  std::set<std::string_view> directories;
  for (const tern::state::BucketState& bucket : state.buckets) {
    TERN_FUZZ_CHECK(names.insert(bucket.settings.name).second);
    TERN_FUZZ_CHECK(bucket.directory.empty() || directories.insert(bucket.directory).second);
    TERN_FUZZ_CHECK(bucket.settings.type == tern::config::BucketType::Ephemeral ||
                    !bucket.directory.empty());
    TERN_FUZZ_CHECK(!tern::config::bucket_name_problem(bucket.settings.name));
    TERN_FUZZ_CHECK(tern::config::durability_level_number(bucket.settings.durability_min_level));
    TERN_FUZZ_CHECK(bucket.directory.empty() || is_plain_name(bucket.directory));
  }
  for (const std::string& directory : state.pending_removal) {
    TERN_FUZZ_CHECK(is_plain_name(directory));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string written;
  try {
    const tern::state::NodeState state = tern::state::parse_node_state(text, kSource);
    check_state(state);
    written = tern::state::to_json(state);
  } catch (const tern::state::StateError& error) {
    TERN_FUZZ_CHECK(std::string_view(error.what()).starts_with(kSource));
    return 0;
  }
  // Any other exception escapes, and libFuzzer reports it as a crash.
  const std::string again = tern::state::to_json(tern::state::parse_node_state(written, kSource));
  TERN_FUZZ_CHECK(again == written);
  return 0;
}
