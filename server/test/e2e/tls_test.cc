// ternd's TLS ports against a real ternd and a real TLS client (OpenSSL, as the SDKs' cores
// use it): KV and the management port over TLS, SASL PLAIN only where the password is
// encrypted, client certificates (mutual TLS), the protocol versions refused, bad input on
// either port, a certificate reload under load, and the TLS ports in the cluster map. The
// certificates come from scripts/test-certs.sh, made once per run into a temporary directory.
// Run once per I/O backend, as every e2e test (TERN_TEST_IO).

#include <gtest/gtest.h>
#include <httplib.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "couchbase_session.h"
#include "ternd_process.h"

namespace tern::e2e {
namespace {

namespace fs = std::filesystem;

struct CtxFree {
  void operator()(SSL_CTX* ctx) const { SSL_CTX_free(ctx); }
};
using UniqueCtx = std::unique_ptr<SSL_CTX, CtxFree>;

// What a test's TLS client trusts and presents.
struct ClientTls {
  std::string ca = "ca.pem";  // in the certificates' directory; empty: trust nothing
  std::string certificate;    // a client certificate (and its .key beside it), or none
  int max_version = 0;        // e.g. TLS1_1_VERSION; 0 for OpenSSL's highest
};

class TlsTest : public ::testing::Test {
 protected:
  // The certificates, once for the whole run.
  static void SetUpTestSuite() {
    dir_ = new std::string(::testing::TempDir() + "tern-tls-" + std::to_string(getpid()));
    const std::string command = "bash " TERN_TESTDATA_DIR "/../scripts/test-certs.sh " + *dir_;
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
  }
  static void TearDownTestSuite() {
    std::error_code ignored;
    fs::remove_all(*dir_, ignored);
    delete dir_;
  }

  static std::string cert(const std::string& name) { return *dir_ + "/" + name; }

  // ternd with the development config (no anonymous bucket: only a login opens one), the
  // test certificate, and client certificates from the client CA as `client_auth` says.
  static std::vector<std::string> tls_args(const std::string& certificate = cert("server.pem"),
                                           const std::string& key = cert("server.key"),
                                           const std::string& client_auth = "enabled") {
    std::vector<std::string> args = {
        "--tls-certificate", certificate,           "--tls-private-key", key,
        "--tls-client-ca",   cert("client-ca.pem"), "--tls-client-auth", client_auth};
    return args;
  }

  static UniqueCtx client_context(const ClientTls& tls = {}) {
    UniqueCtx ctx(SSL_CTX_new(TLS_client_method()));
    if (!tls.ca.empty()) {
      EXPECT_EQ(SSL_CTX_load_verify_locations(ctx.get(), cert(tls.ca).c_str(), nullptr), 1);
      SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER, nullptr);
    }
    if (!tls.certificate.empty()) {
      const std::string key = tls.certificate.substr(0, tls.certificate.size() - 4) + ".key";
      EXPECT_EQ(
          SSL_CTX_use_certificate_file(ctx.get(), cert(tls.certificate).c_str(), SSL_FILETYPE_PEM),
          1);
      EXPECT_EQ(SSL_CTX_use_PrivateKey_file(ctx.get(), cert(key).c_str(), SSL_FILETYPE_PEM), 1);
    }
    if (tls.max_version != 0) {
      // The client must be able to offer the old versions, or the test would prove only
      // that OpenSSL's client refuses them: security level 0 allows them here.
      SSL_CTX_set_security_level(ctx.get(), 0);
      SSL_CTX_set_min_proto_version(ctx.get(), TLS1_VERSION);
      SSL_CTX_set_max_proto_version(ctx.get(), tls.max_version);
      SSL_CTX_set_cipher_list(ctx.get(), "DEFAULT:@SECLEVEL=0");
    }
    return ctx;
  }

  // A KV session over TLS to `port`; the handshake must succeed.
  static std::unique_ptr<CouchbaseSession> tls_session(uint16_t port, const ClientTls& tls = {}) {
    auto session = std::make_unique<CouchbaseSession>(port);
    UniqueCtx ctx = client_context(tls);
    EXPECT_TRUE(session->client().start_tls(*ctx)) << "TLS handshake with port " << port;
    return session;
  }

  static Status plain_login(CouchbaseSession& session) {
    const std::string credentials = std::string("\0", 1) + kAdminUser + '\0' + kAdminPassword;
    return session.call(simple(Opcode::SaslAuth, "PLAIN", credentials)).status;
  }

  // HELLO, PLAIN login, SELECT_BUCKET, SET and GET: the path an SDK takes over couchbases://.
  static void set_and_get(CouchbaseSession& session, const std::string& key) {
    session.hello({kXerror, kSelectBucket});
    ASSERT_EQ(plain_login(session), Status::Success);
    ASSERT_EQ(session.select_bucket(), Status::Success);
    ASSERT_EQ(call_when_warm(session, store(Opcode::Set, key, "over tls")).status, Status::Success);
    const Response got = session.call(simple(Opcode::Get, key));
    ASSERT_EQ(got.status, Status::Success);
    EXPECT_EQ(got.value, "over tls");
  }

  static std::string* dir_;
  StrictDevConfig config_;
};

std::string* TlsTest::dir_ = nullptr;

std::vector<std::string> operator+(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// A certificate's serial number, in hex; takes the certificate.
std::string serial_of(X509* certificate) {
  if (certificate == nullptr) return "";
  BIGNUM* number = ASN1_INTEGER_to_BN(X509_get_serialNumber(certificate), nullptr);
  char* hex = BN_bn2hex(number);
  std::string serial(hex);
  OPENSSL_free(hex);
  BN_free(number);
  X509_free(certificate);
  return serial;
}

// The serial of the certificate the server presented.
std::string peer_serial(SSL* ssl) { return serial_of(SSL_get1_peer_certificate(ssl)); }

// The serial of the first certificate in a PEM file.
std::string file_serial(const std::string& path) {
  FILE* file = std::fopen(path.c_str(), "r");
  if (file == nullptr) return "";
  X509* certificate = PEM_read_X509(file, nullptr, nullptr, nullptr);
  std::fclose(file);
  return serial_of(certificate);
}

TEST_F(TlsTest, KvOverTlsWithPlainLogin) {
  TerndProcess server(config_.args() + tls_args());
  ASSERT_NE(server.tls_port(), 0);
  ASSERT_NE(server.tls_port(), server.port());
  auto session = tls_session(server.tls_port());
  set_and_get(*session, "tls-key");
  // The plain port still serves, and sees what TLS wrote.
  CouchbaseSession plain(server.port());
  plain.open({kXerror, kSelectBucket});
  EXPECT_EQ(plain.call(simple(Opcode::Get, "tls-key")).value, "over tls");
}

TEST_F(TlsTest, PlainIsRefusedOnThePlainPortAndAcceptedOverTls) {
  TerndProcess server(config_.args() + tls_args());
  CouchbaseSession plain(server.port());
  plain.hello({kXerror});
  EXPECT_EQ(plain.call(simple(Opcode::SaslListMechs)).value.find("PLAIN"), std::string::npos);
  EXPECT_EQ(plain_login(plain), Status::NotSupported);
  EXPECT_EQ(plain.login(), Status::Success);  // SCRAM still works

  auto tls = tls_session(server.tls_port());
  tls->hello({kXerror});
  EXPECT_NE(tls->call(simple(Opcode::SaslListMechs)).value.find("PLAIN"), std::string::npos);
  EXPECT_EQ(plain_login(*tls), Status::Success);
  auto scram = tls_session(server.tls_port());
  scram->hello({kXerror});
  EXPECT_EQ(scram->login(), Status::Success);  // and so does SCRAM over TLS
}

TEST_F(TlsTest, Tls10And11AreRefused) {
  TerndProcess server(config_.args() + tls_args());
  for (int version : {TLS1_VERSION, TLS1_1_VERSION}) {
    Client old(server.tls_port());
    UniqueCtx ctx = client_context({.max_version = version});
    EXPECT_FALSE(old.start_tls(*ctx)) << "version " << std::hex << version;
  }
  // The server refused them, not the client: it says so.
  EXPECT_TRUE(server.wait_for_log("unsupported protocol")) << server.log();
  Client modern(server.tls_port());
  UniqueCtx ctx = client_context({.max_version = TLS1_2_VERSION});
  EXPECT_TRUE(modern.start_tls(*ctx));
  EXPECT_EQ(SSL_version(modern.tls()), TLS1_2_VERSION);
}

TEST_F(TlsTest, AClientCertificateLogsInAsTheUserItNames) {
  TerndProcess server(config_.args() + tls_args());
  auto session = tls_session(server.tls_port(), {.certificate = "client-admin.pem"});
  session->hello({kXerror, kSelectBucket});
  // No SASL: the certificate said who this is (the config has no anonymous bucket).
  EXPECT_EQ(session->select_bucket(), Status::Success);
  EXPECT_EQ(call_when_warm(*session, store(Opcode::Set, "by-cert", "v")).status, Status::Success);
  EXPECT_TRUE(server.wait_for_log("authenticated as Administrator by client certificate"));

  // Without one, the same steps are refused.
  auto anonymous = tls_session(server.tls_port());
  anonymous->hello({kXerror, kSelectBucket});
  EXPECT_EQ(anonymous->select_bucket(), Status::Eaccess);
}

TEST_F(TlsTest, ACertificateNamingNoUserOrFromAnotherCaIsRefused) {
  TerndProcess server(config_.args() + tls_args());
  {
    CouchbaseSession nobody(server.tls_port());
    UniqueCtx ctx = client_context({.certificate = "client-nobody.pem"});
    nobody.client().start_tls(*ctx);  // TLS 1.3: the server decides after the client is done
    nobody.send(simple(Opcode::Noop));
    EXPECT_TRUE(nobody.client().closed_by_peer());
    EXPECT_TRUE(server.wait_for_log("client certificate 'CN = nobody' names no user"))
        << server.log();
  }
  {
    CouchbaseSession stranger(server.tls_port());
    UniqueCtx ctx = client_context({.certificate = "client-other.pem"});
    stranger.client().start_tls(*ctx);
    stranger.send(simple(Opcode::Noop));
    EXPECT_TRUE(stranger.client().closed_by_peer());
  }
  EXPECT_EQ(server.log().find("authenticated as Administrator"), std::string::npos) << server.log();
}

TEST_F(TlsTest, AMandatoryClientCertificateRefusesAHandshakeWithoutOne) {
  TerndProcess server(config_.args() +
                      tls_args(cert("server.pem"), cert("server.key"), "mandatory"));
  CouchbaseSession without(server.tls_port());
  UniqueCtx ctx = client_context();
  without.client().start_tls(*ctx);
  without.send(simple(Opcode::Noop));
  EXPECT_TRUE(without.client().closed_by_peer());

  auto with = tls_session(server.tls_port(), {.certificate = "client-admin.pem"});
  EXPECT_EQ(with->call(simple(Opcode::Noop)).status, Status::Success);
}

TEST_F(TlsTest, TheWrongProtocolOnEitherPortIsClosedAndStallsNoOne) {
  TerndProcess server(config_.args() + tls_args());
  // Plain text to the TLS port.
  Client plain_to_tls(server.tls_port());
  plain_to_tls.send(simple(Opcode::Noop));
  EXPECT_TRUE(plain_to_tls.closed_by_peer());
  EXPECT_TRUE(server.wait_for_log("TLS connection from 127.0.0.1:")) << server.log();
  // A TLS handshake to the plain port: 0x16 is no memcached magic.
  Client tls_to_plain(server.port());
  UniqueCtx ctx = client_context();
  EXPECT_FALSE(tls_to_plain.start_tls(*ctx));
  EXPECT_TRUE(server.wait_for_log("bad magic byte 0x16")) << server.log();
  // A handshake begun and never finished: a TLS record header promising more.
  Client half(server.tls_port());
  const uint8_t hello_start[] = {0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00};
  ASSERT_TRUE(half.send_bytes(hello_start));
  // Others are served meanwhile, on both ports.
  auto other = tls_session(server.tls_port());
  set_and_get(*other, "while-half-open");
  CouchbaseSession plain(server.port());
  plain.open({kXerror, kSelectBucket});
  EXPECT_EQ(plain.call(simple(Opcode::Noop)).status, Status::Success);
}

TEST_F(TlsTest, TheConnectionLimitCountsBothPorts) {
  TerndProcess server(config_.args() + tls_args() +
                      std::vector<std::string>{"--max-connections", "1"});
  CouchbaseSession plain(server.port());
  ASSERT_EQ(plain.call(simple(Opcode::Noop)).status, Status::Success);  // the one allowed
  Client refused(server.tls_port());
  UniqueCtx ctx = client_context();
  EXPECT_FALSE(refused.start_tls(*ctx));
}

TEST_F(TlsTest, SighupReloadsTheCertificateUnderLoadAndABadOneKeepsTheOld) {
  // The server's own copies, which the test replaces.
  const std::string own = *dir_ + "/reload-" + std::to_string(getpid()) + "-" +
                          ::testing::UnitTest::GetInstance()->current_test_info()->name();
  fs::create_directories(own);
  const auto install = [&own](const std::string& pem, const std::string& key) {
    // Renamed into place, so that a reload never reads half a file.
    fs::copy_file(cert(pem), own + "/next.pem", fs::copy_options::overwrite_existing);
    fs::copy_file(cert(key), own + "/next.key", fs::copy_options::overwrite_existing);
    fs::rename(own + "/next.pem", own + "/server.pem");
    fs::rename(own + "/next.key", own + "/server.key");
  };
  install("server.pem", "server.key");
  TerndProcess server(config_.args() + tls_args(own + "/server.pem", own + "/server.key"));
  // What a new handshake on `port` sees.
  const auto serial_on = [](uint16_t port) {
    Client probe(port);
    UniqueCtx ctx = client_context();
    return probe.start_tls(*ctx) ? peer_serial(probe.tls()) : std::string("no handshake");
  };
  const auto serial_now = [&] { return serial_on(server.tls_port()); };
  ASSERT_EQ(serial_now(), file_serial(cert("server.pem")));
  ASSERT_EQ(serial_on(server.mgmt_tls_port()), file_serial(cert("server.pem")));

  // Load: requests on one open connection, and a new connection every few requests.
  std::atomic<bool> stop = false;
  std::atomic<int> done = 0, failed = 0;
  std::thread load([&] {
    auto open = tls_session(server.tls_port());
    set_and_get(*open, "load");
    for (int i = 0; !stop; ++i) {
      (open->call(simple(Opcode::Get, "load")).status == Status::Success ? done : failed)++;
      if (i % 20 == 0) {
        auto fresh = tls_session(server.tls_port());
        fresh->hello({kXerror});
        (plain_login(*fresh) == Status::Success ? done : failed)++;
      }
    }
  });

  install("server2.pem", "server2.key");
  ::kill(server.pid(), SIGHUP);
  ASSERT_TRUE(server.wait_for_log("TLS certificate reloaded from")) << server.log();
  EXPECT_EQ(serial_now(), file_serial(cert("server2.pem")));
  EXPECT_EQ(serial_on(server.mgmt_tls_port()), file_serial(cert("server2.pem")));  // HTTPS too

  install("server.pem", "other.key");  // a key that does not match
  ::kill(server.pid(), SIGHUP);
  ASSERT_TRUE(server.wait_for_log("TLS certificate reload failed, keeping the old one"))
      << server.log();
  EXPECT_EQ(serial_now(), file_serial(cert("server2.pem")));

  // Long enough for a few fresh connections after the reloads, whatever the machine's pace.
  const int seen = done;
  while (done < seen + 50 && failed == 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  stop = true;
  load.join();
  EXPECT_EQ(failed, 0);
  EXPECT_GT(done, seen);
  std::error_code ignored;
  fs::remove_all(own, ignored);
}

TEST_F(TlsTest, TheManagementPortServesHttpsWithTheSameLoginsAndClientCertificates) {
  TerndProcess server(config_.args() + tls_args());
  ASSERT_NE(server.mgmt_tls_port(), 0);
  httplib::SSLClient https("127.0.0.1", server.mgmt_tls_port());
  https.set_ca_cert_path(cert("ca.pem").c_str());
  https.enable_server_certificate_verification(true);
  const auto refused = https.Get("/pools");
  ASSERT_TRUE(refused) << httplib::to_string(refused.error());
  EXPECT_EQ(refused->status, 401);
  https.set_basic_auth(kAdminUser, kAdminPassword);
  const auto pools = https.Get("/pools");
  ASSERT_TRUE(pools);
  EXPECT_EQ(pools->status, 200);
  EXPECT_NE(pools->body.find("\"isAdminCreds\":true"), std::string::npos) << pools->body;

  // A client certificate logs its user in, as on the KV TLS port; one naming nobody does not.
  for (const auto& [name, status] :
       std::vector<std::pair<std::string, int>>{{"client-admin", 200}, {"client-nobody", 401}}) {
    httplib::SSLClient mutual("127.0.0.1", server.mgmt_tls_port(), cert(name + ".pem"),
                              cert(name + ".key"));
    mutual.set_ca_cert_path(cert("ca.pem").c_str());
    mutual.enable_server_certificate_verification(true);
    const auto answer = mutual.Get("/pools");
    ASSERT_TRUE(answer) << name << ": " << httplib::to_string(answer.error());
    EXPECT_EQ(answer->status, status) << name;
  }
}

TEST_F(TlsTest, TheClusterMapStatsAndPoolsListTheTlsPortsOnlyWhenOpen) {
  TerndProcess server(config_.args() + tls_args());
  CouchbaseSession session(server.port());
  session.hello({kXerror, kSelectBucket});
  ASSERT_EQ(session.login(), Status::Success);
  // The node's map before a bucket is selected, then the bucket's.
  for (bool bucket : {false, true}) {
    if (bucket) ASSERT_EQ(session.select_bucket(), Status::Success);
    const std::string map = call_when_warm(session, simple(Opcode::GetClusterConfig)).value;
    EXPECT_NE(map.find("\"kvSSL\":" + std::to_string(server.tls_port())), std::string::npos) << map;
    EXPECT_NE(map.find("\"mgmtSSL\":" + std::to_string(server.mgmt_tls_port())), std::string::npos)
        << map;
  }

  // STAT settings shows the ports as bound, and the management API lists the HTTPS port
  // under Couchbase's name for it.
  std::map<std::string, std::string> settings = session.client().stats("settings");
  EXPECT_EQ(settings["tls_port"], std::to_string(server.tls_port()));
  EXPECT_EQ(settings["mgmt_port"], std::to_string(server.mgmt_port()));
  EXPECT_EQ(settings["mgmt_tls_port"], std::to_string(server.mgmt_tls_port()));
  httplib::Client http("127.0.0.1", server.mgmt_port());
  http.set_basic_auth(kAdminUser, kAdminPassword);
  const auto node = http.Get("/pools/default");
  ASSERT_TRUE(node);
  EXPECT_NE(node->body.find("\"httpsMgmt\":" + std::to_string(server.mgmt_tls_port())),
            std::string::npos)
      << node->body;

  TerndProcess plain(config_.args());
  EXPECT_EQ(plain.tls_port(), 0);
  EXPECT_NE(plain.log().find("TLS ports off"), std::string::npos);
  CouchbaseSession without(plain.port());
  without.open({kXerror, kSelectBucket});
  EXPECT_EQ(without.call(simple(Opcode::GetClusterConfig)).value.find("SSL"), std::string::npos);
  settings = without.client().stats("settings");
  EXPECT_EQ(settings["tls_port"], "none");
  EXPECT_EQ(settings["mgmt_tls_port"], "none");
  httplib::Client plain_http("127.0.0.1", plain.mgmt_port());
  plain_http.set_basic_auth(kAdminUser, kAdminPassword);
  const auto plain_node = plain_http.Get("/pools/default");
  ASSERT_TRUE(plain_node);
  EXPECT_EQ(plain_node->body.find("httpsMgmt"), std::string::npos) << plain_node->body;
}

}  // namespace
}  // namespace tern::e2e
