#include "task_runs.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

namespace tern::e2e {

uint64_t task_runs(Client& client, const std::string& description) {
  rapidjson::Document tasks;
  tasks.Parse(client.stats("tasks")["tasks"].c_str());
  EXPECT_TRUE(tasks.IsObject() && tasks.HasMember("tasks")) << "STAT tasks is not JSON";
  if (!tasks.IsObject() || !tasks.HasMember("tasks")) return 0;
  for (const auto& task : tasks["tasks"].GetArray()) {
    if (task["description"].GetString() == description) return task["runs"].GetUint64();
  }
  return 0;
}

}  // namespace tern::e2e
