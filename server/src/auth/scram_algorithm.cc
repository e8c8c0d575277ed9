#include "auth/scram_algorithm.h"

namespace tern::auth {

std::string_view mechanism_name(ScramAlgorithm algorithm) {
  switch (algorithm) {
    case ScramAlgorithm::Sha1:
      return "SCRAM-SHA1";
    case ScramAlgorithm::Sha256:
      return "SCRAM-SHA256";
    case ScramAlgorithm::Sha512:
      return "SCRAM-SHA512";
  }
  return {};
}

std::optional<ScramAlgorithm> algorithm_for_mechanism(std::string_view name) {
  for (ScramAlgorithm algorithm : kScramAlgorithmsStrongestFirst) {
    if (name == mechanism_name(algorithm)) return algorithm;
  }
  return std::nullopt;
}

size_t digest_size(ScramAlgorithm algorithm) {
  switch (algorithm) {
    case ScramAlgorithm::Sha1:
      return 20;
    case ScramAlgorithm::Sha256:
      return 32;
    case ScramAlgorithm::Sha512:
      return 64;
  }
  return 0;
}

}  // namespace tern::auth
