#pragma once
// For tests: the client's side of SCRAM, written straight on OpenSSL rather than on the
// server's helpers, so that a round trip checks the server against an independent reading
// of RFC 5802. Only the happy path: it trusts the server's messages.

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <string>
#include <string_view>

#include "auth/scram_algorithm.h"

namespace tern::auth {

class TestScramClient {
 public:
  // `user` goes into the message as given, so a test can escape it (or not) itself.
  TestScramClient(ScramAlgorithm algorithm, std::string user, std::string password,
                  std::string nonce = "2bEDcRKfKoLVbDPtdZqXxQ")
      : md_(algorithm == ScramAlgorithm::Sha1     ? EVP_sha1()
            : algorithm == ScramAlgorithm::Sha256 ? EVP_sha256()
                                                  : EVP_sha512()),
        password_(std::move(password)),
        bare_("n=" + user + ",r=" + nonce) {}

  std::string first() const { return "n,," + bare_; }

  // client-final for the server-first "r=...,s=...,i=...", with the proof computed here.
  std::string final(std::string_view server_first) {
    std::string_view rest = server_first;
    std::string nonce(field(rest, "r="));
    std::string salt = decode(field(rest, "s="));
    int iterations = std::stoi(std::string(field(rest, "i=")));

    std::string salted(EVP_MD_get_size(md_), '\0');
    PKCS5_PBKDF2_HMAC(password_.data(), static_cast<int>(password_.size()),
                      reinterpret_cast<const unsigned char*>(salt.data()),
                      static_cast<int>(salt.size()), iterations, md_,
                      static_cast<int>(salted.size()),
                      reinterpret_cast<unsigned char*>(salted.data()));
    std::string without_proof = "c=biws,r=" + nonce;
    auth_message_ = bare_ + "," + std::string(server_first) + "," + without_proof;
    std::string client_key = mac(salted, "Client Key");
    std::string stored_key(EVP_MD_get_size(md_), '\0');
    EVP_Digest(client_key.data(), client_key.size(),
               reinterpret_cast<unsigned char*>(stored_key.data()), nullptr, md_, nullptr);
    std::string proof = mac(stored_key, auth_message_);
    for (size_t i = 0; i < proof.size(); ++i) proof[i] ^= client_key[i];
    server_key_ = mac(salted, "Server Key");
    return without_proof + ",p=" + encode(proof);
  }

  // The server-final a genuine server answers final() with.
  std::string expected_server_final() const {
    return "v=" + encode(mac(server_key_, auth_message_));
  }

 private:
  // Takes "<name>value," off the front of `rest` and returns the value.
  static std::string_view field(std::string_view& rest, std::string_view name) {
    if (!rest.starts_with(name)) return {};
    size_t end = std::min(rest.find(','), rest.size());
    std::string_view value = rest.substr(name.size(), end - name.size());
    rest.remove_prefix(std::min(end + 1, rest.size()));
    return value;
  }
  std::string mac(std::string_view key, std::string_view data) const {
    std::string out(EVP_MD_get_size(md_), '\0');
    HMAC(md_, key.data(), static_cast<int>(key.size()),
         reinterpret_cast<const unsigned char*>(data.data()), data.size(),
         reinterpret_cast<unsigned char*>(out.data()), nullptr);
    return out;
  }
  static std::string encode(std::string_view bytes) {
    std::string text(4 * ((bytes.size() + 2) / 3) + 1, '\0');
    int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(text.data()),
                            reinterpret_cast<const unsigned char*>(bytes.data()),
                            static_cast<int>(bytes.size()));
    text.resize(n);
    return text;
  }
  static std::string decode(std::string_view text) {
    std::string bytes(3 * text.size() / 4 + 1, '\0');
    int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(bytes.data()),
                            reinterpret_cast<const unsigned char*>(text.data()),
                            static_cast<int>(text.size()));
    bytes.resize(n - (text.ends_with("==") ? 2 : text.ends_with("=") ? 1 : 0));
    return bytes;
  }

  const EVP_MD* md_;
  std::string password_;
  std::string bare_;
  std::string auth_message_;
  std::string server_key_;
};

}  // namespace tern::auth
