// TlsContext against a real OpenSSL client, in memory (a BIO pair): which files it accepts
// and how it names the bad ones, reloads, the protocol versions it refuses, and each
// client-certificate policy; and adopt(), which cpp-httplib's server uses.
#include "tls/tls_context.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <openssl/err.h>

#include <fstream>
#include <optional>
#include <string>

#include "storage/temp_dir.h"
#include "tls/openssl_error.h"
#include "tls/peer_identity.h"
#include "tls/test_certificates.h"
#include "tls/test_client.h"

namespace tern::tls {
namespace {

using testing::ClientOptions;
using ::testing::HasSubstr;
using testing::TestCertificates;

// The outcome of one handshake: the server's SSL (for its peer's certificate), what the
// client saw of the server's certificate, and the server's error if it failed.
struct Handshake {
  UniqueSsl server;
  UniqueSsl client;
  bool ok = false;
  std::string error;  // the server's, or the client's when only the client failed
  std::string version;
  std::optional<PeerCertificate> server_certificate;  // as the client verified it
};

bool fatal(SSL* ssl, int result) {
  const int error = SSL_get_error(ssl, result);
  return error != SSL_ERROR_WANT_READ && error != SSL_ERROR_WANT_WRITE;
}

// Runs a handshake between `server` and a client of `options` through a BIO pair, then
// one byte each way (in TLS 1.3 the server judges the client's certificate after the client
// believes the handshake done: only the exchange shows the outcome on both sides).
Handshake handshake(UniqueSsl server, const ClientOptions& options) {
  Handshake result;
  testing::UniqueCtx client_ctx = testing::client_context(options);
  result.client.reset(SSL_new(client_ctx.get()));
  result.server = std::move(server);
  BIO* client_end = nullptr;
  BIO* server_end = nullptr;
  BIO_new_bio_pair(&client_end, 0, &server_end, 0);
  SSL_set_bio(result.client.get(), client_end, client_end);
  SSL_set_bio(result.server.get(), server_end, server_end);
  SSL_set_connect_state(result.client.get());
  SSL_set_accept_state(result.server.get());
  clear_openssl_errors();
  bool client_done = false, server_done = false;
  for (int i = 0; i < 50 && !(client_done && server_done); ++i) {
    if (!client_done) {
      const int r = SSL_do_handshake(result.client.get());
      client_done = r == 1;
      if (!client_done && fatal(result.client.get(), r)) {
        result.error = "client: " + take_openssl_errors();
        // Let the server read the client's alert, if any.
        SSL_do_handshake(result.server.get());
        return result;
      }
    }
    if (!server_done) {
      const int r = SSL_do_handshake(result.server.get());
      server_done = r == 1;
      if (!server_done && fatal(result.server.get(), r)) {
        result.error = take_openssl_errors();
        return result;
      }
    }
  }
  // One byte each way: the server reads the client's, which carries its verdict in TLS 1.3.
  uint8_t byte = 'x';
  size_t n = 0;
  if (SSL_write_ex(result.client.get(), &byte, 1, &n) != 1 ||
      SSL_read_ex(result.server.get(), &byte, 1, &n) != 1) {
    result.error = take_openssl_errors();
    return result;
  }
  if (SSL_write_ex(result.server.get(), &byte, 1, &n) != 1 ||
      SSL_read_ex(result.client.get(), &byte, 1, &n) != 1) {
    result.error = "client: " + take_openssl_errors();
    return result;
  }
  result.ok = true;
  result.version = SSL_get_version(result.server.get());
  result.server_certificate = peer_certificate(*result.client);
  return result;
}

// The user the client certificate on `ssl` names, or "(none)".
std::string client_user(const SSL& ssl) {
  const std::optional<PeerCertificate> peer = peer_certificate(ssl);
  return peer ? peer->user : "(none)";
}

// The CN of the certificate the client verified, or "(none)".
std::string server_name(const Handshake& result) {
  return result.server_certificate ? result.server_certificate->user : "(none)";
}

class TlsContextTest : public ::testing::Test {
 protected:
  std::string file(const std::string& name) const { return certificates_.path(name); }

  TlsSettings server_settings(ClientAuth client_auth = ClientAuth::kDisabled) const {
    return {.certificate = file("server.pem"),
            .private_key = file("server.key"),
            .client_ca = client_auth == ClientAuth::kDisabled ? "" : file("ca.pem"),
            .client_auth = client_auth};
  }

  ClientOptions trusting_client() const { return {.ca = file("ca.pem")}; }
  ClientOptions client_with(const std::string& name) const {
    return {.ca = file("ca.pem"),
            .certificate = file(name + ".pem"),
            .private_key = file(name + ".key")};
  }

  void write(const std::string& name, const std::string& text) {
    std::ofstream(file(name)) << text;
  }

  // The message of the TlsError that loading `settings` throws ("" if it loads).
  static std::string load_error(const TlsSettings& settings) {
    try {
      TlsContext context(settings);
    } catch (const TlsError& error) {
      return error.what();
    }
    return "";
  }

  storage::TempDir dir_;
  TestCertificates certificates_{dir_.path()};
};

TEST_F(TlsContextTest, ServesItsChainToAClientThatTrustsTheCa) {
  TlsContext context(server_settings());
  const Handshake result = handshake(context.new_connection(), trusting_client());
  ASSERT_TRUE(result.ok) << result.error;
  ASSERT_TRUE(result.server_certificate.has_value());
  EXPECT_EQ(server_name(result), "localhost");
  EXPECT_THAT(result.server_certificate->subject, HasSubstr("CN = localhost"));
  EXPECT_EQ(result.version, "TLSv1.3");
}

TEST_F(TlsContextTest, AClientThatTrustsAnotherCaRefusesTheServer) {
  TlsContext context(server_settings());
  const Handshake result = handshake(context.new_connection(), {.ca = file("other-ca.pem")});
  EXPECT_FALSE(result.ok);
  EXPECT_THAT(result.error, HasSubstr("certificate verify failed"));
}

TEST_F(TlsContextTest, AMissingFileIsNamed) {
  TlsSettings settings = server_settings();
  settings.certificate = file("absent.pem");
  EXPECT_THAT(load_error(settings),
              HasSubstr("certificate file \"" + file("absent.pem") + "\": No such file"));
  settings = server_settings();
  settings.private_key = file("absent.key");
  EXPECT_THAT(load_error(settings),
              HasSubstr("private key file \"" + file("absent.key") + "\": No such file"));
}

TEST_F(TlsContextTest, AFileWithoutPemIsNamed) {
  write("garbage.pem", "not a certificate\n");
  TlsSettings settings = server_settings();
  settings.certificate = file("garbage.pem");
  EXPECT_THAT(load_error(settings), HasSubstr("certificate file \"" + file("garbage.pem") +
                                              "\" holds no valid PEM certificate"));
  settings = server_settings();
  settings.private_key = file("garbage.pem");
  EXPECT_THAT(load_error(settings), HasSubstr("private key file \"" + file("garbage.pem") +
                                              "\" holds no unencrypted PEM private key"));
  settings = server_settings(ClientAuth::kEnabled);
  settings.client_ca = file("garbage.pem");
  EXPECT_THAT(load_error(settings), HasSubstr("client CA file \"" + file("garbage.pem") +
                                              "\" holds no valid PEM certificate"));
}

TEST_F(TlsContextTest, AKeyThatDoesNotMatchTheCertificateIsNamed) {
  TlsSettings settings = server_settings();
  settings.private_key = file("other-server.key");
  EXPECT_THAT(load_error(settings),
              HasSubstr("private key file \"" + file("other-server.key") +
                        "\" does not match the certificate in \"" + file("server.pem") + "\""));
}

TEST_F(TlsContextTest, ClientAuthNeedsAClientCa) {
  TlsSettings settings = server_settings();
  settings.client_auth = ClientAuth::kMandatory;
  EXPECT_THAT(load_error(settings), HasSubstr("client_auth \"mandatory\" needs a client_ca"));
}

TEST_F(TlsContextTest, ReloadKeepsTheOldPairOnFailureAndSwitchesOnSuccess) {
  TlsContext context(server_settings());
  UniqueSsl before_reload = context.new_connection();

  // A new pair whose key is not there yet: the reload fails and names the file.
  certificates_.write_server("next", {.common_name = "next.test"});
  std::filesystem::copy_file(file("next.pem"), file("server.pem"),
                             std::filesystem::copy_options::overwrite_existing);
  const std::optional<std::string> failure = context.reload();
  ASSERT_TRUE(failure.has_value());
  EXPECT_THAT(*failure, HasSubstr("private key file \"" + file("server.key") + "\""));
  Handshake result = handshake(context.new_connection(), trusting_client());
  ASSERT_TRUE(result.ok) << result.error;
  EXPECT_EQ(server_name(result), "localhost");

  // With its key too, it succeeds: new connections get the new pair, older ones keep theirs.
  std::filesystem::copy_file(file("next.key"), file("server.key"),
                             std::filesystem::copy_options::overwrite_existing);
  EXPECT_EQ(context.reload(), std::nullopt);
  result = handshake(context.new_connection(), trusting_client());
  ASSERT_TRUE(result.ok) << result.error;
  EXPECT_EQ(server_name(result), "next.test");
  result = handshake(std::move(before_reload), trusting_client());
  ASSERT_TRUE(result.ok) << result.error;
  EXPECT_EQ(server_name(result), "localhost");
}

TEST_F(TlsContextTest, OnlyTls12AndTls13AreAccepted) {
  TlsContext context(server_settings());
  for (const int old : {TLS1_VERSION, TLS1_1_VERSION}) {
    const Handshake result = handshake(
        context.new_connection(), {.ca = file("ca.pem"), .min_version = old, .max_version = old});
    EXPECT_FALSE(result.ok) << SSL_get_version(result.server.get());
    EXPECT_THAT(result.error, HasSubstr("unsupported protocol"));
  }
  const Handshake tls12 =
      handshake(context.new_connection(), {.ca = file("ca.pem"), .max_version = TLS1_2_VERSION});
  ASSERT_TRUE(tls12.ok) << tls12.error;
  EXPECT_EQ(tls12.version, "TLSv1.2");
}

TEST_F(TlsContextTest, ClientAuthDisabledIgnoresAClientCertificate) {
  TlsContext context(server_settings());
  const Handshake result = handshake(context.new_connection(), client_with("client"));
  ASSERT_TRUE(result.ok) << result.error;
  EXPECT_EQ(peer_certificate(*result.server), std::nullopt);
}

TEST_F(TlsContextTest, ClientAuthEnabledNamesTheUserAndRefusesAForeignCertificate) {
  TlsContext context(server_settings(ClientAuth::kEnabled));
  Handshake result = handshake(context.new_connection(), client_with("client"));
  ASSERT_TRUE(result.ok) << result.error;
  const std::optional<PeerCertificate> peer = peer_certificate(*result.server);
  ASSERT_TRUE(peer.has_value());
  EXPECT_EQ(peer->user, "alice");
  EXPECT_THAT(peer->subject, HasSubstr("CN = alice"));

  result = handshake(context.new_connection(), trusting_client());  // no certificate: fine
  ASSERT_TRUE(result.ok) << result.error;
  EXPECT_EQ(peer_certificate(*result.server), std::nullopt);

  result = handshake(context.new_connection(), client_with("other-client"));
  EXPECT_FALSE(result.ok);
  EXPECT_THAT(result.error, HasSubstr("certificate verify failed"));
}

TEST_F(TlsContextTest, ClientAuthMandatoryRequiresACertificate) {
  TlsContext context(server_settings(ClientAuth::kMandatory));
  Handshake result = handshake(context.new_connection(), trusting_client());
  EXPECT_FALSE(result.ok);
  EXPECT_THAT(result.error, HasSubstr("peer did not return a certificate"));
  result = handshake(context.new_connection(), client_with("client"));
  ASSERT_TRUE(result.ok) << result.error;
  EXPECT_EQ(client_user(*result.server), "alice");
}

TEST_F(TlsContextTest, AnAdoptedContextServesTheCurrentPairAndPolicy) {
  TlsContext context(server_settings(ClientAuth::kMandatory));
  // What cpp-httplib's SSLServer makes: a server context with no certificate of its own.
  testing::UniqueCtx adopted(SSL_CTX_new(TLS_server_method()), SSL_CTX_free);
  context.adopt(*adopted);
  auto from_adopted = [&] { return UniqueSsl(SSL_new(adopted.get())); };

  Handshake result = handshake(from_adopted(), client_with("client"));
  ASSERT_TRUE(result.ok) << result.error;
  EXPECT_EQ(server_name(result), "localhost");
  EXPECT_EQ(client_user(*result.server), "alice");
  result = handshake(from_adopted(), trusting_client());
  EXPECT_FALSE(result.ok);  // mandatory
  result = handshake(
      from_adopted(),
      {.ca = file("ca.pem"), .min_version = TLS1_1_VERSION, .max_version = TLS1_1_VERSION});
  EXPECT_FALSE(result.ok);

  certificates_.write_server("server", {.common_name = "reloaded.test"});
  ASSERT_EQ(context.reload(), std::nullopt);
  result = handshake(from_adopted(), client_with("client"));
  ASSERT_TRUE(result.ok) << result.error;
  EXPECT_EQ(server_name(result), "reloaded.test");
}

TEST(ClientAuthNames, RoundTrip) {
  for (ClientAuth mode : {ClientAuth::kDisabled, ClientAuth::kEnabled, ClientAuth::kMandatory}) {
    EXPECT_EQ(parse_client_auth(client_auth_name(mode)), mode);
  }
  EXPECT_EQ(parse_client_auth("Enabled"), std::nullopt);
  EXPECT_EQ(parse_client_auth(""), std::nullopt);
}

}  // namespace
}  // namespace tern::tls
