#include "commands/engine_status.h"

#include <gtest/gtest.h>

namespace tern::commands {
namespace {

using engine::Status;
using Wire = protocol::Status;

// The statuses memcached and Couchbase clients have always been sent for these outcomes.
TEST(EngineStatusTest, EachOutcomeMapsToItsClassicWireStatus) {
  EXPECT_EQ(to_wire(Status::Success), Wire::Success);
  EXPECT_EQ(to_wire(Status::NotFound), Wire::KeyEnoent);
  EXPECT_EQ(to_wire(Status::Exists), Wire::KeyEexists);
  EXPECT_EQ(to_wire(Status::CasMismatch), Wire::KeyEexists);
  EXPECT_EQ(to_wire(Status::NotStored), Wire::NotStored);
  EXPECT_EQ(to_wire(Status::TooBig), Wire::E2big);
  EXPECT_EQ(to_wire(Status::NotANumber), Wire::DeltaBadval);
  EXPECT_EQ(to_wire(Status::Locked), Wire::Locked);
  EXPECT_EQ(to_wire(Status::NotLocked), Wire::NotLocked);
  EXPECT_EQ(to_wire(Status::OutOfMemory), Wire::Enomem);
  EXPECT_EQ(to_wire(Status::SyncWriteInProgress), Wire::SyncWriteInProgress);
}

}  // namespace
}  // namespace tern::commands
