#pragma once
// A fast 64-bit hash of a key, well mixed in every bit: the shard's table takes the slot from
// the low bits and the slot's tag from the middle ones (hash_table.h). The shard itself is the
// key's vbucket, which clients compute by CRC (vbucket_of_key).

#include <cstdint>
#include <cstring>
#include <string_view>

namespace tern::engine {

namespace key_hash_detail {
inline uint64_t fold_multiply(uint64_t a, uint64_t b) {
  const unsigned __int128 product = static_cast<unsigned __int128>(a) * b;
  return static_cast<uint64_t>(product) ^ static_cast<uint64_t>(product >> 64);
}
}  // namespace key_hash_detail

inline uint64_t hash_key(std::string_view key) {
  using key_hash_detail::fold_multiply;
  constexpr uint64_t k0 = 0xa0761d6478bd642full;
  constexpr uint64_t k1 = 0xe7037ed1a0b428dbull;
  constexpr uint64_t k2 = 0x8ebc6af09c88c6e3ull;
  const char* p = key.data();
  size_t n = key.size();
  uint64_t h = k0 ^ n;
  while (n >= 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);
    h = fold_multiply(word ^ k1, h ^ k2);
    p += 8;
    n -= 8;
  }
  uint64_t tail = 0;
  if (n != 0) std::memcpy(&tail, p, n);
  h = fold_multiply(tail ^ k2, h ^ k1);
  return fold_multiply(h ^ k0, k1);
}

}  // namespace tern::engine
