#pragma once
// How a Record is laid out in RocksDB: pure functions, no I/O.
//
// One key space, two ranges told apart by the first byte:
//
//   document   vbucket (be16) | document key (the engine's: bytes, 0x00 allowed)
//   high seqno 0xFF 's' | vbucket (be16)        value: seqno (le64, 8 bytes)
//   metadata   0xFF 'm' | name                  value: its bytes (Store::write_meta)
//
// Big-endian vbuckets make RocksDB's bytewise order the order scan() promises: vbucket by
// vbucket, keys in byte order within one. Every key whose first byte is 0xFF belongs to the
// metadata range, so a document's vbucket must be below 0xFF00 (kMaxVBucket; Couchbase uses
// 1024) and scans of the documents stop at kMetaPrefix.
//
// A document's value: a fixed header of kValueHeaderSize bytes, integers little-endian,
//
//   offset  0  format version (kRecordFormatVersion)
//           1  cas        u64
//           9  seqno      u64
//          17  rev_seqno  u64
//          25  flags      u32
//          29  expiry     u32
//          33  datatype   u8
//          34  deleted    u8 (0 or 1)
//          35  the value bytes, to the end
//
// A reader refuses a version it does not know rather than guess at its fields: a later
// format adds a version, it never reinterprets this one.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "storage/store.h"

namespace tern::storage {

inline constexpr uint8_t kRecordFormatVersion = 1;
inline constexpr size_t kValueHeaderSize = 35;
inline constexpr char kMetaPrefix = '\xFF';
inline constexpr uint16_t kMaxVBucket = 0xFEFF;

// The first two bytes of every document key of `vbucket` (which must be <= kMaxVBucket).
std::array<char, 2> encode_vbucket(uint16_t vbucket);

// The RocksDB key of a document: encode_vbucket(vbucket) followed by `key`.
std::string encode_document_key(uint16_t vbucket, std::string_view key);

struct DocumentKey {
  uint16_t vbucket = 0;
  std::string_view key;  // points into the bytes decoded
};

// Whether `bytes` lies in the documents' range (not the metadata range).
bool is_document_key(std::string_view bytes);

// The vbucket and key of a document's RocksDB key; nullopt when `bytes` is shorter than a
// vbucket or lies in the metadata range.
std::optional<DocumentKey> decode_document_key(std::string_view bytes);

// The header that precedes record.value in the stored value (record's key and vbucket are
// not part of it).
std::array<char, kValueHeaderSize> encode_value_header(const Record& record);

// The whole stored value: encode_value_header(record) then record.value.
std::string encode_value(const Record& record);

// The metadata and value of a stored value, record.value pointing into `bytes` and vbucket
// and key left empty; nullopt when `bytes` is shorter than the header, has another format
// version, or a deleted byte other than 0 or 1.
std::optional<Record> decode_value(std::string_view bytes);

// The key holding `vbucket`'s persisted high seqno.
std::string encode_seqno_key(uint16_t vbucket);
// The vbucket of a high seqno key; nullopt for any other key.
std::optional<uint16_t> decode_seqno_key(std::string_view bytes);
// The RocksDB key of the bucket's metadata entry `name` (Store::write_meta).
std::string encode_meta_key(std::string_view name);

// Where high seqno keys begin and end: [kSeqnoKeysBegin, kSeqnoKeysEnd).
inline constexpr std::string_view kSeqnoKeysBegin = "\xFFs";
inline constexpr std::string_view kSeqnoKeysEnd = "\xFFt";

std::string encode_seqno_value(uint64_t seqno);
// nullopt unless `bytes` is exactly 8 bytes.
std::optional<uint64_t> decode_seqno_value(std::string_view bytes);

}  // namespace tern::storage
