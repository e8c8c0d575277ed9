#include "commands/command_results.h"

#include <gtest/gtest.h>

#include <vector>

#include "protocol/opcode.h"

namespace tern::commands {
namespace {

using protocol::Opcode;
using protocol::Status;

// A response header with `status` (magic 0x81; only the status matters here).
std::vector<uint8_t> answer(Status status) {
  std::vector<uint8_t> header(24, 0);
  header[0] = 0x81;
  header[6] = static_cast<uint8_t>(static_cast<uint16_t>(status) >> 8);
  header[7] = static_cast<uint8_t>(static_cast<uint16_t>(status));
  return header;
}

TEST(CommandResultsTest, StatusesFallInTheirClasses) {
  EXPECT_EQ(command_result(Status::Success), CommandResult::Success);
  EXPECT_EQ(command_result(Status::SubdocMultiPathFailure), CommandResult::Success);
  EXPECT_EQ(command_result(Status::KeyEnoent), CommandResult::NotFound);
  EXPECT_EQ(command_result(Status::KeyEexists), CommandResult::Exists);
  EXPECT_EQ(command_result(Status::Etmpfail), CommandResult::TemporaryFailure);
  EXPECT_EQ(command_result(Status::UnknownScope), CommandResult::UnknownCollection);
  EXPECT_EQ(command_result(Status::SyncWriteAmbiguous), CommandResult::Durability);
  EXPECT_EQ(command_result(Status::SubdocPathEnoent), CommandResult::Invalid);
  EXPECT_EQ(command_result(Status::Einternal), CommandResult::Other);
  EXPECT_EQ(command_result_name(CommandResult::NotFound), "not_found");
}

TEST(CommandResultsTest, TheFirstAnswersStatusDecides) {
  std::vector<uint8_t> answers = answer(Status::NotMyVbucket);
  const std::vector<uint8_t> more = answer(Status::Success);
  answers.insert(answers.end(), more.begin(), more.end());
  EXPECT_EQ(command_result(static_cast<uint8_t>(Opcode::Get), answers),
            CommandResult::NotMyVbucket);
}

TEST(CommandResultsTest, SilenceIsSuccessExceptForAQuietRetrievalWhereItIsAMiss) {
  EXPECT_EQ(command_result(static_cast<uint8_t>(Opcode::SetQ), {}), CommandResult::Success);
  EXPECT_EQ(command_result(static_cast<uint8_t>(Opcode::GetQ), {}), CommandResult::NotFound);
  EXPECT_EQ(command_result(static_cast<uint8_t>(Opcode::GetKQ), {}), CommandResult::NotFound);
  EXPECT_EQ(command_result(static_cast<uint8_t>(Opcode::GetQ), answer(Status::Success)),
            CommandResult::Success);
}

}  // namespace
}  // namespace tern::commands
