#include "commands/command_table.h"

namespace tern::commands {

namespace {

using protocol::Opcode;
using K = KeyRule;

constexpr CommandSpec kCommands[] = {
    // opcode              extras    key           value  mutation handler
    {Opcode::Get,          {0, 0},   K::Required,  false, false, get},
    {Opcode::GetK,         {0, 0},   K::Required,  false, false, get},
    {Opcode::Gat,          {4, 4},   K::Required,  false, false, get_and_touch},
    {Opcode::Touch,        {4, 4},   K::Required,  false, false, touch},
    {Opcode::GetLocked,    {0, 4},   K::Required,  false, false, get_locked},
    {Opcode::UnlockKey,    {0, 0},   K::Required,  false, false, unlock},
    {Opcode::Set,          {8, 8},   K::Required,  true,  true,  store},
    {Opcode::Add,          {8, 8},   K::Required,  true,  true,  store},
    {Opcode::Replace,      {8, 8},   K::Required,  true,  true,  store},
    {Opcode::Append,       {0, 0},   K::Required,  true,  true,  concat},
    {Opcode::Prepend,      {0, 0},   K::Required,  true,  true,  concat},
    {Opcode::Delete,       {0, 0},   K::Required,  false, true,  remove},
    {Opcode::Increment,    {20, 20}, K::Required,  false, true,  arithmetic},
    {Opcode::Decrement,    {20, 20}, K::Required,  false, true,  arithmetic},
    {Opcode::Flush,        {0, 4},   K::Forbidden, false, false, flush},
    {Opcode::Noop,         {0, 0},   K::Forbidden, false, false, noop},
    {Opcode::Version,      {0, 0},   K::Forbidden, false, false, version},
    {Opcode::Quit,         {0, 0},   K::Forbidden, false, false, quit},
    {Opcode::Stat,         {0, 0},   K::Optional,  false, false, stat},
};

}  // namespace

const CommandSpec* find_command(protocol::Opcode loud) {
  for (const CommandSpec& spec : kCommands) {
    if (spec.opcode == loud) return &spec;
  }
  return nullptr;
}

}  // namespace tern::commands
