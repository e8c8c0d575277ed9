#pragma once
// A request that waits. A handler that cannot answer yet (a durable write waiting for the
// disk) parks its request and returns Outcome::WouldBlock. Parking copies the request's frame
// (the connection's read buffer is consumed as soon as the handler returns) and the context its
// answers depend on (the features at the time it was received, its mutated vbucket, when it
// was received), and hands back a notifier. Whoever ends the wait calls the notifier, from any
// thread, with a completion; the connection runs the completion on its own event loop with a
// Reply for the saved request, as kv_engine resumes a cookie's command context.
//
// A request may also wait for something other than its answer (a background fetch of an
// evicted value, background_fetch.h): its wait ends with run_again(), and the connection then
// executes the saved frame through the dispatcher as when it arrived (Dispatcher::
// execute_again), on its loop and in its place in the request order. Running again may park
// the request again.
//
// The connection decides where the answer goes: without UnorderedExecution it runs no later
// request while one is parked, so answers stay in request order; with it, the answer goes out
// when it is ready. A connection that closed meanwhile drops the completion.

#include <cstdint>
#include <functional>
#include <vector>

#include "commands/reply.h"
#include "protocol/frame.h"

namespace tern::commands {

// Finishes a parked request: appends its answer through `reply`, a Reply for the saved request
// on its connection. Runs on the connection's event loop.
using Completion = std::function<void(Reply& reply)>;

// Ends a parked request's wait. Callable from any thread and never blocks: it posts the
// completion to the connection's event loop. An empty completion runs the request again
// instead (run_again()). Only the first call counts. If every copy of it is destroyed uncalled
// (the one waiting on it gave up, e.g. the bucket shut down), the request answers Etmpfail, so
// that an ordered connection never waits forever.
using ParkedNotifier = std::function<void(Completion completion)>;

// Ends a parked request's wait by executing it again rather than answering it.
inline void run_again(const ParkedNotifier& notify) { notify(Completion{}); }

// A request and what its answers depend on, copied out of the read buffer.
class ParkedRequest {
 public:
  ParkedRequest(const protocol::Frame& request, const ReplyContext& context);
  ParkedRequest(const ParkedRequest&) = delete;
  ParkedRequest& operator=(const ParkedRequest&) = delete;

  // The frame, pointing into this object's own copy of its bytes.
  const protocol::Frame& request() const { return frame_; }
  const ReplyContext& context() const { return context_; }

  // Runs `completion` with a Reply for this request that appends to `out`.
  void finish(const Completion& completion, std::vector<uint8_t>& out) const;

 private:
  std::vector<uint8_t> bytes_;
  protocol::Frame frame_;
  ReplyContext context_;
};

// What a connection offers its session so that handlers can park requests (Session::parker).
class RequestParker {
 public:
  virtual ~RequestParker() = default;
  // Parks the request being executed (called at most once per request, from its handler on
  // the connection's event loop; the handler then returns Outcome::WouldBlock).
  virtual ParkedNotifier park(const protocol::Frame& request, const ReplyContext& context) = 0;
};

}  // namespace tern::commands
