// The Relax VM's instructions as TVM's runtime/vm/bytecode.h names them: four opcodes (Call,
// Ret, Goto, If) over a register file of `Any`. Instructions are plain structs in one vector
// (TVM packs them into int64 words); the interpreter reads their fields directly.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tsch::runtime::vm {

using RegName = int64_t;
using Index = int64_t;

enum class Opcode : uint8_t { Call = 1, Ret = 2, Goto = 3, If = 4 };

struct Instruction {
  // Registers from here up are special (TVM's values): no register file holds them.
  static constexpr RegName kBeginSpecialReg = int64_t{1} << 54;
  // As an argument: None; as a destination: the result is dropped.
  static constexpr RegName kVoidRegister = kBeginSpecialReg + 0;
  // As an argument: the VirtualMachine itself (builtins that allocate take it first).
  static constexpr RegName kVMRegister = kBeginSpecialReg + 1;

  enum class ArgKind : uint8_t { kRegister = 0, kImmediate = 1, kConstIdx = 2, kFuncIdx = 3 };

  // One argument of a Call: a register, an int64 immediate, a constant-pool index, or a
  // function-table index (the function itself passed as a value).
  class Arg {
   public:
    Arg() = default;  // the void register
    static Arg Register(RegName reg) { return Arg(ArgKind::kRegister, reg); }
    static Arg Immediate(int64_t value) { return Arg(ArgKind::kImmediate, value); }
    static Arg ConstIdx(Index index) { return Arg(ArgKind::kConstIdx, index); }
    static Arg FuncIdx(Index index) { return Arg(ArgKind::kFuncIdx, index); }
    ArgKind kind() const { return kind_; }
    int64_t value() const { return value_; }
    bool operator==(const Arg& o) const { return kind_ == o.kind_ && value_ == o.value_; }

   private:
    Arg(ArgKind kind, int64_t value) : kind_(kind), value_(value) {}
    ArgKind kind_ = ArgKind::kRegister;
    int64_t value_ = kVoidRegister;
  };

  Opcode op = Opcode::Ret;
  // Call: dst = func_table[func_idx](args...)
  RegName dst = kVoidRegister;
  Index func_idx = 0;
  std::vector<Arg> args;
  // Ret: the value of `result` goes back to the caller.
  RegName result = kVoidRegister;
  // Goto: pc += pc_offset.
  Index pc_offset = 0;
  // If: pc += 1 when the int in `cond` is nonzero, else pc += false_offset.
  RegName cond = kVoidRegister;
  Index false_offset = 0;

  static Instruction Call(Index func_idx, std::vector<Arg> args, RegName dst);
  static Instruction Ret(RegName result);
  static Instruction Goto(Index pc_offset);
  static Instruction If(RegName cond, Index false_offset);

  bool operator==(const Instruction& o) const;
};

// "%3", "%void", "%vm": how TVM's as_text prints a register.
std::string register_text(RegName reg);
const char* arg_kind_name(Instruction::ArgKind kind);  // "kRegister", ...

}  // namespace tsch::runtime::vm
