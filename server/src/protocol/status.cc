#include "protocol/status.h"

namespace tern::protocol {

// Texts follow memcached's where it has one, so that its clients see familiar messages.
std::string_view status_text(Status status) {
  switch (status) {
#define TERN_STATUS(name, code, text, map_name, map_desc, map_attrs) \
  case Status::name:                                                 \
    return text;
#include "protocol/status_table.inc"
#undef TERN_STATUS
  }
  return "Unknown error";
}

}  // namespace tern::protocol
