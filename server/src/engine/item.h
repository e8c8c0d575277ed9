#pragma once
// A stored document. Items are immutable once published: a mutation publishes a new item,
// so a reader holding an ItemPtr can keep using it after the key changes or goes away.

#include <cstdint>
#include <memory>
#include <string_view>

namespace tern::engine {

struct Item {
  virtual ~Item() = default;
  virtual std::string_view key() const = 0;
  virtual std::string_view value() const = 0;
  uint32_t flags = 0;
  uint8_t datatype = 0;
  uint64_t cas = 0;
  // Absolute expiry on the engine's steady clock, in ms; 0 means never.
  int64_t expiry_ms = 0;
};

using ItemPtr = std::shared_ptr<const Item>;

}  // namespace tern::engine
