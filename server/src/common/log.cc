#include "common/log.h"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

namespace tern::log {

void init(bool verbose) {
  spdlog::drop("ternd");
  auto logger = spdlog::stderr_logger_mt("ternd");
  logger->set_pattern("%Y-%m-%dT%H:%M:%S.%e%z [%l] %v");
  logger->set_level(verbose ? spdlog::level::debug : spdlog::level::info);
  logger->flush_on(spdlog::level::info);
  spdlog::set_default_logger(logger);
}

}  // namespace tern::log
