#pragma once
// The TLS transport's ciphertext, as an OpenSSL BIO over two buffers it owns: the SSL reads
// what the inner transport received into `input`, and appends what it writes to `output`,
// which the inner transport then sends. A pair of memory BIOs would cost a copy each way,
// and keep its largest buffer for the connection's life; these buffers go when empty.

#include <openssl/bio.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace tern::net {

struct CipherBuffers {
  // Space for at least `at_least` more input bytes, after those not yet read.
  std::span<uint8_t> input_space(size_t at_least);
  // `n` bytes were written at the start of the last input_space().
  void input_added(size_t n) { input_end += n; }
  size_t input_unread() const { return input_end - input_begin; }
  // Frees the input buffer if the SSL has read all of it (an idle connection keeps none).
  void release_read_input();

  std::vector<uint8_t> input;
  size_t input_begin = 0;       // the next byte the SSL reads
  size_t input_end = 0;         // the end of what was received
  std::vector<uint8_t> output;  // written by the SSL, not yet taken to be sent
};

// A new BIO reading from and writing to `buffers`, which must outlive it; for
// SSL_set_bio(ssl, bio, bio). An empty input means "not yet" (a retry), never the end.
// Throws std::bad_alloc.
BIO* make_cipher_bio(CipherBuffers& buffers);

}  // namespace tern::net
