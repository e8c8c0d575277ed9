#pragma once
// A connection's input bytes: received but not yet consumed. Grows to hold the largest frame
// in flight and keeps unconsumed bytes at the front so a frame is always contiguous.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace tern::net {

class ReadBuffer {
 public:
  // Space for at least `min_free` more bytes after the unconsumed ones.
  std::span<uint8_t> prepare(size_t min_free);
  // Marks `n` bytes of the space returned by prepare() as received.
  void commit(size_t n) { end_ += n; }
  // The received, unconsumed bytes.
  std::span<const uint8_t> data() const { return {bytes_.data() + begin_, end_ - begin_}; }
  // Drops the first `n` unconsumed bytes.
  void consume(size_t n);
  size_t size() const { return end_ - begin_; }

 private:
  std::vector<uint8_t> bytes_;
  size_t begin_ = 0;
  size_t end_ = 0;
};

}  // namespace tern::net
