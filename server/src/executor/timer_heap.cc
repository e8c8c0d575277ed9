#include "executor/timer_heap.h"

namespace tern::executor {

void TimerHeap::set(TimerNode& node, int64_t due_ms) {
  if (!node.queued()) {
    entries_.push_back({due_ms, &node});
    node.heap_index = entries_.size() - 1;
    sift_up(node.heap_index);
    return;
  }
  Entry& entry = entries_[node.heap_index];
  const bool earlier = due_ms < entry.due_ms;
  entry.due_ms = due_ms;
  if (earlier) {
    sift_up(node.heap_index);
  } else {
    sift_down(node.heap_index);
  }
}

void TimerHeap::remove(TimerNode& node) {
  if (!node.queued()) return;
  const size_t index = node.heap_index;
  const Entry last = entries_.back();
  entries_.pop_back();
  node.heap_index = TimerNode::kNotQueued;
  if (last.node == &node) return;
  place(index, last);
  if (index > 0 && last.due_ms < entries_[(index - 1) / 2].due_ms) {
    sift_up(index);
  } else {
    sift_down(index);
  }
}

void TimerHeap::place(size_t index, Entry entry) {
  entries_[index] = entry;
  entry.node->heap_index = index;
}

void TimerHeap::sift_up(size_t index) {
  const Entry moving = entries_[index];
  while (index > 0) {
    const size_t parent = (index - 1) / 2;
    if (entries_[parent].due_ms <= moving.due_ms) break;
    place(index, entries_[parent]);
    index = parent;
  }
  place(index, moving);
}

void TimerHeap::sift_down(size_t index) {
  const Entry moving = entries_[index];
  const size_t count = entries_.size();
  for (;;) {
    size_t child = 2 * index + 1;
    if (child >= count) break;
    if (child + 1 < count && entries_[child + 1].due_ms < entries_[child].due_ms) ++child;
    if (moving.due_ms <= entries_[child].due_ms) break;
    place(index, entries_[child]);
    index = child;
  }
  place(index, moving);
}

}  // namespace tern::executor
