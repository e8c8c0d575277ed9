#include "executor/request_inbox.h"

#include <gtest/gtest.h>

#include <thread>

#include "executor/test_task.h"

namespace tern::executor {
namespace {

using testing::Flag;

int64_t ms_from_now(int64_t ms) { return SystemClock::instance().steady_ms() + ms; }

TEST(RequestInboxTest, TakesRequestsInPostedOrder) {
  RequestInbox inbox;
  for (TaskId id = 1; id <= 3; ++id) {
    ASSERT_TRUE(inbox.post({.kind = Request::Kind::Wake, .id = id}));
  }
  std::vector<Request> batch;
  ASSERT_TRUE(inbox.take(batch, kNeverMs));
  ASSERT_EQ(batch.size(), 3u);
  for (TaskId id = 1; id <= 3; ++id) EXPECT_EQ(batch[id - 1].id, id);
}

TEST(RequestInboxTest, TakeReturnsEmptyWhenTheDeadlinePasses) {
  RequestInbox inbox;
  std::vector<Request> batch;
  ASSERT_TRUE(inbox.take(batch, ms_from_now(-1)));
  EXPECT_TRUE(batch.empty());
  ASSERT_TRUE(inbox.take(batch, ms_from_now(5)));
  EXPECT_TRUE(batch.empty());
}

TEST(RequestInboxTest, PostWakesASleepingTaker) {
  RequestInbox inbox;
  std::thread poster([&] { inbox.post({.kind = Request::Kind::Barrier}); });
  std::vector<Request> batch;
  while (batch.empty()) ASSERT_TRUE(inbox.take(batch, kNeverMs));
  poster.join();
  EXPECT_EQ(batch.size(), 1u);
}

TEST(RequestInboxTest, CloseEndsTakingAndPosting) {
  RequestInbox inbox;
  std::thread closer([&] { inbox.close(); });
  std::vector<Request> batch;
  while (inbox.take(batch, kNeverMs)) {
  }
  closer.join();
  EXPECT_FALSE(inbox.post({.kind = Request::Kind::Barrier}));
}

TEST(RequestInboxTest, RequestsPostedBeforeCloseAreStillTaken) {
  RequestInbox inbox;
  ASSERT_TRUE(inbox.post({.kind = Request::Kind::Wake, .id = 7}));
  inbox.close();
  std::vector<Request> batch;
  ASSERT_TRUE(inbox.take(batch, kNeverMs));
  ASSERT_EQ(batch.size(), 1u);
  EXPECT_EQ(batch[0].id, 7u);
  batch.clear();
  EXPECT_FALSE(inbox.take(batch, kNeverMs));
}

TEST(RequestInboxTest, PosterThatOutrunsTheTakerWaitsForRoom) {
  RequestInbox inbox;
  Flag filled, finished;
  std::thread poster([&] {
    for (size_t i = 0; i < RequestInbox::kMaxPending; ++i) inbox.post({});
    filled.raise();
    inbox.post({});
    finished.raise();
  });
  ASSERT_TRUE(filled.wait());
  ASSERT_TRUE(testing::eventually([&] { return inbox.blocked_posters() == 1; }));
  EXPECT_FALSE(finished.raised());
  std::vector<Request> batch;
  ASSERT_TRUE(inbox.take(batch, kNeverMs));
  EXPECT_EQ(batch.size(), RequestInbox::kMaxPending);
  ASSERT_TRUE(finished.wait());
  poster.join();
}

}  // namespace
}  // namespace tern::executor
