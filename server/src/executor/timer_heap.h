#pragma once
// The pending deadlines of the scheduler: a binary min-heap that knows where each entry
// sits, so a deadline can be moved or removed in O(log n) without leaving stale entries.
// Deadlines live in the heap array itself, so sifting compares without touching the nodes.
// Not thread-safe: owned by the one scheduler thread.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace tern::executor {

// Embedded in whatever carries a deadline; the heap only links to it.
struct TimerNode {
  static constexpr size_t kNotQueued = std::numeric_limits<size_t>::max();
  size_t heap_index = kNotQueued;
  bool queued() const { return heap_index != kNotQueued; }
};

class TimerHeap {
 public:
  // Queues the node at due_ms, or moves it there if already queued.
  void set(TimerNode& node, int64_t due_ms);
  // Dequeues the node if queued.
  void remove(TimerNode& node);
  // The deadline of a queued node.
  int64_t due(const TimerNode& node) const { return entries_[node.heap_index].due_ms; }

  bool empty() const { return entries_.empty(); }
  size_t size() const { return entries_.size(); }
  // The earliest node and its deadline; only when not empty.
  TimerNode& top() const { return *entries_.front().node; }
  int64_t top_due() const { return entries_.front().due_ms; }

 private:
  struct Entry {
    int64_t due_ms;
    TimerNode* node;
  };
  void place(size_t index, Entry entry);
  void sift_up(size_t index);
  void sift_down(size_t index);

  std::vector<Entry> entries_;
};

}  // namespace tern::executor
