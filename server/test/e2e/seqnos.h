#pragma once
// Seqnos on the wire, for tests that compare what a server acknowledged with what it has on
// disk: the seqno of a mutation's answer (its mutation token, with MutationSeqno negotiated),
// the vbucket a persistent bucket numbers a key's mutations on, and how far the server has
// persisted that vbucket (OBSERVE_SEQNO).

#include <cstdint>
#include <optional>
#include <string>

#include "couchbase_session.h"

namespace tern::e2e {

// The seqno in the mutation token of `answer`, or nullopt if it carries none.
std::optional<uint64_t> token_seqno(const Response& answer);

// The vbucket a persistent bucket files `key` (in the default collection) under, whatever
// vbucket the request named: the one the key hashes to.
uint16_t filed_vbucket(const std::string& key);

// OBSERVE_SEQNO of `vbucket`: the seqno up to which the server has persisted its mutations.
// A failed request fails the test and gives nullopt.
std::optional<uint64_t> persisted_seqno(CouchbaseSession& session, uint16_t vbucket);

}  // namespace tern::e2e
