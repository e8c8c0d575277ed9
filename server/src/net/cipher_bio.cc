#include "net/cipher_bio.h"

#include <algorithm>
#include <cstring>
#include <new>

namespace tern::net {

namespace {

CipherBuffers& buffers_of(BIO* bio) { return *static_cast<CipherBuffers*>(BIO_get_data(bio)); }

int read_ex(BIO* bio, char* out, size_t size, size_t* read) {
  CipherBuffers& buffers = buffers_of(bio);
  BIO_clear_retry_flags(bio);
  const size_t n = std::min(size, buffers.input_unread());
  if (n == 0) {
    BIO_set_retry_read(bio);
    *read = 0;
    return 0;
  }
  std::memcpy(out, buffers.input.data() + buffers.input_begin, n);
  buffers.input_begin += n;
  *read = n;
  return 1;
}

int write_ex(BIO* bio, const char* data, size_t size, size_t* written) {
  CipherBuffers& buffers = buffers_of(bio);
  BIO_clear_retry_flags(bio);
  buffers.output.insert(buffers.output.end(), data, data + size);
  *written = size;
  return 1;
}

long control(BIO* bio, int command, long, void*) {
  switch (command) {
    case BIO_CTRL_FLUSH:
      return 1;  // written bytes are in the output buffer already
    case BIO_CTRL_PENDING:
      return static_cast<long>(buffers_of(bio).input_unread());
    case BIO_CTRL_WPENDING:
      return static_cast<long>(buffers_of(bio).output.size());
    default:
      return 0;
  }
}

int create(BIO* bio) {
  BIO_set_init(bio, 1);
  return 1;
}

BIO_METHOD* cipher_method() {
  static BIO_METHOD* const method = [] {
    BIO_METHOD* made =
        BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "tern TLS ciphertext");
    if (made == nullptr || BIO_meth_set_read_ex(made, read_ex) != 1 ||
        BIO_meth_set_write_ex(made, write_ex) != 1 || BIO_meth_set_ctrl(made, control) != 1 ||
        BIO_meth_set_create(made, create) != 1) {
      throw std::bad_alloc();
    }
    return made;
  }();
  return method;
}

}  // namespace

std::span<uint8_t> CipherBuffers::input_space(size_t at_least) {
  if (input_begin > 0) {
    // What the SSL has read goes: the unread rest (part of a record) moves to the front.
    std::memmove(input.data(), input.data() + input_begin, input_unread());
    input_end -= input_begin;
    input_begin = 0;
  }
  input.resize(input_end + at_least);
  return std::span(input).subspan(input_end);
}

void CipherBuffers::release_read_input() {
  if (input_unread() > 0) return;
  std::vector<uint8_t>().swap(input);
  input_begin = input_end = 0;
}

BIO* make_cipher_bio(CipherBuffers& buffers) {
  BIO* bio = BIO_new(cipher_method());
  if (bio == nullptr) throw std::bad_alloc();
  BIO_set_data(bio, &buffers);
  return bio;
}

}  // namespace tern::net
