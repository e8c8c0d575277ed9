#include "seqnos.h"

#include <gtest/gtest.h>

#include "cluster/vbucket_of.h"

namespace tern::e2e {

std::optional<uint64_t> token_seqno(const Response& answer) {
  // Extras: vbucket uuid u64, seqno u64.
  if (answer.extras.size() != 16) return std::nullopt;
  return read_be64(answer.extras, 8);
}

uint16_t filed_vbucket(const std::string& key) {
  return cluster::vbucket_of(key, cluster::kVBucketCount);
}

std::optional<uint64_t> persisted_seqno(CouchbaseSession& session, uint16_t vbucket) {
  // The value is the uuid the client knows; any will do: an unknown one only adds the
  // failover fields after those read here (format u8, vbucket u16, uuid u64, persisted seqno
  // u64, current seqno u64).
  Request observe = simple(Opcode::ObserveSeqno, "", be64(0));
  observe.vbucket = vbucket;
  const Response answer = session.call(observe);
  EXPECT_EQ(answer.status, Status::Success) << "OBSERVE_SEQNO of vbucket " << vbucket;
  EXPECT_GE(answer.value.size(), 27u) << "OBSERVE_SEQNO of vbucket " << vbucket;
  if (answer.status != Status::Success || answer.value.size() < 27) return std::nullopt;
  return read_be64(answer.value, 11);
}

}  // namespace tern::e2e
