#pragma once
// For tests: the client side of TLS, as a test drives it against the server's. Test-only.

#include <openssl/ssl.h>

#include <memory>
#include <stdexcept>
#include <string>

namespace tern::tls::testing {

using UniqueCtx = std::unique_ptr<SSL_CTX, decltype(&SSL_CTX_free)>;

struct ClientOptions {
  std::string ca = {};           // PEM file of the CA to trust; empty: accept any server
  std::string certificate = {};  // PEM file of a client certificate to present; empty: none
  std::string private_key = {};  // its key
  int min_version = 0;           // e.g. TLS1_1_VERSION; 0: OpenSSL's default
  int max_version = 0;
};

inline UniqueCtx client_context(const ClientOptions& options = {}) {
  UniqueCtx ctx(SSL_CTX_new(TLS_client_method()), SSL_CTX_free);
  if (ctx == nullptr) throw std::runtime_error("SSL_CTX_new failed");
  if (!options.ca.empty()) {
    if (SSL_CTX_load_verify_locations(ctx.get(), options.ca.c_str(), nullptr) != 1) {
      throw std::runtime_error("cannot load " + options.ca);
    }
    SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER, nullptr);
  }
  if (options.min_version != 0) {
    SSL_CTX_set_min_proto_version(ctx.get(), options.min_version);
    if (options.min_version < TLS1_2_VERSION) {
      // Old protocols are below OpenSSL's (and Debian's) default security level.
      SSL_CTX_set_security_level(ctx.get(), 0);
      SSL_CTX_set_cipher_list(ctx.get(), "DEFAULT:@SECLEVEL=0");
    }
  }
  if (options.max_version != 0) SSL_CTX_set_max_proto_version(ctx.get(), options.max_version);
  if (!options.certificate.empty()) {
    if (SSL_CTX_use_certificate_file(ctx.get(), options.certificate.c_str(), SSL_FILETYPE_PEM) !=
            1 ||
        SSL_CTX_use_PrivateKey_file(ctx.get(), options.private_key.c_str(), SSL_FILETYPE_PEM) !=
            1) {
      throw std::runtime_error("cannot load " + options.certificate);
    }
  }
  return ctx;
}

}  // namespace tern::tls::testing
