#include "executor/timer_heap.h"

namespace tern::executor {

void TimerHeap::set(TimerNode& node, int64_t due_ms) {
  if (!node.queued()) {
    node.due_ms = due_ms;
    nodes_.push_back(&node);
    node.heap_index = nodes_.size() - 1;
    sift_up(node.heap_index);
    return;
  }
  const bool earlier = due_ms < node.due_ms;
  node.due_ms = due_ms;
  if (earlier) {
    sift_up(node.heap_index);
  } else {
    sift_down(node.heap_index);
  }
}

void TimerHeap::remove(TimerNode& node) {
  if (!node.queued()) return;
  const size_t index = node.heap_index;
  TimerNode* last = nodes_.back();
  nodes_.pop_back();
  node.heap_index = TimerNode::kNotQueued;
  if (last == &node) return;
  place(index, last);
  if (index > 0 && last->due_ms < nodes_[(index - 1) / 2]->due_ms) {
    sift_up(index);
  } else {
    sift_down(index);
  }
}

void TimerHeap::place(size_t index, TimerNode* node) {
  nodes_[index] = node;
  node->heap_index = index;
}

void TimerHeap::sift_up(size_t index) {
  TimerNode* node = nodes_[index];
  while (index > 0) {
    const size_t parent = (index - 1) / 2;
    if (nodes_[parent]->due_ms <= node->due_ms) break;
    place(index, nodes_[parent]);
    index = parent;
  }
  place(index, node);
}

void TimerHeap::sift_down(size_t index) {
  TimerNode* node = nodes_[index];
  const size_t count = nodes_.size();
  for (;;) {
    size_t child = 2 * index + 1;
    if (child >= count) break;
    if (child + 1 < count && nodes_[child + 1]->due_ms < nodes_[child]->due_ms) ++child;
    if (node->due_ms <= nodes_[child]->due_ms) break;
    place(index, nodes_[child]);
    index = child;
  }
  place(index, node);
}

}  // namespace tern::executor
