#pragma once
// The optional protocol features a client turns on with HELLO, by their wire codes. Each one
// the server acknowledges changes what that connection sends or accepts; the rest are left
// out of HELLO's answer and stay off.

#include <bitset>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace tern::commands {

enum class Feature : uint16_t {
  TcpNodelay = 0x03,
  MutationSeqno = 0x04,  // mutations answer with extras: vbucket uuid u64, seqno u64
  Xattr = 0x06,
  Xerror = 0x07,  // statuses newer than the classic set may be sent
  SelectBucket = 0x08,
  Snappy = 0x0a,  // values may be Snappy-compressed (datatype bit 0x02)
  Json = 0x0b,    // the JSON datatype bit is kept on answers
  Duplex = 0x0c,  // the server may send requests (magic 0x82) on this connection
  ClustermapChangeNotification = 0x0d,  // new cluster maps are pushed (needs Duplex)
  UnorderedExecution = 0x0e,
  Tracing = 0x0f,            // answers carry the server's recv-to-send duration
  AltRequestSupport = 0x10,  // requests may carry framing extras (magic 0x08)
  SyncReplication = 0x11,    // mutations may carry a durability requirement
  Collections = 0x12,        // document keys start with a LEB128 collection id
  PreserveTtl = 0x14,
  // Sub-document mutations may create the document as a tombstone (doc flag CreateAsDeleted):
  // the SDKs' transactions stage inserts so, and refuse to insert without this.
  SubdocCreateAsDeleted = 0x17,
  // XATTR specs may carry raw bytes (path flag BinaryValue), and mutations the document's
  // flags after their expiry: the SDKs' transactions of binary documents need both. The flag
  // and the extras are taken from any client, as Couchbase does; the acknowledgement tells
  // the SDKs that they may send them.
  SubdocBinaryXattr = 0x21,
};

class FeatureSet {
 public:
  // operator[] rather than test(): every answer asks several times, and index() is always
  // in range, so test()'s range check would be wasted.
  bool has(Feature feature) const { return bits_[index(feature)]; }
  void add(Feature feature) { bits_.set(index(feature)); }
  void clear() { bits_.reset(); }

 private:
  static size_t index(Feature feature) { return static_cast<size_t>(feature) & 63; }
  std::bitset<64> bits_;
};

// Whether ternd implements a feature, and so may acknowledge it.
bool is_supported(Feature feature);

// The features to acknowledge for a HELLO asking for `requested` (u16 codes, in order):
// the supported ones, each once, in the order asked, without those whose prerequisite is
// missing (ClustermapChangeNotification without Duplex).
std::vector<Feature> negotiate(std::span<const uint16_t> requested);

// A name for logs ("Collections", ...); "unknown" for codes not listed above.
std::string_view feature_name(Feature feature);

}  // namespace tern::commands
