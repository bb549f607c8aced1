#include "runtime/vm/bytecode.h"

namespace tsch::runtime::vm {

Instruction Instruction::Call(Index func_idx, std::vector<Arg> args, RegName dst) {
  Instruction i;
  i.op = Opcode::Call;
  i.func_idx = func_idx;
  i.args = std::move(args);
  i.dst = dst;
  return i;
}

Instruction Instruction::Ret(RegName result) {
  Instruction i;
  i.op = Opcode::Ret;
  i.result = result;
  return i;
}

Instruction Instruction::Goto(Index pc_offset) {
  Instruction i;
  i.op = Opcode::Goto;
  i.pc_offset = pc_offset;
  return i;
}

Instruction Instruction::If(RegName cond, Index false_offset) {
  Instruction i;
  i.op = Opcode::If;
  i.cond = cond;
  i.false_offset = false_offset;
  return i;
}

// Only the fields of the opcode count: the others keep their defaults anyway.
bool Instruction::operator==(const Instruction& o) const {
  if (op != o.op) return false;
  switch (op) {
    case Opcode::Call:
      return dst == o.dst && func_idx == o.func_idx && args == o.args;
    case Opcode::Ret:
      return result == o.result;
    case Opcode::Goto:
      return pc_offset == o.pc_offset;
    case Opcode::If:
      return cond == o.cond && false_offset == o.false_offset;
  }
  return false;
}

std::string register_text(RegName reg) {
  if (reg == Instruction::kVoidRegister) return "%void";
  if (reg == Instruction::kVMRegister) return "%vm";
  return "%" + std::to_string(reg);
}

const char* arg_kind_name(Instruction::ArgKind kind) {
  switch (kind) {
    case Instruction::ArgKind::kRegister:
      return "kRegister";
    case Instruction::ArgKind::kImmediate:
      return "kImmediate";
    case Instruction::ArgKind::kConstIdx:
      return "kConstIdx";
    case Instruction::ArgKind::kFuncIdx:
      return "kFuncIdx";
  }
  return "?";
}

}  // namespace tsch::runtime::vm
