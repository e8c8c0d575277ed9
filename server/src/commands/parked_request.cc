#include "commands/parked_request.h"

namespace tern::commands {

// The parts are copied one by one rather than as the frame's wire bytes: a decompressed
// value lives in the session's scratch space, not after the key.
ParkedRequest::ParkedRequest(const protocol::Frame& request, const ReplyContext& context)
    : frame_(request), context_(context) {
  const std::span<const uint8_t> parts[] = {request.framing_extras, request.extras, request.key,
                                            request.value};
  size_t total = 0;
  for (const auto& part : parts) total += part.size();
  bytes_.reserve(total);
  for (const auto& part : parts) bytes_.insert(bytes_.end(), part.begin(), part.end());
  std::span<const uint8_t> rest(bytes_);
  auto take = [&rest](size_t n) {
    const auto part = rest.first(n);
    rest = rest.subspan(n);
    return part;
  };
  frame_.framing_extras = take(request.framing_extras.size());
  frame_.extras = take(request.extras.size());
  frame_.key = take(request.key.size());
  frame_.value = take(request.value.size());
}

void ParkedRequest::finish(const Completion& completion, std::vector<uint8_t>& out) const {
  Reply reply(frame_, out, context_);
  completion(reply);
}

}  // namespace tern::commands
