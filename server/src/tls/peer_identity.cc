#include "tls/peer_identity.h"

#include <openssl/bio.h>
#include <openssl/x509.h>

#include <memory>

namespace tern::tls {

namespace {

std::string one_line(const X509_NAME* name) {
  std::unique_ptr<BIO, decltype(&BIO_free)> out(BIO_new(BIO_s_mem()), BIO_free);
  if (out == nullptr) return {};
  X509_NAME_print_ex(out.get(), name, 0, XN_FLAG_ONELINE & ~ASN1_STRFLGS_ESC_MSB);
  char* data = nullptr;
  const long length = BIO_get_mem_data(out.get(), &data);
  return length > 0 ? std::string(data, static_cast<size_t>(length)) : std::string();
}

// The last CN of `name` (the most specific, when several are given), as UTF-8.
std::string common_name(const X509_NAME* name) {
  int index = -1;
  for (int next = -1; (next = X509_NAME_get_index_by_NID(name, NID_commonName, next)) >= 0;) {
    index = next;
  }
  if (index < 0) return {};
  const ASN1_STRING* value = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(name, index));
  unsigned char* utf8 = nullptr;
  const int length = ASN1_STRING_to_UTF8(&utf8, value);
  if (length < 0) return {};
  std::string cn(reinterpret_cast<const char*>(utf8), static_cast<size_t>(length));
  OPENSSL_free(utf8);
  return cn;
}

}  // namespace

std::optional<PeerCertificate> peer_certificate(const SSL& ssl) {
  const X509* certificate = SSL_get0_peer_certificate(&ssl);
  // With client_auth enabled an unverified certificate fails the handshake; this check only
  // keeps a certificate OpenSSL did not verify from ever naming a user.
  if (certificate == nullptr || SSL_get_verify_result(&ssl) != X509_V_OK) return std::nullopt;
  const X509_NAME* subject = X509_get_subject_name(certificate);
  return PeerCertificate{.subject = one_line(subject), .user = common_name(subject)};
}

}  // namespace tern::tls
