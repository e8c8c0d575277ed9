// libFuzzer target: the client's side of a SASL exchange is fuzzed, the server's is real.
//
// The first byte picks what is driven: a SaslExchange (any mechanism name, PLAIN or SCRAM,
// then the client's messages), or a ScramServer whose server nonce is fixed, so that a
// fuzzed client-final can repeat it and reach the proof check, or an honest SCRAM client
// (test_scram_client.h) with a fuzzed name, password and nonce, which must succeed exactly
// when the name and password are a user's. The messages' parsers are checked on their own
// too. Credentials use one PBKDF2 iteration, so that each input costs microseconds.

#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "auth/sasl_exchange.h"
#include "auth/scram_message.h"
#include "auth/scram_server.h"
#include "auth/test_scram_client.h"
#include "auth/user.h"
#include "common/fuzz_check.h"

namespace {

using namespace tern;
using namespace tern::auth;

constexpr std::string_view kUser = "user";
constexpr std::string_view kPassword = "pencil";
constexpr std::string_view kServerNonce = "3rfcNHYJY1ZVvWVs7j";

const UserDirectory& directory() {
  static const UserDirectory* users = [] {
    auto* made = new UserDirectory;
    User user{.name = std::string(kUser), .credentials = {}, .buckets = {"*"}, .admin = false};
    for (ScramAlgorithm algorithm : kScramAlgorithmsStrongestFirst) {
      user.credentials.push_back(derive_credential(algorithm, kPassword, "salt", 1));
    }
    made->add(std::move(user));
    return made;
  }();
  return *users;
}

void check_parsers(std::string_view message) {
  if (auto first = parse_client_first(message)) {
    TERN_FUZZ_CHECK(message.starts_with(first->gs2_header));
    TERN_FUZZ_CHECK(message.ends_with(first->bare));
    TERN_FUZZ_CHECK(!first->user.empty());
    TERN_FUZZ_CHECK(is_valid_nonce(first->nonce));
  }
  if (auto final = parse_client_final(message)) {
    TERN_FUZZ_CHECK(message.starts_with(final->without_proof));
    TERN_FUZZ_CHECK(is_valid_nonce(final->nonce));
  }
  if (auto name = decode_saslname(message)) {
    TERN_FUZZ_CHECK(!name->empty() && name->size() <= message.size());
  }
}

void drive_sasl_exchange(FuzzedDataProvider& input) {
  static constexpr std::string_view kMechanisms[] = {"SCRAM-SHA512", "SCRAM-SHA256", "SCRAM-SHA1",
                                                     "PLAIN"};
  const bool plain_allowed = input.ConsumeBool();
  const uint8_t choice = input.ConsumeIntegral<uint8_t>();
  const std::string mechanism =
      choice < 4 ? std::string(kMechanisms[choice]) : input.ConsumeRandomLengthString(32);
  SaslExchange exchange(directory(), plain_allowed);
  SaslResult result = exchange.start(mechanism, input.ConsumeRandomLengthString());
  for (int step = 0; step < 3; ++step) {
    if (result.outcome == SaslOutcome::Success) {
      TERN_FUZZ_CHECK(result.user == kUser);
    } else {
      TERN_FUZZ_CHECK(result.user.empty());
    }
    if (result.outcome == SaslOutcome::Continue) {
      TERN_FUZZ_CHECK(result.challenge.starts_with("r=") && result.challenge.ends_with(",i=1"));
    }
    const bool was_in_progress = result.outcome == SaslOutcome::Continue;
    result = exchange.step(input.ConsumeRandomLengthString());
    if (!was_in_progress) TERN_FUZZ_CHECK(result.outcome == SaslOutcome::NotStarted);
  }
}

ScramServer fixed_nonce_server(ScramAlgorithm algorithm) {
  return ScramServer(
      algorithm,
      [algorithm](std::string_view name) -> const ScramCredential* {
        const User* user = directory().find(name);
        return user ? user->credential(algorithm) : nullptr;
      },
      /*decoy_iterations=*/1, [] { return std::string(kServerNonce); });
}

void drive_scram_server(FuzzedDataProvider& input, ScramAlgorithm algorithm) {
  ScramServer server = fixed_nonce_server(algorithm);
  const std::string client_first = input.ConsumeRandomLengthString();
  const ScramReply first = server.first(client_first);
  check_parsers(client_first);
  if (first.outcome != ScramOutcome::Continue) {
    TERN_FUZZ_CHECK(first.message.empty());
    TERN_FUZZ_CHECK(server.final("c=biws,r=x,p=eA==").outcome == ScramOutcome::Malformed);
    return;
  }
  TERN_FUZZ_CHECK(first.message.find(kServerNonce) != std::string::npos);
  const std::string client_final = input.ConsumeRandomLengthString();
  const ScramReply final = server.final(client_final);
  check_parsers(client_final);
  // Without the password no input may pass the proof.
  TERN_FUZZ_CHECK(final.outcome != ScramOutcome::Success);
  TERN_FUZZ_CHECK(final.message.empty());
  TERN_FUZZ_CHECK(server.final(client_final).outcome == ScramOutcome::Malformed);
}

void drive_honest_client(FuzzedDataProvider& input, ScramAlgorithm algorithm) {
  const std::string user = input.ConsumeRandomLengthString(16);
  const std::string password = input.ConsumeRandomLengthString(16);
  const std::string nonce = input.ConsumeRandomLengthString(32);
  TestScramClient client(algorithm, user, password, nonce);
  ScramServer server = fixed_nonce_server(algorithm);
  const ScramReply first = server.first(client.first());
  if (first.outcome != ScramOutcome::Continue) return;  // the name or nonce is not SCRAM's
  const ScramReply final = server.final(client.final(first.message));
  // HMAC pads its key with zero bytes, so PBKDF2 cannot tell "pencil" from "pencil\0".
  std::string_view unpadded = password;
  while (unpadded.ends_with('\0')) unpadded.remove_suffix(1);
  const bool genuine = user == kUser && unpadded == kPassword;
  TERN_FUZZ_CHECK((final.outcome == ScramOutcome::Success) == genuine);
  if (genuine) TERN_FUZZ_CHECK(final.message == client.expected_server_final());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider input(data, size);
  const uint8_t mode = input.ConsumeIntegral<uint8_t>();
  const ScramAlgorithm algorithm = kScramAlgorithmsStrongestFirst[mode / 3 % 3];
  switch (mode % 3) {
    case 0:
      drive_sasl_exchange(input);
      break;
    case 1:
      drive_scram_server(input, algorithm);
      break;
    default:
      drive_honest_client(input, algorithm);
      break;
  }
  return 0;
}
