#pragma once
// The server's side of TLS, shared by every listener that speaks it (KV and management) and
// by every connection on them: the certificate chain and key, and the client-certificate
// policy. TLS 1.2 and 1.3 only, OpenSSL's default cipher lists, no renegotiation (a client
// that asks for it gets an alert and its connection ends), no compression.
//
// The pair can be reloaded while connections run (SIGHUP): handshakes that begin after a
// successful reload() use the new pair, open connections keep the one they started with.
// Thread-safe: new_connection() and the callbacks adopt() installs may run on any thread
// while another calls reload().

#include <openssl/ssl.h>

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "common/mutex.h"
#include "tls/tls_settings.h"

namespace tern::tls {

// A file could not be used: the message names it and says why.
class TlsError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct SslFree {
  void operator()(SSL* ssl) const { SSL_free(ssl); }
};
using UniqueSsl = std::unique_ptr<SSL, SslFree>;

class TlsContext {
 public:
  // Loads and checks the files. Throws TlsError, naming the file and the reason, if one is
  // missing or unreadable, holds no PEM certificate (key), the key does not match the
  // certificate, or client_auth is enabled or mandatory without a client_ca.
  explicit TlsContext(TlsSettings settings);
  ~TlsContext();
  TlsContext(const TlsContext&) = delete;
  TlsContext& operator=(const TlsContext&) = delete;

  // Loads the files named by the settings again (certificate, key and client CA). On success
  // new handshakes use them and it returns nullopt; on failure the old ones stay and it
  // returns why (the message a TlsError would carry).
  std::optional<std::string> reload();

  // A server-side SSL object for one new connection, with the current pair and policy.
  // Never null (throws std::bad_alloc when OpenSSL is out of memory).
  UniqueSsl new_connection() const;

  // Makes another library's server context (cpp-httplib's SSLServer) serve this context's
  // current pair, following reloads, with the same protocol versions, options and
  // client-certificate policy. This context must outlive `ctx`.
  void adopt(SSL_CTX& ctx) const;

  const TlsSettings& settings() const { return settings_; }
  ClientAuth client_auth() const { return settings_.client_auth; }

 private:
  using SharedCtx = std::shared_ptr<SSL_CTX>;
  // A fresh context from the settings' files; throws TlsError.
  static SharedCtx load(const TlsSettings& settings);
  SharedCtx current() const;
  // SSL_CTX_set_cert_cb's callback for adopted contexts: `self` is this context.
  static int install_current(SSL* ssl, void* self);

  const TlsSettings settings_;
  mutable Mutex mutex_;  // held only to copy or swap the pointer
  SharedCtx current_ TERN_GUARDED_BY(mutex_);
};

}  // namespace tern::tls
