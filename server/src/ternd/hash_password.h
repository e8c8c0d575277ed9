#pragma once
// `ternd --hash-password`: turns a password into the SCRAM secrets that stand for it in a
// [[user]] table of the --config file, so the file never has to hold the password itself.
// Each run picks fresh random salts, so the same password gives different lines each time;
// any of them logs in with it.
//
// Output, one line per mechanism, strongest first (see config/credential_toml.h):
//   scram_sha512 = { salt = "...", iterations = 15000, stored_key = "...", server_key = "..." }
//   scram_sha256 = { ... }
//   scram_sha1 = { ... }

#include <istream>
#include <ostream>

namespace tern::ternd {

// Reads the password, one line, from `in` (a trailing "\r" is dropped; spaces are kept) and
// writes the lines above to `out`, with auth::kDefaultIterations iterations. When `in` is
// std::cin and standard input is a terminal, it prompts on `err` and reads the password
// twice without echoing it; the two must match. Returns the exit status for main: 0, or 1
// after saying why on `err` (no password, an empty one, a mismatch).
int run_hash_password(std::istream& in, std::ostream& out, std::ostream& err);

}  // namespace tern::ternd
