#pragma once
// For tests: certificates made at test time with OpenSSL's C API (no secret in git, no
// openssl binary needed), written as PEM files into a directory the caller owns (e.g. a
// storage::TempDir). EC P-256 keys: making one costs microseconds, not an RSA key's
// tens of milliseconds. Test-only (header-only, so the library does not carry it).
//
// The files TestCertificates writes:
//   ca.pem                          the test CA
//   server.pem, server.key          a server certificate for localhost and 127.0.0.1 from
//                                   the CA; server.pem holds the chain (leaf, then the CA)
//   other-ca.pem                    a second CA, which no test context trusts
//   other-server.pem, other-server.key  a server certificate from the other CA
//   expired-server.pem, expired-server.key  from the CA, expired a day ago
//   client.pem, client.key          a client certificate from the CA, CN=alice
//   other-client.pem, other-client.key  a client certificate from the other CA, CN=alice

#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace tern::tls::testing {

using UniqueKey = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;
using UniqueCertificate = std::unique_ptr<X509, decltype(&X509_free)>;

// A key and the certificate made for it.
struct Identity {
  UniqueKey key{nullptr, EVP_PKEY_free};
  UniqueCertificate certificate{nullptr, X509_free};
};

inline void require(bool ok, const char* what) {
  if (!ok) throw std::runtime_error(std::string("test certificates: ") + what + " failed");
}

inline UniqueKey make_key() {
  UniqueKey key(EVP_EC_gen("P-256"), EVP_PKEY_free);
  require(key != nullptr, "EVP_EC_gen");
  return key;
}

inline void add_extension(X509* certificate, X509* issuer, int nid, const char* value) {
  X509V3_CTX context;
  X509V3_set_ctx_nodb(&context);
  X509V3_set_ctx(&context, issuer, certificate, nullptr, nullptr, 0);
  X509_EXTENSION* extension = X509V3_EXT_conf_nid(nullptr, &context, nid, value);
  require(extension != nullptr, "X509V3_EXT_conf_nid");
  require(X509_add_ext(certificate, extension, -1) == 1, "X509_add_ext");
  X509_EXTENSION_free(extension);
}

struct CertificateSpec {
  std::string common_name = {};
  bool ca = false;
  std::string subject_alt_names = {};  // e.g. "DNS:localhost,IP:127.0.0.1"; empty for none
  long valid_from_seconds = -3600;     // relative to now
  long valid_until_seconds = 24 * 3600;
  bool client = false;  // extended key usage clientAuth instead of serverAuth
};

// A new key and its certificate, signed by `issuer` (self-signed when null).
inline Identity make_identity(const CertificateSpec& spec, const Identity* issuer = nullptr) {
  static long serial = 1;
  Identity made;
  made.key = make_key();
  made.certificate.reset(X509_new());
  X509* certificate = made.certificate.get();
  require(certificate != nullptr, "X509_new");
  X509_set_version(certificate, 2);
  ASN1_INTEGER_set(X509_get_serialNumber(certificate), serial++);
  X509_gmtime_adj(X509_getm_notBefore(certificate), spec.valid_from_seconds);
  X509_gmtime_adj(X509_getm_notAfter(certificate), spec.valid_until_seconds);
  X509_NAME* name = X509_get_subject_name(certificate);
  X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>("Tern tests"), -1, -1, 0);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                             reinterpret_cast<const unsigned char*>(spec.common_name.c_str()), -1,
                             -1, 0);
  X509* issuer_certificate = issuer ? issuer->certificate.get() : certificate;
  X509_set_issuer_name(certificate, X509_get_subject_name(issuer_certificate));
  X509_set_pubkey(certificate, made.key.get());
  add_extension(certificate, issuer_certificate, NID_subject_key_identifier, "hash");
  add_extension(certificate, issuer_certificate, NID_authority_key_identifier, "keyid:always");
  if (spec.ca) {
    add_extension(certificate, issuer_certificate, NID_basic_constraints, "critical,CA:TRUE");
    add_extension(certificate, issuer_certificate, NID_key_usage, "critical,keyCertSign,cRLSign");
  } else {
    add_extension(certificate, issuer_certificate, NID_basic_constraints, "critical,CA:FALSE");
    add_extension(certificate, issuer_certificate, NID_key_usage,
                  "critical,digitalSignature,keyEncipherment");
    add_extension(certificate, issuer_certificate, NID_ext_key_usage,
                  spec.client ? "clientAuth" : "serverAuth");
  }
  if (!spec.subject_alt_names.empty()) {
    add_extension(certificate, issuer_certificate, NID_subject_alt_name,
                  spec.subject_alt_names.c_str());
  }
  EVP_PKEY* signer = issuer ? issuer->key.get() : made.key.get();
  require(X509_sign(certificate, signer, EVP_sha256()) > 0, "X509_sign");
  return made;
}

// Writes the certificates, in order, to `path`.
inline void write_certificates(const std::filesystem::path& path,
                               const std::vector<const X509*>& certificates) {
  FILE* file = std::fopen(path.c_str(), "w");
  require(file != nullptr, "fopen");
  for (const X509* certificate : certificates) {
    require(PEM_write_X509(file, certificate) == 1, "PEM_write_X509");
  }
  std::fclose(file);
}

inline void write_key(const std::filesystem::path& path, const EVP_PKEY* key) {
  FILE* file = std::fopen(path.c_str(), "w");
  require(file != nullptr, "fopen");
  require(PEM_write_PrivateKey(file, key, nullptr, nullptr, 0, nullptr, nullptr) == 1,
          "PEM_write_PrivateKey");
  std::fclose(file);
}

inline constexpr const char* kServerNames = "DNS:localhost,IP:127.0.0.1";

class TestCertificates {
 public:
  // Makes the certificates listed above and writes them into `dir`, which must exist.
  explicit TestCertificates(std::filesystem::path dir) : dir_(std::move(dir)) {
    ca_ = make_identity({.common_name = "Tern test CA", .ca = true});
    other_ca_ = make_identity({.common_name = "Tern other CA", .ca = true});
    write_certificates(path("ca.pem"), {ca_.certificate.get()});
    write_certificates(path("other-ca.pem"), {other_ca_.certificate.get()});
    write_server("server", {.common_name = "localhost", .subject_alt_names = kServerNames});
    write_server("other-server", {.common_name = "localhost", .subject_alt_names = kServerNames},
                 other_ca_);
    write_server("expired-server", {.common_name = "localhost",
                                    .subject_alt_names = kServerNames,
                                    .valid_from_seconds = -10 * 24 * 3600,
                                    .valid_until_seconds = -24 * 3600});
    write_client("client", "alice");
    write_client("other-client", "alice", other_ca_);
  }

  // A file of the directory, by name ("server.pem").
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // Writes NAME.pem (the certificate, then the CA's) and NAME.key, issued by the CA.
  void write_server(const std::string& name, const CertificateSpec& spec) {
    write_server(name, spec, ca_);
  }
  // Writes NAME.pem and NAME.key: a client certificate with CN=`user`, issued by the CA.
  void write_client(const std::string& name, const std::string& user) {
    write_client(name, user, ca_);
  }

  const Identity& ca() const { return ca_; }

 private:
  void write_server(const std::string& name, const CertificateSpec& spec, const Identity& by) {
    const Identity server = make_identity(spec, &by);
    write_certificates(path(name + ".pem"), {server.certificate.get(), by.certificate.get()});
    write_key(path(name + ".key"), server.key.get());
  }
  void write_client(const std::string& name, const std::string& user, const Identity& by) {
    const Identity client = make_identity({.common_name = user, .client = true}, &by);
    write_certificates(path(name + ".pem"), {client.certificate.get()});
    write_key(path(name + ".key"), client.key.get());
  }

  std::filesystem::path dir_;
  Identity ca_;
  Identity other_ca_;
};

}  // namespace tern::tls::testing
