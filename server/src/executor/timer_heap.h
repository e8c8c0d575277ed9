#pragma once
// The pending deadlines of the scheduler: a binary min-heap that knows where each entry
// sits, so a deadline can be moved or removed in O(log n) without leaving stale entries.
// Not thread-safe: owned by the one scheduler thread.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace tern::executor {

// Embedded in whatever carries a deadline; the heap only links to it.
struct TimerNode {
  static constexpr size_t kNotQueued = std::numeric_limits<size_t>::max();
  int64_t due_ms = 0;
  size_t heap_index = kNotQueued;
  bool queued() const { return heap_index != kNotQueued; }
};

class TimerHeap {
 public:
  // Queues the node at due_ms, or moves it there if already queued.
  void set(TimerNode& node, int64_t due_ms);
  // Dequeues the node if queued.
  void remove(TimerNode& node);
  // The earliest node, or nullptr when empty.
  TimerNode* top() const { return nodes_.empty() ? nullptr : nodes_.front(); }
  size_t size() const { return nodes_.size(); }

 private:
  void place(size_t index, TimerNode* node);
  void sift_up(size_t index);
  void sift_down(size_t index);

  std::vector<TimerNode*> nodes_;
};

}  // namespace tern::executor
