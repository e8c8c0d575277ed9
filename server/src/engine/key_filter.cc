#include "engine/key_filter.h"

#include <bloom.h>

#include <algorithm>
#include <climits>
#include <new>

namespace tern::engine {

struct KeyFilter::Layer {
  Layer(size_t capacity, double rate) : capacity(capacity) {
    if (bloom_init(&bits, static_cast<int>(capacity), rate) != 0) throw std::bad_alloc();
  }
  ~Layer() { bloom_free(&bits); }
  Layer(const Layer&) = delete;
  Layer& operator=(const Layer&) = delete;

  // libbloom's queries take a non-const filter, but only read it.
  bool contains(std::string_view key) const {
    return bloom_check(const_cast<bloom*>(&bits), key.data(), static_cast<int>(key.size())) == 1;
  }

  bloom bits{};
  const size_t capacity;
  size_t keys = 0;
};

KeyFilter::KeyFilter(double false_positive_rate, size_t first_capacity)
    : false_positive_rate_(false_positive_rate),
      first_capacity_(std::clamp<size_t>(first_capacity, kFirstCapacity, INT_MAX)) {}
KeyFilter::~KeyFilter() = default;
KeyFilter::KeyFilter(KeyFilter&&) noexcept = default;
KeyFilter& KeyFilter::operator=(KeyFilter&&) noexcept = default;

void KeyFilter::add_layer() {
  // Each filter twice the last's capacity at half its rate: the rates sum to below the bound.
  const size_t capacity =
      layers_.empty() ? first_capacity_ : std::min<size_t>(layers_.back()->capacity * 2, INT_MAX);
  double rate = false_positive_rate_;
  for (size_t i = 0; i <= layers_.size(); ++i) rate /= 2;
  layers_.reserve(layers_.size() + 1);  // so that the push_back below cannot throw
  auto layer = std::make_unique<Layer>(capacity, rate);
  bytes_ += static_cast<size_t>(layer->bits.bytes);
  layers_.push_back(std::move(layer));
}

void KeyFilter::add(std::string_view key) {
  if (false_positive_rate_ >= 1) {
    keys_ = 1;  // one key is enough to make every key present
    return;
  }
  if (may_contain(key)) return;  // adding it again would fill the newest filter for nothing
  if (layers_.empty() || layers_.back()->keys >= layers_.back()->capacity) add_layer();
  Layer& newest = *layers_.back();
  bloom_add(&newest.bits, key.data(), static_cast<int>(key.size()));
  ++newest.keys;
  ++keys_;
}

bool KeyFilter::may_contain(std::string_view key) const {
  if (false_positive_rate_ >= 1) return keys_ != 0;
  for (const auto& layer : layers_) {
    if (layer->contains(key)) return true;
  }
  return false;
}

}  // namespace tern::engine
