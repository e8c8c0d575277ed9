#include "tls/tls_context.h"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <new>
#include <utility>
#include <vector>

#include "tls/openssl_error.h"

namespace tern::tls {

namespace {

using UniqueBio = std::unique_ptr<BIO, decltype(&BIO_free)>;
using UniqueX509 = std::unique_ptr<X509, decltype(&X509_free)>;
using UniqueKey = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;

constexpr unsigned char kSessionIdContext[] = "ternd";

// `what` and `path` for messages: `certificate file "tls/server.pem"`.
std::string named(const char* what, const std::string& path) {
  return std::string(what) + " file \"" + path + "\"";
}

// The whole file, in a memory BIO; throws TlsError naming it if it cannot be read.
UniqueBio read_file(const char* what, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw TlsError(named(what, path) + ": " + std::strerror(errno));
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw TlsError(named(what, path) + ": " + std::strerror(errno));
  UniqueBio bio(BIO_new(BIO_s_mem()), BIO_free);
  if (bio == nullptr || BIO_write(bio.get(), bytes.data(), static_cast<int>(bytes.size())) !=
                            static_cast<int>(bytes.size())) {
    throw std::bad_alloc();
  }
  return bio;
}

// Every PEM certificate in the file, in order; throws TlsError if there is none.
std::vector<UniqueX509> read_certificates(const char* what, const std::string& path) {
  UniqueBio bio = read_file(what, path);
  std::vector<UniqueX509> certificates;
  clear_openssl_errors();
  while (X509* certificate = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
    certificates.emplace_back(certificate, X509_free);
  }
  // The loop ends at the end of the file (no start line): only another error is one.
  const unsigned long last = ERR_peek_last_error();
  if (ERR_GET_LIB(last) == ERR_LIB_PEM && ERR_GET_REASON(last) == PEM_R_NO_START_LINE) {
    clear_openssl_errors();
  }
  if (certificates.empty() || ERR_peek_error() != 0) {
    throw TlsError(named(what, path) + " holds no valid PEM certificate: " +
                   take_openssl_errors("no certificate found"));
  }
  return certificates;
}

UniqueKey read_private_key(const std::string& path) {
  UniqueBio bio = read_file("private key", path);
  clear_openssl_errors();
  // No passphrase: without this callback OpenSSL would prompt for one on the terminal.
  auto no_passphrase = [](char*, int, int, void*) { return 0; };
  UniqueKey key(PEM_read_bio_PrivateKey(bio.get(), nullptr, no_passphrase, nullptr), EVP_PKEY_free);
  if (key == nullptr) {
    throw TlsError(named("private key", path) +
                   " holds no unencrypted PEM private key: " + take_openssl_errors());
  }
  return key;
}

int verify_mode(ClientAuth mode) {
  switch (mode) {
    case ClientAuth::kDisabled:
      return SSL_VERIFY_NONE;
    case ClientAuth::kEnabled:
      return SSL_VERIFY_PEER;
    case ClientAuth::kMandatory:
      return SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
  }
  return SSL_VERIFY_NONE;
}

// What every server context of ternd shares, its own or adopted: the protocol versions, the
// options, and the client-certificate policy.
void apply_policy(SSL_CTX& ctx, ClientAuth client_auth) {
  SSL_CTX_set_min_proto_version(&ctx, TLS1_2_VERSION);
  SSL_CTX_set_options(
      &ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION | SSL_OP_CIPHER_SERVER_PREFERENCE);
  // Sessions are resumed only by the contexts that made them; OpenSSL refuses to resume
  // one without this when it verifies client certificates.
  SSL_CTX_set_session_id_context(&ctx, kSessionIdContext, sizeof kSessionIdContext - 1);
  SSL_CTX_set_verify(&ctx, verify_mode(client_auth), nullptr);
}

}  // namespace

TlsContext::TlsContext(TlsSettings settings)
    : settings_(std::move(settings)), current_(load(settings_)) {}

TlsContext::~TlsContext() = default;

TlsContext::SharedCtx TlsContext::load(const TlsSettings& settings) {
  if (settings.client_auth != ClientAuth::kDisabled && settings.client_ca.empty()) {
    throw TlsError(std::string("client_auth \"") +
                   std::string(client_auth_name(settings.client_auth)) +
                   "\" needs a client_ca file");
  }
  std::vector<UniqueX509> chain = read_certificates("certificate", settings.certificate);
  UniqueKey key = read_private_key(settings.private_key);

  SharedCtx ctx(SSL_CTX_new(TLS_server_method()), SSL_CTX_free);
  if (ctx == nullptr) throw std::bad_alloc();
  apply_policy(*ctx, settings.client_auth);
  clear_openssl_errors();
  if (SSL_CTX_use_certificate(ctx.get(), chain.front().get()) != 1) {
    throw TlsError(named("certificate", settings.certificate) +
                   " cannot be used: " + take_openssl_errors());
  }
  for (size_t i = 1; i < chain.size(); ++i) {
    if (SSL_CTX_add1_chain_cert(ctx.get(), chain[i].get()) != 1) throw std::bad_alloc();
  }
  if (SSL_CTX_use_PrivateKey(ctx.get(), key.get()) != 1 ||
      SSL_CTX_check_private_key(ctx.get()) != 1) {
    throw TlsError(named("private key", settings.private_key) +
                   " does not match the certificate in \"" + settings.certificate +
                   "\": " + take_openssl_errors());
  }
  if (!settings.client_ca.empty()) {
    X509_STORE* store = SSL_CTX_get_cert_store(ctx.get());
    for (const UniqueX509& ca : read_certificates("client CA", settings.client_ca)) {
      if (X509_STORE_add_cert(store, ca.get()) != 1 ||
          SSL_CTX_add_client_CA(ctx.get(), ca.get()) != 1) {
        throw TlsError(named("client CA", settings.client_ca) +
                       " cannot be used: " + take_openssl_errors());
      }
    }
  }
  return ctx;
}

std::optional<std::string> TlsContext::reload() {
  try {
    SharedCtx fresh = load(settings_);
    MutexLock lock(mutex_);
    current_.swap(fresh);
  } catch (const TlsError& error) {
    return error.what();
  }
  return std::nullopt;  // the old context goes with `fresh`, outside the lock
}

TlsContext::SharedCtx TlsContext::current() const {
  MutexLock lock(mutex_);
  return current_;
}

UniqueSsl TlsContext::new_connection() const {
  UniqueSsl ssl(SSL_new(current().get()));  // holds its own reference to the context
  if (ssl == nullptr) throw std::bad_alloc();
  return ssl;
}

void TlsContext::adopt(SSL_CTX& ctx) const {
  apply_policy(ctx, settings_.client_auth);
  SSL_CTX_set_cert_cb(&ctx, &TlsContext::install_current, const_cast<TlsContext*>(this));
}

int TlsContext::install_current(SSL* ssl, void* self) {
  const SharedCtx ctx = static_cast<const TlsContext*>(self)->current();
  STACK_OF(X509)* chain = nullptr;
  SSL_CTX_get0_chain_certs(ctx.get(), &chain);
  if (SSL_use_cert_and_key(ssl, SSL_CTX_get0_certificate(ctx.get()),
                           SSL_CTX_get0_privatekey(ctx.get()), chain, 1) != 1) {
    return 0;  // the handshake fails
  }
  // The client CAs too, which reload() may have changed.
  if (SSL_set1_verify_cert_store(ssl, SSL_CTX_get_cert_store(ctx.get())) != 1) return 0;
  if (STACK_OF(X509_NAME)* names = SSL_CTX_get_client_CA_list(ctx.get())) {
    SSL_set_client_CA_list(ssl, SSL_dup_CA_list(names));
  }
  return 1;
}

}  // namespace tern::tls
