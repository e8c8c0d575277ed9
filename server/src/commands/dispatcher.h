#pragma once
// Executes decoded requests and encodes their responses. Knows the protocol's semantics
// (quiet variants, extras layouts, error bodies, who may send what, collections and
// vbuckets) but does no I/O: the network layer feeds it frames, with the session of the
// connection they came on, and sends what it appends.

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "metrics/collector.h"
#include "protocol/frame.h"
#include "protocol/status.h"

namespace tern::commands {

class Node;
class ParkedRequest;
class Session;
struct ReplyContext;

// A source of statistics beyond the buckets' (server counters, settings, executor tasks),
// each declared in metrics/stats.def. STAT shows a group through a metrics::StatView;
// GET /metrics shows the general group through a metrics::PrometheusView
// (commands/node_metrics.h).
class StatProvider {
 public:
  virtual ~StatProvider() = default;
  // Hands the statistics of `group` ("" is the general group) to `collector` and returns
  // true, or returns false without collecting if this provider does not know the group.
  // Called from any thread (a worker loop's STAT, the management port's scrape).
  virtual bool collect(std::string_view group, metrics::Collector& collector) = 0;
};

// Counts a parked request that its completion answered (ParkedRequest::finish) in its
// bucket's command statistics, from when it was received, as the dispatcher counts the
// requests it answers itself. `answers` are the bytes the completion appended.
void count_parked_answer(const ParkedRequest& parked, const Session& session,
                         std::span<const uint8_t> answers);

enum class Outcome {
  Continue,  // keep reading requests
  Close,     // send what was appended, then close the connection (QUIT)
  // The handler parked the request (parked_request.h) and appended nothing: its answer
  // comes later, on the connection's event loop. Keep reading only with UnorderedExecution.
  WouldBlock,
};

class Dispatcher {
 public:
  // The node must outlive the dispatcher.
  explicit Dispatcher(Node& node);

  // Providers are consulted in the order added; they must outlive the dispatcher.
  void add_stat_provider(StatProvider& provider);
  std::span<StatProvider* const> stat_providers() const { return providers_; }

  // Executes one well-formed request frame (magic 0x80 or 0x08) from the connection whose
  // session is `session`, and appends its response, if the command answers, to `out`.
  // Never throws on bad input: it answers with a status.
  Outcome execute(const protocol::Frame& request, Session& session, std::vector<uint8_t>& out);

  // Executes again a request that was parked to run again (run_again() in parked_request.h):
  // its saved frame, as execute() does, checked again as when it arrived. Its Tracing
  // duration counts from its first arrival, and its context's runs_again is one more than
  // when it was parked. It may park again.
  Outcome execute_again(const ParkedRequest& parked, Session& session,
                        std::vector<uint8_t>& out);

  // Appends an error response for `request` (used by the network layer for requests it
  // rejects before execution, e.g. a body over the size limit).
  static void append_error(const protocol::Frame& request, protocol::Status status,
                           const Session& session, std::vector<uint8_t>& out);

  Node& node() { return node_; }

 private:
  // execute() with what its answers depend on besides the session.
  Outcome run(const protocol::Frame& request, Session& session, std::vector<uint8_t>& out,
              ReplyContext context);

  Node& node_;
  std::vector<StatProvider*> providers_;
};

}  // namespace tern::commands
