#pragma once
// The hash algorithms SCRAM runs on, and the SASL mechanism names Couchbase gives them
// ("SCRAM-SHA512", not RFC 7677's "SCRAM-SHA-256" spelling: the SDKs send these).

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

namespace tern::auth {

enum class ScramAlgorithm { Sha1, Sha256, Sha512 };

// Every algorithm, strongest first: the order mechanisms are offered and tried in.
inline constexpr std::array<ScramAlgorithm, 3> kScramAlgorithmsStrongestFirst = {
    ScramAlgorithm::Sha512, ScramAlgorithm::Sha256, ScramAlgorithm::Sha1};

// "SCRAM-SHA512", "SCRAM-SHA256" or "SCRAM-SHA1".
std::string_view mechanism_name(ScramAlgorithm algorithm);

// The algorithm a mechanism name stands for; nullopt for any other name (case matters).
std::optional<ScramAlgorithm> algorithm_for_mechanism(std::string_view name);

// Bytes in the algorithm's digest: 20, 32 or 64. Keys, proofs and signatures have this size.
size_t digest_size(ScramAlgorithm algorithm);

}  // namespace tern::auth
