#include "storage/record_codec.h"

#include <limits>

#include <gtest/gtest.h>

namespace tern::storage {
namespace {

using namespace std::string_view_literals;

struct CodecCase {
  const char* name;
  Record record;
};

void expect_same_metadata(const Record& a, const Record& b) {
  EXPECT_EQ(a.value, b.value);
  EXPECT_EQ(a.cas, b.cas);
  EXPECT_EQ(a.seqno, b.seqno);
  EXPECT_EQ(a.rev_seqno, b.rev_seqno);
  EXPECT_EQ(a.flags, b.flags);
  EXPECT_EQ(a.expiry, b.expiry);
  EXPECT_EQ(a.datatype, b.datatype);
  EXPECT_EQ(a.deleted, b.deleted);
}

TEST(RecordCodec, RoundTrips) {
  constexpr auto u64max = std::numeric_limits<uint64_t>::max();
  constexpr auto u32max = std::numeric_limits<uint32_t>::max();
  const CodecCase cases[] = {
      // {cas, seqno, rev_seqno, flags, vbucket, datatype, deleted}, key, value, expiry
      {"document",
       {{0x1234567890abcdef, 42, 3, 0xdeadbeef, 7, 1, false}, "user::1", R"({"a":1})", 0}},
      {"tombstone", {{99, 100, 8, 0, 1023, 0, true}, "gone", "", 1'700'000'000}},
      {"empty value", {{1, 1, 1, 0, 0, 0, false}, "k", "", 0}},
      {"binary key with zero bytes",
       {{2, 2, 2, 0, 5, 4, false}, "\x00\x08\x00key\x00"sv, "v\x00w"sv, 0}},
      {"max fields", {{u64max, u64max, u64max, u32max, kMaxVBucket, 0xff, true}, "m", "x", u32max}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    std::string key = encode_document_key(c.record.vbucket, c.record.key);
    ASSERT_TRUE(is_document_key(key));
    auto decoded_key = decode_document_key(key);
    ASSERT_TRUE(decoded_key);
    EXPECT_EQ(decoded_key->vbucket, c.record.vbucket);
    EXPECT_EQ(decoded_key->key, c.record.key);

    std::string value = encode_value(c.record);
    EXPECT_EQ(value.size(), kValueHeaderSize + c.record.value.size());
    auto decoded = decode_value(value);
    ASSERT_TRUE(decoded);
    expect_same_metadata(*decoded, c.record);
  }
}

TEST(RecordCodec, KeysSortByVBucketThenKey) {
  EXPECT_LT(encode_document_key(1, "zzz"), encode_document_key(2, "a"));
  EXPECT_LT(encode_document_key(255, "a"), encode_document_key(256, "a"));
  EXPECT_LT(encode_document_key(3, "a"), encode_document_key(3, "b"));
  // Every document sorts before the metadata range.
  EXPECT_LT(encode_document_key(kMaxVBucket, "\xff\xff"), std::string(kSeqnoKeysBegin));
}

TEST(RecordCodec, BadValuesFailToDecode) {
  Record record{{.cas = 1, .seqno = 2, .rev_seqno = 3, .flags = 4, .vbucket = 1, .datatype = 6},
                "k",
                "value",
                5};
  std::string good = encode_value(record);
  std::string wrong_version = good;
  wrong_version[0] = 2;
  std::string bad_deleted = good;
  bad_deleted[34] = 2;
  const std::pair<const char*, std::string> cases[] = {
      {"empty", ""},
      {"version only", good.substr(0, 1)},
      {"header less one byte", good.substr(0, kValueHeaderSize - 1)},
      {"unknown version", wrong_version},
      {"deleted neither 0 nor 1", bad_deleted},
  };
  for (const auto& [name, bytes] : cases) {
    SCOPED_TRACE(name);
    EXPECT_FALSE(decode_value(bytes));
  }
  // The header alone is a record with an empty value.
  EXPECT_TRUE(decode_value(good.substr(0, kValueHeaderSize)));
}

TEST(RecordCodec, BadKeysFailToDecode) {
  EXPECT_FALSE(decode_document_key(""));
  EXPECT_FALSE(decode_document_key("\x01"));
  EXPECT_FALSE(decode_document_key(encode_seqno_key(3)));
  EXPECT_FALSE(decode_seqno_key(encode_document_key(3, "k")));
  EXPECT_FALSE(decode_seqno_key(encode_seqno_key(3) + "x"));
}

TEST(RecordCodec, SeqnoKeysAndValuesRoundTrip) {
  for (uint16_t vbucket : {uint16_t{0}, uint16_t{1023}, uint16_t{0xffff}}) {
    std::string key = encode_seqno_key(vbucket);
    EXPECT_FALSE(is_document_key(key));
    EXPECT_GE(key, kSeqnoKeysBegin);
    EXPECT_LT(key, kSeqnoKeysEnd);
    EXPECT_EQ(decode_seqno_key(key), vbucket);
  }
  for (uint64_t seqno : {uint64_t{0}, uint64_t{1}, std::numeric_limits<uint64_t>::max()}) {
    EXPECT_EQ(decode_seqno_value(encode_seqno_value(seqno)), seqno);
  }
  EXPECT_FALSE(decode_seqno_value("1234567"));
  EXPECT_FALSE(decode_seqno_value("123456789"));
}

}  // namespace
}  // namespace tern::storage
