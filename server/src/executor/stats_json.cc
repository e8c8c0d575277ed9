#include "executor/stats_json.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace tern::executor {

std::string workers_json(const std::array<WorkerCounts, kTaskTypeCount>& counts) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> json(buffer);
  json.StartObject();
  for (size_t type = 0; type < kTaskTypeCount; ++type) {
    const std::string_view name = task_type_name(static_cast<TaskType>(type));
    json.Key(name.data(), name.size());
    json.StartObject();
    json.Key("threads");
    json.Uint64(counts[type].threads);
    json.Key("running");
    json.Uint64(counts[type].running);
    json.EndObject();
  }
  json.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace tern::executor
