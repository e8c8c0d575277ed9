// Couchbase buckets as a real ternd runs them: where their files go (--data-dir, or the
// config's data_dir), what start-up refuses (no data directory, --data-dir without a config,
// a directory another ternd holds), and that documents survive a clean restart (SIGTERM
// flushes what is queued) in a couchbase bucket and not in an ephemeral one.

#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "storage/temp_dir.h"
#include "couchbase_session.h"
#include "ternd_process.h"

namespace tern::e2e {
namespace {

constexpr int kUsageError = 64;

struct Exit {
  int code = -1;
  std::string stderr_text;
};

// A scratch directory with config files, removed with the object.
class Scratch {
 public:
  std::string path(const std::string& name) const { return dir_.sub(name); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(path(name)) << text;
    return path(name);
  }

 private:
  storage::TempDir dir_;
};

// Runs ternd with `args` (a start that succeeds is cut short by `timeout`, and fails the
// expectation on the exit code).
Exit run_to_exit(const Scratch& scratch, const std::string& args) {
  const std::string err = scratch.path("stderr");
  const int status = std::system(
      ("timeout 30 " + std::string(TERND_PATH) + " --port 0 " + args + " 2>" + err).c_str());
  std::stringstream text;
  text << std::ifstream(err).rdbuf();
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, text.str()};
}

std::string bucket_config(const std::string& type, const std::string& server = "") {
  return "[server]\nanonymous_bucket = \"b\"\n" + server + "[[bucket]]\nname = \"b\"\ntype = \"" +
         type + "\"\nmemory_quota_mb = 64\n";
}

TEST(PersistenceTest, ACouchbaseBucketWithoutADataDirectoryStopsStartUp) {
  Scratch scratch;
  const Exit exit =
      run_to_exit(scratch, "--config " + scratch.write("t.toml", bucket_config("couchbase")));
  EXPECT_EQ(exit.code, 1);
  EXPECT_NE(exit.stderr_text.find("bucket b is persistent (type couchbase) and needs a data "
                                  "directory: --data-dir or [server] data_dir"),
            std::string::npos)
      << exit.stderr_text;
}

TEST(PersistenceTest, DataDirWithoutAConfigOrEmptyIsAUsageError) {
  Scratch scratch;
  Exit exit = run_to_exit(scratch, "--data-dir " + scratch.path("data"));
  EXPECT_EQ(exit.code, kUsageError);
  EXPECT_NE(exit.stderr_text.find("--data-dir requires --config"), std::string::npos)
      << exit.stderr_text;
  EXPECT_FALSE(std::filesystem::exists(scratch.path("data")));

  exit = run_to_exit(scratch, "--config " + scratch.write("t.toml", bucket_config("couchbase")) +
                                  " --data-dir ''");
  EXPECT_EQ(exit.code, kUsageError);
  EXPECT_NE(exit.stderr_text.find("--data-dir: must not be empty"), std::string::npos)
      << exit.stderr_text;
}

TEST(PersistenceTest, AnEphemeralBucketNeedsNoDataDirectory) {
  Scratch scratch;
  TerndProcess server({"--config", scratch.write("t.toml", bucket_config("ephemeral")),
                       "--data-dir", scratch.path("data")});
  EXPECT_NE(server.port(), 0);
  EXPECT_TRUE(server.wait_for_log("bucket b: ephemeral")) << server.log();
  EXPECT_FALSE(std::filesystem::exists(scratch.path("data/b")));
}

TEST(PersistenceTest, TheFlagOverridesTheConfigsDataDir) {
  Scratch scratch;
  const std::string config = scratch.write(
      "t.toml", bucket_config("couchbase", "data_dir = \"" + scratch.path("from-file") + "\"\n"));
  {
    TerndProcess server({"--config", config, "--data-dir", scratch.path("from-flag")});
    EXPECT_TRUE(server.wait_for_log("bucket b: couchbase (persistent), data in " +
                                    scratch.path("from-flag") + "/b"))
        << server.log();
    CouchbaseSession session(server.port());
    EXPECT_EQ(session.client().stats("settings")["data_dir"], scratch.path("from-flag"));
  }
  EXPECT_TRUE(std::filesystem::is_directory(scratch.path("from-flag/b")));
  EXPECT_FALSE(std::filesystem::exists(scratch.path("from-file")));
}

// Also shows that, without the flag, the file's data_dir is the one used.
TEST(PersistenceTest, ASecondTerndOnTheSameDataDirectoryIsRefused) {
  Scratch scratch;
  const std::string config = scratch.write(
      "t.toml", bucket_config("couchbase", "data_dir = \"" + scratch.path("data") + "\"\n"));
  TerndProcess first({"--config", config, "--data-dir", scratch.path("data")});
  ASSERT_NE(first.port(), 0);
  const Exit second = run_to_exit(scratch, "--config " + config);
  EXPECT_EQ(second.code, 1);
  EXPECT_NE(second.stderr_text.find(scratch.path("data/b")), std::string::npos)
      << second.stderr_text;
}

// A document written just before SIGTERM is still queued for the flusher at best: the clean
// stop must write it.
TEST(PersistenceTest, DocumentsSurviveACleanRestartOnlyInACouchbaseBucket) {
  for (const char* type : {"couchbase", "ephemeral"}) {
    SCOPED_TRACE(type);
    Scratch scratch;
    const std::vector<std::string> args = {"--config", scratch.write("t.toml", bucket_config(type)),
                                           "--data-dir", scratch.path("data")};
    uint64_t cas = 0;
    {
      TerndProcess server(args);
      CouchbaseSession session(server.port());
      Response stored = call_when_warm(session, store(Opcode::Set, "kept", "{\"v\":1}", 7));
      ASSERT_EQ(stored.status, Status::Success);
      cas = stored.cas;
      ASSERT_EQ(session.call(store(Opcode::Set, "gone", "x")).status, Status::Success);
      ASSERT_EQ(session.call(simple(Opcode::Delete, "gone")).status, Status::Success);
      EXPECT_EQ(server.stop(SIGTERM), 0);
    }
    TerndProcess again(args);
    CouchbaseSession session(again.port());
    const Response kept = call_when_warm(session, simple(Opcode::Get, "kept"));
    if (std::string(type) == "couchbase") {
      EXPECT_EQ(kept.status, Status::Success);
      EXPECT_EQ(kept.value, "{\"v\":1}");
      EXPECT_EQ(kept.cas, cas);
      EXPECT_EQ(read_be32(kept.extras), 7u) << "flags";
      // The delete persisted its tombstone: the document does not come back.
      EXPECT_EQ(session.call(simple(Opcode::Get, "gone")).status, Status::KeyEnoent);
    } else {
      EXPECT_EQ(kept.status, Status::KeyEnoent);
    }
  }
}

}  // namespace
}  // namespace tern::e2e
