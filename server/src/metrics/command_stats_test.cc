#include "metrics/command_stats.h"

#include <gtest/gtest.h>

namespace tern::metrics {
namespace {

TEST(CommandStatsTest, AnOpcodeHasAHistogramOnceSeen) {
  CommandStats stats;
  EXPECT_EQ(stats.opcode(0x00), nullptr);
  stats.record(0x00, 500, 1);
  stats.record(0x00, 700, 0);
  ASSERT_NE(stats.opcode(0x00), nullptr);
  EXPECT_EQ(stats.opcode(0x00)->snapshot().count, 2u);
  EXPECT_EQ(stats.opcode(0x00)->snapshot().outcomes[1], 1u);
  EXPECT_EQ(stats.opcode(0x01), nullptr);
}

TEST(CommandStatsTest, CollectionOpsAreCountedByIdAndKind) {
  CommandStats stats;
  stats.count_collection_op(8, CollectionOp::Store);
  stats.count_collection_op(8, CollectionOp::Store);
  stats.count_collection_op(8, CollectionOp::Get);
  stats.count_collection_op(CommandStats::kCountedCollections, CollectionOp::Get);  // ignored
  EXPECT_EQ(stats.collection_ops(8, CollectionOp::Store), 2u);
  EXPECT_EQ(stats.collection_ops(8, CollectionOp::Get), 1u);
  EXPECT_EQ(stats.collection_ops(8, CollectionOp::Delete), 0u);
  EXPECT_EQ(stats.collection_ops(0, CollectionOp::Get), 0u);
  EXPECT_EQ(stats.collection_ops(CommandStats::kCountedCollections, CollectionOp::Get), 0u);
}

}  // namespace
}  // namespace tern::metrics
