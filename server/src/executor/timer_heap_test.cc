#include "executor/timer_heap.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

namespace tern::executor {
namespace {

// Pops everything, checking the order and that every node comes out exactly once.
std::vector<int64_t> drain(TimerHeap& heap) {
  std::vector<int64_t> order;
  while (!heap.empty()) {
    TimerNode& node = heap.top();
    order.push_back(heap.top_due());
    heap.remove(node);
    EXPECT_FALSE(node.queued());
  }
  return order;
}

TEST(TimerHeapTest, YieldsNodesInDueOrder) {
  std::vector<TimerNode> nodes(5);
  TimerHeap heap;
  const int64_t dues[] = {50, 10, 40, 10, 30};
  for (size_t i = 0; i < nodes.size(); ++i) heap.set(nodes[i], dues[i]);
  EXPECT_EQ(heap.size(), 5u);
  EXPECT_EQ(drain(heap), (std::vector<int64_t>{10, 10, 30, 40, 50}));
}

TEST(TimerHeapTest, MovingAndRemovingKeepsOneEntryPerNode) {
  std::vector<TimerNode> nodes(3);
  TimerHeap heap;
  heap.set(nodes[0], 100);
  heap.set(nodes[1], 200);
  heap.set(nodes[2], 300);
  heap.set(nodes[2], 50);   // earlier
  heap.set(nodes[0], 400);  // later
  heap.remove(nodes[1]);
  heap.remove(nodes[1]);  // not queued: nothing happens
  EXPECT_EQ(heap.size(), 2u);
  EXPECT_EQ(&heap.top(), &nodes[2]);
  EXPECT_EQ(heap.due(nodes[0]), 400);
  EXPECT_EQ(drain(heap), (std::vector<int64_t>{50, 400}));
}

TEST(TimerHeapTest, AgreesWithASortedModelUnderRandomOperations) {
  std::mt19937 random(7);
  std::vector<TimerNode> nodes(200);
  std::vector<int64_t> model(nodes.size(), -1);  // -1: not queued
  TimerHeap heap;
  auto queued_dues = [&model] {
    std::vector<int64_t> dues;
    for (int64_t due : model) {
      if (due >= 0) dues.push_back(due);
    }
    std::sort(dues.begin(), dues.end());
    return dues;
  };
  for (int step = 0; step < 20000; ++step) {
    const size_t i = random() % nodes.size();
    if (random() % 3 == 0) {
      heap.remove(nodes[i]);
      model[i] = -1;
    } else {
      const int64_t due = random() % 1000;
      heap.set(nodes[i], due);
      model[i] = due;
    }
    if (step % 1000 == 0) {
      const std::vector<int64_t> expected = queued_dues();
      ASSERT_EQ(heap.size(), expected.size());
      if (!expected.empty()) {
        ASSERT_EQ(heap.top_due(), expected.front());
      }
    }
  }
  EXPECT_EQ(drain(heap), queued_dues());
}

}  // namespace
}  // namespace tern::executor
