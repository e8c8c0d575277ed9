#include "scan/scan_config.h"

#include <simdjson.h>

#include <algorithm>
#include <charconv>

#include "common/base64.h"

namespace tern::scan {
namespace {

using simdjson::dom::element;
using simdjson::dom::object;

// The member `name` of `parent`: nullopt when absent, the element otherwise.
std::optional<element> member(const object& parent, std::string_view name) {
  element found;
  if (parent.at_key(name).get(found) != simdjson::SUCCESS) return std::nullopt;
  return found;
}

std::optional<std::string> parse_bool(const object& parent, std::string_view name, bool& out) {
  const std::optional<element> found = member(parent, name);
  if (!found) return std::nullopt;
  if (found->get(out) != simdjson::SUCCESS) return std::string(name) + " must be a bool";
  return std::nullopt;
}

// A non-negative integer member; `required` says whether it may be absent.
std::optional<std::string> parse_number(const object& parent, std::string_view name, bool required,
                                        uint64_t& out) {
  const std::optional<element> found = member(parent, name);
  if (!found) return required ? std::optional(std::string(name) + " is required") : std::nullopt;
  if (found->get(out) != simdjson::SUCCESS) {
    return std::string(name) + " must be a non-negative integer";
  }
  return std::nullopt;
}

std::optional<std::string> parse_collection(const object& root, uint32_t& out) {
  const std::optional<element> found = member(root, "collection");
  if (!found) return std::nullopt;
  std::string_view hex;
  if (found->get(hex) != simdjson::SUCCESS || hex.empty() || hex.size() > 8) {
    return "collection must be a collection id in hexadecimal";
  }
  const auto [end, error] = std::from_chars(hex.data(), hex.data() + hex.size(), out, 16);
  if (error != std::errc() || end != hex.data() + hex.size()) {
    return "collection must be a collection id in hexadecimal";
  }
  return std::nullopt;
}

// One end of the range: exactly one of `inclusive_name` and `exclusive_name`.
std::optional<std::string> parse_bound(const object& range, std::string_view inclusive_name,
                                       std::string_view exclusive_name, KeyBound& out) {
  const std::optional<element> inclusive = member(range, inclusive_name);
  const std::optional<element> exclusive = member(range, exclusive_name);
  if (inclusive.has_value() == exclusive.has_value()) {
    return "range needs one of " + std::string(inclusive_name) + " and " +
           std::string(exclusive_name);
  }
  out.inclusive = inclusive.has_value();
  const std::string_view name = out.inclusive ? inclusive_name : exclusive_name;
  std::string_view text;
  if ((out.inclusive ? *inclusive : *exclusive).get(text) != simdjson::SUCCESS ||
      !base64_decode(text, out.key)) {
    return "range " + std::string(name) + " must be a base64 string";
  }
  if (out.key.size() > kMaxKeyBytes) {
    return "range " + std::string(name) + " is longer than " + std::to_string(kMaxKeyBytes) +
           " bytes";
  }
  return std::nullopt;
}

std::optional<std::string> parse_snapshot(const object& root, ScanConfig& out) {
  const std::optional<element> found = member(root, "snapshot_requirements");
  if (!found) return std::nullopt;
  object requirements;
  if (found->get(requirements) != simdjson::SUCCESS) {
    return "snapshot_requirements must be an object";
  }
  SnapshotRequirements& snapshot = out.snapshot.emplace();
  const std::optional<element> uuid = member(requirements, "vb_uuid");
  std::string_view decimal;
  if (!uuid || uuid->get(decimal) != simdjson::SUCCESS) {
    return "snapshot_requirements.vb_uuid is required, as a string of a decimal number";
  }
  const auto [end, error] =
      std::from_chars(decimal.data(), decimal.data() + decimal.size(), snapshot.vb_uuid);
  if (decimal.empty() || error != std::errc() || end != decimal.data() + decimal.size()) {
    return "snapshot_requirements.vb_uuid must be a string of a decimal number";
  }
  if (auto why = parse_number(requirements, "seqno", true, snapshot.seqno)) {
    return "snapshot_requirements." + *why;
  }
  if (auto why = parse_bool(requirements, "seqno_exists", snapshot.seqno_exists)) {
    return "snapshot_requirements." + *why;
  }
  uint64_t timeout_ms = 0;
  if (auto why = parse_number(requirements, "timeout_ms", false, timeout_ms)) {
    return "snapshot_requirements." + *why;
  }
  snapshot.timeout_ms = static_cast<uint32_t>(std::min<uint64_t>(timeout_ms, kMaxSeqnoWaitMs));
  return std::nullopt;
}

}  // namespace

bool ScanConfig::in_range(std::string_view key) const {
  if (sampling()) return true;
  const int from_start = key.compare(start.key);
  if (from_start < 0 || (from_start == 0 && !start.inclusive)) return false;
  const int from_end = key.compare(end.key);
  return from_end < 0 || (from_end == 0 && end.inclusive);
}

std::optional<std::string> parse_scan_config(std::string_view json, ScanConfig& out) {
  out = ScanConfig{};
  simdjson::dom::parser parser;
  object root;
  if (parser.parse(json.data(), json.size(), true).get(root) != simdjson::SUCCESS) {
    return "the value must be a JSON object";
  }
  if (auto why = parse_collection(root, out.collection_id)) return why;
  if (auto why = parse_bool(root, "key_only", out.key_only)) return why;
  bool include_xattrs = false;
  if (auto why = parse_bool(root, "include_xattrs", include_xattrs)) return why;
  if (include_xattrs) return "include_xattrs is not supported";

  const std::optional<element> range = member(root, "range");
  const std::optional<element> sampling = member(root, "sampling");
  if (range.has_value() == sampling.has_value()) return "one of range and sampling is required";
  if (range) {
    object bounds;
    if (range->get(bounds) != simdjson::SUCCESS) return "range must be an object";
    if (auto why = parse_bound(bounds, "start", "excl_start", out.start)) return why;
    if (auto why = parse_bound(bounds, "end", "excl_end", out.end)) return why;
  } else {
    object sample;
    if (sampling->get(sample) != simdjson::SUCCESS) return "sampling must be an object";
    if (auto why = parse_number(sample, "samples", true, out.samples)) return "sampling." + *why;
    if (out.samples == 0) return "sampling.samples must be above 0";
    if (auto why = parse_number(sample, "seed", false, out.seed)) return "sampling." + *why;
  }
  if (auto why = parse_snapshot(root, out)) return why;

  if (const std::optional<element> name = member(root, "name")) {
    std::string_view text;
    if (name->get(text) != simdjson::SUCCESS) return "name must be a string";
    if (text.size() > kMaxNameBytes) {
      return "name is longer than " + std::to_string(kMaxNameBytes) + " bytes";
    }
    out.name = text;
  }
  return std::nullopt;
}

}  // namespace tern::scan
