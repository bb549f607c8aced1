// ExecBuilder: how code generation emits an executable.
#include <algorithm>
#include <cstring>
#include <map>
#include <optional>

#include "runtime/vm/executable.h"
#include "support/error.h"

namespace tsch::runtime::vm {

using ArgKind = Instruction::ArgKind;
using FuncKind = VMFuncInfo::FuncKind;

// ---------------------------------------------------------------------------------------
// ExecBuilder
// ---------------------------------------------------------------------------------------

namespace {

// Not emitted yet (TVM's marker).
constexpr Index kUndefinedArgs = -2;

// Constants that compare by value share one pool entry; arrays, functions and objects by
// identity.
bool same_constant(const Any& a, const Any& b) {
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case Any::Kind::None:
      return true;
    case Any::Kind::Bool:
      return a.as_bool() == b.as_bool();
    case Any::Kind::Int:
      return a.as_int() == b.as_int();
    case Any::Kind::Float: {
      double x = a.as_float(), y = b.as_float();
      return std::memcmp(&x, &y, sizeof x) == 0;  // -0.0 and NaNs stay apart
    }
    case Any::Kind::Str:
      return a.as_str() == b.as_str();
    case Any::Kind::Shape:
      return a.as_shape() == b.as_shape();
    case Any::Kind::NDArray:
      return a.as_ndarray() == b.as_ndarray();
    case Any::Kind::Function:
      return a.as_function() == b.as_function();
    case Any::Kind::Object:
      return a.as_object() == b.as_object();
    case Any::Kind::Tuple: {
      const auto& x = a.as_tuple();
      const auto& y = b.as_tuple();
      if (x.size() != y.size()) return false;
      for (size_t i = 0; i < x.size(); ++i)
        if (!same_constant(x[i], y[i])) return false;
      return true;
    }
  }
  return false;
}

}  // namespace

ExecBuilder::ExecBuilder() : exec_(std::make_shared<Executable>()) {}

VMFuncInfo& ExecBuilder::function(const std::string& name) {
  auto it = exec_->func_map.find(name);
  TSCH_USER_ASSERT(it != exec_->func_map.end(), ValueError) << "ExecBuilder: no function named " << name;
  return exec_->func_table[it->second];
}

void ExecBuilder::declare_function(const std::string& name, VMFuncInfo::FuncKind kind) {
  auto it = exec_->func_map.find(name);
  if (it != exec_->func_map.end()) {
    TSCH_USER_ASSERT(exec_->func_table[it->second].kind == kind, ValueError)
        << "ExecBuilder: function " << name << " is already declared as a different kind";
    return;
  }
  VMFuncInfo f;
  f.kind = kind;
  f.name = name;
  f.num_args = kUndefinedArgs;
  exec_->func_map[name] = static_cast<Index>(exec_->func_table.size());
  exec_->func_table.push_back(std::move(f));
}

void ExecBuilder::emit_function(const std::string& name, int64_t num_args, std::vector<std::string> param_names,
                                VMFuncInfo::FuncKind kind, int64_t init_register_size) {
  declare_function(name, kind);
  VMFuncInfo& f = function(name);
  TSCH_USER_ASSERT(f.num_args == kUndefinedArgs, ValueError)
      << "ExecBuilder: function " << name << " is already defined";
  TSCH_USER_ASSERT(num_args >= 0, ValueError)
      << "ExecBuilder: function " << name << " has " << num_args << " arguments";
  TSCH_USER_ASSERT(param_names.empty() || static_cast<int64_t>(param_names.size()) == num_args, ValueError)
      << "ExecBuilder: function " << name << " is defined with " << num_args
      << " arguments, but the list of parameter names has " << param_names.size() << " names";
  f.num_args = num_args;
  f.param_names = std::move(param_names);
  f.register_file_size = std::max(init_register_size, num_args);
  if (kind == FuncKind::kVMFunc) f.start_instr = next_pc();
}

void ExecBuilder::end_function(const std::string& name) {
  VMFuncInfo& f = function(name);
  TSCH_USER_ASSERT(f.end_instr == 0, ValueError) << "ExecBuilder: end_function(" << name << ") called twice";
  if (f.kind == FuncKind::kVMFunc) f.end_instr = next_pc();
}

void ExecBuilder::emit_call(const std::string& func_name, std::vector<Arg> args, RegName dst) {
  if (!exec_->has_function(func_name)) declare_function(func_name, FuncKind::kPackedFunc);
  exec_->instructions.push_back(Instruction::Call(exec_->func_map.at(func_name), std::move(args), dst));
}

void ExecBuilder::emit_ret(RegName result) { exec_->instructions.push_back(Instruction::Ret(result)); }
void ExecBuilder::emit_goto(Index pc_offset) { exec_->instructions.push_back(Instruction::Goto(pc_offset)); }
void ExecBuilder::emit_if(RegName cond, Index false_offset) {
  exec_->instructions.push_back(Instruction::If(cond, false_offset));
}

void ExecBuilder::patch_if(Index pc, Index false_offset) {
  TSCH_INTERNAL_ASSERT(pc >= 0 && pc < next_pc() && exec_->instructions[pc].op == Opcode::If)
      << "patch_if: no If at " << pc;
  exec_->instructions[pc].false_offset = false_offset;
}

void ExecBuilder::patch_goto(Index pc, Index pc_offset) {
  TSCH_INTERNAL_ASSERT(pc >= 0 && pc < next_pc() && exec_->instructions[pc].op == Opcode::Goto)
      << "patch_goto: no Goto at " << pc;
  exec_->instructions[pc].pc_offset = pc_offset;
}

ExecBuilder::Arg ExecBuilder::convert_constant(const Any& value) {
  if (value.kind() == Any::Kind::Int) return Arg::Immediate(value.as_int());
  for (size_t i = 0; i < exec_->constants.size(); ++i)
    if (same_constant(exec_->constants[i], value)) return Arg::ConstIdx(static_cast<Index>(i));
  exec_->constants.push_back(value);
  return Arg::ConstIdx(static_cast<Index>(exec_->constants.size() - 1));
}

ExecBuilder::Arg ExecBuilder::function_arg(const std::string& name) {
  if (!exec_->has_function(name)) declare_function(name, FuncKind::kPackedFunc);
  return Arg::FuncIdx(exec_->func_map.at(name));
}

// Registers past the arguments are renumbered in the order they are first written, so the
// register file is as small as the code allows. Uses are renamed after all definitions are
// known: a loop may read a register its body writes further down.
void ExecBuilder::formalize() {
  for (VMFuncInfo& f : exec_->func_table) {
    if (f.kind != FuncKind::kVMFunc || f.num_args < 0 || f.end_instr <= f.start_instr) continue;
    auto ordinary = [&](RegName r) { return r >= f.num_args && r < Instruction::kBeginSpecialReg; };
    std::map<RegName, RegName> renamed;
    RegName next = f.num_args;
    for (Index pc = f.start_instr; pc < f.end_instr; ++pc) {
      const Instruction& in = exec_->instructions[pc];
      if (in.op == Opcode::Call && ordinary(in.dst) && !renamed.count(in.dst)) renamed[in.dst] = next++;
    }
    auto rename = [&](RegName& r) {
      if (!ordinary(r)) return;
      auto it = renamed.find(r);
      TSCH_USER_ASSERT(it != renamed.end(), ValueError)
          << "ExecBuilder: register " << register_text(r) << " in VM function \"" << f.name
          << "\" is used as input while it is never defined as a destination";
      r = it->second;
    };
    for (Index pc = f.start_instr; pc < f.end_instr; ++pc) {
      Instruction& in = exec_->instructions[pc];
      switch (in.op) {
        case Opcode::Call:
          rename(in.dst);
          for (auto& a : in.args) {
            if (a.kind() != ArgKind::kRegister) continue;
            RegName r = a.value();
            rename(r);
            a = Arg::Register(r);
          }
          break;
        case Opcode::Ret:
          rename(in.result);
          break;
        case Opcode::If:
          rename(in.cond);
          break;
        case Opcode::Goto:
          break;
      }
    }
    f.register_file_size = next;
  }
}

std::shared_ptr<Executable> ExecBuilder::get() {
  formalize();
  for (const VMFuncInfo& f : exec_->func_table) {
    TSCH_USER_ASSERT(f.kind == FuncKind::kPackedFunc || f.num_args != kUndefinedArgs, ValueError)
        << "ExecBuilder: function " << f.name << " is declared but never emitted";
  }
  exec_->validate();
  return std::make_shared<Executable>(*exec_);
}

}  // namespace tsch::runtime::vm
