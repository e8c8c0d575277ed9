// The TLS transport's BIO over its own buffers: what it reads, what it writes, and the
// input buffer's compaction and release.
#include "net/cipher_bio.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>

namespace tern::net {
namespace {

using UniqueBio = std::unique_ptr<BIO, decltype(&BIO_free)>;

void add_input(CipherBuffers& buffers, const std::string& text) {
  std::memcpy(buffers.input_space(text.size()).data(), text.data(), text.size());
  buffers.input_added(text.size());
}

std::string read(BIO* bio, size_t size) {
  std::string out(size, '\0');
  size_t n = 0;
  if (BIO_read_ex(bio, out.data(), size, &n) != 1) return "(nothing)";
  out.resize(n);
  return out;
}

TEST(CipherBio, ReadsWhatWasReceivedAndRetriesWhenEmpty) {
  CipherBuffers buffers;
  UniqueBio bio(make_cipher_bio(buffers), BIO_free);
  EXPECT_EQ(read(bio.get(), 4), "(nothing)");
  EXPECT_TRUE(BIO_should_retry(bio.get()));  // "not yet", not the end of the stream
  add_input(buffers, "hello");
  EXPECT_EQ(BIO_ctrl_pending(bio.get()), 5u);
  EXPECT_EQ(read(bio.get(), 3), "hel");
  EXPECT_EQ(read(bio.get(), 10), "lo");
  EXPECT_EQ(read(bio.get(), 1), "(nothing)");
}

TEST(CipherBio, NewSpaceKeepsTheUnreadRestInOrder) {
  CipherBuffers buffers;
  UniqueBio bio(make_cipher_bio(buffers), BIO_free);
  add_input(buffers, "abcdef");
  EXPECT_EQ(read(bio.get(), 4), "abcd");
  add_input(buffers, "gh");  // moves "ef" to the front first
  EXPECT_EQ(buffers.input_begin, 0u);
  EXPECT_EQ(read(bio.get(), 10), "efgh");
}

TEST(CipherBio, AReadInputBufferIsReleasedAndAnUnreadOneKept) {
  CipherBuffers buffers;
  UniqueBio bio(make_cipher_bio(buffers), BIO_free);
  add_input(buffers, "abc");
  buffers.release_read_input();
  EXPECT_EQ(buffers.input_unread(), 3u);  // unread: kept
  EXPECT_EQ(read(bio.get(), 3), "abc");
  buffers.release_read_input();
  EXPECT_EQ(buffers.input.capacity(), 0u);
}

TEST(CipherBio, WritesAppendToTheOutput) {
  CipherBuffers buffers;
  UniqueBio bio(make_cipher_bio(buffers), BIO_free);
  size_t n = 0;
  ASSERT_EQ(BIO_write_ex(bio.get(), "ab", 2, &n), 1);
  ASSERT_EQ(BIO_write_ex(bio.get(), "cd", 2, &n), 1);
  EXPECT_EQ(std::string(buffers.output.begin(), buffers.output.end()), "abcd");
  EXPECT_EQ(BIO_ctrl_wpending(bio.get()), 4u);
  EXPECT_EQ(BIO_flush(bio.get()), 1);
}

}  // namespace
}  // namespace tern::net
