#include "storage/record_codec.h"

#include "common/little_endian.h"

namespace tern::storage {
namespace {

uint16_t get_be16(const char* in) {
  return static_cast<uint16_t>(static_cast<uint8_t>(in[0]) << 8 | static_cast<uint8_t>(in[1]));
}

}  // namespace

std::array<char, 2> encode_vbucket(uint16_t vbucket) {
  return {static_cast<char>(vbucket >> 8), static_cast<char>(vbucket)};
}

std::string encode_document_key(uint16_t vbucket, std::string_view key) {
  std::string out;
  out.reserve(2 + key.size());
  auto prefix = encode_vbucket(vbucket);
  out.append(prefix.data(), prefix.size());
  out.append(key);
  return out;
}

bool is_document_key(std::string_view bytes) { return bytes.empty() || bytes[0] != kMetaPrefix; }

std::optional<DocumentKey> decode_document_key(std::string_view bytes) {
  if (bytes.size() < 2 || !is_document_key(bytes)) return std::nullopt;
  return DocumentKey{get_be16(bytes.data()), bytes.substr(2)};
}

std::array<char, kValueHeaderSize> encode_value_header(const Record& record) {
  std::array<char, kValueHeaderSize> out;
  out[0] = static_cast<char>(kRecordFormatVersion);
  put_le(&out[1], record.cas);
  put_le(&out[9], record.seqno);
  put_le(&out[17], record.rev_seqno);
  put_le(&out[25], record.flags);
  put_le(&out[29], record.expiry);
  out[33] = static_cast<char>(record.datatype);
  out[34] = record.deleted ? 1 : 0;
  return out;
}

std::string encode_value(const Record& record) {
  auto header = encode_value_header(record);
  std::string out;
  out.reserve(header.size() + record.value.size());
  out.append(header.data(), header.size());
  out.append(record.value);
  return out;
}

std::optional<Record> decode_value(std::string_view bytes) {
  if (bytes.size() < kValueHeaderSize) return std::nullopt;
  const char* in = bytes.data();
  if (static_cast<uint8_t>(in[0]) != kRecordFormatVersion) return std::nullopt;
  uint8_t deleted = static_cast<uint8_t>(in[34]);
  if (deleted > 1) return std::nullopt;
  Record record;
  record.cas = get_le<uint64_t>(in + 1);
  record.seqno = get_le<uint64_t>(in + 9);
  record.rev_seqno = get_le<uint64_t>(in + 17);
  record.flags = get_le<uint32_t>(in + 25);
  record.expiry = get_le<uint32_t>(in + 29);
  record.datatype = static_cast<uint8_t>(in[33]);
  record.deleted = deleted == 1;
  record.value = bytes.substr(kValueHeaderSize);
  return record;
}

std::string encode_meta_key(std::string_view name) {
  std::string out{kMetaPrefix, 'm'};
  out.append(name);
  return out;
}

std::string encode_seqno_key(uint16_t vbucket) {
  std::string out(kSeqnoKeysBegin);
  auto be = encode_vbucket(vbucket);
  out.append(be.data(), be.size());
  return out;
}

std::optional<uint16_t> decode_seqno_key(std::string_view bytes) {
  if (bytes.size() != kSeqnoKeysBegin.size() + 2 || !bytes.starts_with(kSeqnoKeysBegin)) {
    return std::nullopt;
  }
  return get_be16(bytes.data() + kSeqnoKeysBegin.size());
}

std::string encode_seqno_value(uint64_t seqno) {
  std::string out(8, '\0');
  put_le(out.data(), seqno);
  return out;
}

std::optional<uint64_t> decode_seqno_value(std::string_view bytes) {
  if (bytes.size() != 8) return std::nullopt;
  return get_le<uint64_t>(bytes.data());
}

}  // namespace tern::storage
