#include "runtime/vm/executable.h"

#include <algorithm>
#include <cstring>
#include <iomanip>
#include <map>
#include <optional>
#include <sstream>

#include "support/error.h"

namespace tsch::runtime::vm {

using ArgKind = Instruction::ArgKind;
using FuncKind = VMFuncInfo::FuncKind;

// ---------------------------------------------------------------------------------------
// Text forms
// ---------------------------------------------------------------------------------------

namespace {

std::string function_name(const Executable& exec, Index index) {
  if (index >= 0 && static_cast<size_t>(index) < exec.func_table.size()) return exec.func_table[index].name;
  return "unknown_func_index(" + std::to_string(index) + ")";
}

std::string arg_text(const Executable& exec, const Instruction::Arg& arg) {
  switch (arg.kind()) {
    case ArgKind::kRegister:
      return register_text(arg.value());
    case ArgKind::kImmediate:
      return "i" + std::to_string(arg.value());
    case ArgKind::kConstIdx:
      return "c[" + std::to_string(arg.value()) + "]";
    case ArgKind::kFuncIdx:
      return "f[" + function_name(exec, arg.value()) + "]";
  }
  return "?";
}

std::string arg_python(const Executable& exec, const Instruction::Arg& arg) {
  switch (arg.kind()) {
    case ArgKind::kRegister:
      return arg.value() == Instruction::kVMRegister ? "ib.r(vm)" : "ib.r(" + std::to_string(arg.value()) + ")";
    case ArgKind::kImmediate:
      return "ib.imm(" + std::to_string(arg.value()) + ")";
    case ArgKind::kConstIdx:
      return "ib.c(" + std::to_string(arg.value()) + ")";
    case ArgKind::kFuncIdx: {
      Index i = arg.value();
      if (i >= 0 && static_cast<size_t>(i) < exec.func_table.size()) return "ib.f(\"" + exec.func_table[i].name + "\")";
      return "ib.f(ib.unknown_func_index(" + std::to_string(i) + "))";
    }
  }
  return "?";
}

template <typename F>
std::string join(const std::vector<Instruction::Arg>& args, F&& text) {
  std::string s;
  for (size_t i = 0; i < args.size(); ++i) s += (i ? ", " : "") + text(args[i]);
  return s;
}

}  // namespace

std::string Executable::as_text() const {
  std::ostringstream os;
  for (const VMFuncInfo& f : func_table) {
    if (f.kind == FuncKind::kPackedFunc) {
      os << "@" << f.name << " packed_func;\n\n";
      continue;
    }
    if (f.kind == FuncKind::kVMTIRFunc) {
      os << "@" << f.name << " num_inputs=" << f.num_args << " vm_tir_func;\n\n";
      continue;
    }
    os << "@" << f.name << ":\n";
    for (Index pc = f.start_instr; pc < f.end_instr && static_cast<size_t>(pc) < instructions.size(); ++pc) {
      const Instruction& in = instructions[pc];
      os << "  ";
      switch (in.op) {
        case Opcode::Call:
          os << std::setw(6) << std::left << "call" << std::setw(16) << std::left << function_name(*this, in.func_idx)
             << " in: " << std::setw(12) << std::left
             << join(in.args, [&](const Instruction::Arg& a) { return arg_text(*this, a); })
             << " dst: " << register_text(in.dst) << "\n";
          break;
        case Opcode::Ret:
          os << std::setw(6) << std::left << "ret " << register_text(in.result) << "\n";
          break;
        case Opcode::Goto:
          os << std::setw(6) << std::left << "goto" << in.pc_offset << "\n";
          break;
        // TVM prints this opcode capitalized.
        case Opcode::If:
          os << std::setw(6) << std::left << "If" << register_text(in.cond) << ", " << in.false_offset << "\n";
          break;
      }
    }
    os << "\n";
  }
  return os.str();
}

std::string Executable::as_python() const {
  std::ostringstream os;
  os << "ib = rx.Builder()\n";
  for (const VMFuncInfo& f : func_table) {
    if (f.kind != FuncKind::kVMFunc) continue;
    os << "with ib.function(\"" << f.name << "\", num_inputs=" << f.num_args << "):\n";
    for (Index pc = f.start_instr; pc < f.end_instr && static_cast<size_t>(pc) < instructions.size(); ++pc) {
      const Instruction& in = instructions[pc];
      switch (in.op) {
        case Opcode::Call: {
          std::string callee = in.func_idx >= 0 && static_cast<size_t>(in.func_idx) < func_table.size()
                                   ? "\"" + func_table[in.func_idx].name + "\""
                                   : "ib.unknown_func_index(" + std::to_string(in.func_idx) + ")";
          os << "    ib.emit_call(" << callee << ", args=["
             << join(in.args, [&](const Instruction::Arg& a) { return arg_python(*this, a); }) << "]";
          if (in.dst != Instruction::kVoidRegister) os << ", dst=ib.r(" << in.dst << ")";
          os << ")\n";
          break;
        }
        case Opcode::Ret:
          os << "    ib.emit_ret(ib.r(" << in.result << "))\n";
          break;
        case Opcode::Goto:
          os << "    ib.emit_goto(" << in.pc_offset << ")\n";
          break;
        case Opcode::If:
          os << "    ib.emit_if(ib.r(" << in.cond << "), " << in.false_offset << ")\n";
          break;
      }
    }
  }
  return os.str();
}

namespace {

std::string constant_summary(const Any& c) {
  auto dims = [](const Shape& s) {
    std::string t;
    for (size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
    return t;
  };
  switch (c.kind()) {
    case Any::Kind::NDArray: {
      const Shape& s = c.as_ndarray()->shape();
      return s.empty() ? "scalar" : "[" + dims(s) + "]";
    }
    case Any::Kind::Shape:
      return "shapetuple[" + dims(c.as_shape()) + "]";
    case Any::Kind::Str:
      return "\"" + c.as_str() + "\"";
    case Any::Kind::Int:
      return std::to_string(c.as_int());
    case Any::Kind::Bool:
      return c.as_bool() ? "True" : "False";
    case Any::Kind::Float: {
      std::ostringstream os;
      os << c.as_float();
      return os.str();
    }
    default:
      return c.type_name();
  }
}

}  // namespace

std::string Executable::stats() const {
  std::ostringstream os;
  os << "Relax VM executable statistics:\n";
  os << "  Constant pool (# " << constants.size() << "): [";
  for (size_t i = 0; i < constants.size(); ++i) os << (i ? ", " : "") << constant_summary(constants[i]);
  os << "]\n";
  os << "  Globals (#" << func_table.size() << "): [";
  for (size_t i = 0; i < func_table.size(); ++i) os << (i ? ", " : "") << func_table[i].name;
  os << "]\n";
  return os.str();
}

// ---------------------------------------------------------------------------------------
// Validation: done once, so the interpreter's loop checks nothing per instruction.
// ---------------------------------------------------------------------------------------

void Executable::validate() const {
  auto count = static_cast<Index>(instructions.size());
  auto n_funcs = static_cast<Index>(func_table.size());
  auto n_consts = static_cast<Index>(constants.size());
  TSCH_USER_ASSERT(func_map.size() == func_table.size(), ValueError)
      << "invalid VM executable: " << func_table.size() << " functions but " << func_map.size() << " names";
  for (Index fi = 0; fi < n_funcs; ++fi) {
    const VMFuncInfo& f = func_table[fi];
    auto it = func_map.find(f.name);
    TSCH_USER_ASSERT(it != func_map.end() && it->second == fi, ValueError)
        << "invalid VM executable: function " << fi << " (" << f.name << ") is not in the name table";
    TSCH_USER_ASSERT(f.kind == FuncKind::kPackedFunc || f.kind == FuncKind::kVMFunc || f.kind == FuncKind::kVMTIRFunc,
                     ValueError)
        << "invalid VM executable: function " << f.name << " has the unknown kind " << static_cast<int>(f.kind);
    if (f.kind != FuncKind::kVMFunc) continue;
    std::string where = "VM function " + f.name;
    TSCH_USER_ASSERT(f.num_args >= 0, ValueError) << where << " was declared but never emitted";
    TSCH_USER_ASSERT(f.param_names.empty() || static_cast<Index>(f.param_names.size()) == f.num_args, ValueError)
        << where << " takes " << f.num_args << " arguments but has " << f.param_names.size() << " parameter names";
    TSCH_USER_ASSERT(f.register_file_size >= f.num_args && f.register_file_size < Instruction::kBeginSpecialReg,
                     ValueError)
        << where << " has " << f.register_file_size << " registers, fewer than its " << f.num_args << " arguments";
    TSCH_USER_ASSERT(0 <= f.start_instr && f.start_instr < f.end_instr && f.end_instr <= count, ValueError)
        << where << " has no instructions (or end_function was not called): range [" << f.start_instr << ", "
        << f.end_instr << ") of " << count;
    // Each instruction writes at most one register: a larger file is corrupt, and would be
    // allocated on every call.
    TSCH_USER_ASSERT(f.register_file_size - f.num_args <= f.end_instr - f.start_instr, ValueError)
        << where << " has " << f.register_file_size << " registers, more than its " << f.num_args << " arguments and "
        << f.end_instr - f.start_instr << " instructions can use";
    Opcode last = instructions[f.end_instr - 1].op;
    TSCH_USER_ASSERT(last == Opcode::Ret || last == Opcode::Goto, ValueError)
        << where << " does not end with ret or goto: execution would run past its end";
    auto check_reg = [&](Index pc, RegName r, bool written) {
      bool special = r == Instruction::kVoidRegister || r == Instruction::kVMRegister;
      TSCH_USER_ASSERT((r >= 0 && r < f.register_file_size) || (special && !(written && r == Instruction::kVMRegister)),
                       ValueError)
          << where << ", instruction " << pc - f.start_instr << ": register " << register_text(r)
          << " is outside its register file of " << f.register_file_size;
    };
    auto check_target = [&](Index pc, Index offset) {
      Index target = pc + offset;
      TSCH_USER_ASSERT(target >= f.start_instr && target < f.end_instr, ValueError)
          << where << ", instruction " << pc - f.start_instr << ": jump by " << offset << " lands outside the function";
    };
    for (Index pc = f.start_instr; pc < f.end_instr; ++pc) {
      const Instruction& in = instructions[pc];
      switch (in.op) {
        case Opcode::Call:
          TSCH_USER_ASSERT(in.func_idx >= 0 && in.func_idx < n_funcs, ValueError)
              << where << ", instruction " << pc - f.start_instr << ": calls function index " << in.func_idx << " of "
              << n_funcs;
          check_reg(pc, in.dst, true);
          for (const auto& a : in.args) {
            switch (a.kind()) {
              case ArgKind::kRegister:
                check_reg(pc, a.value(), false);
                break;
              case ArgKind::kImmediate:
                break;
              case ArgKind::kConstIdx:
                TSCH_USER_ASSERT(a.value() >= 0 && a.value() < n_consts, ValueError)
                    << where << ", instruction " << pc - f.start_instr << ": constant c[" << a.value()
                    << "] is outside the pool of " << n_consts;
                break;
              case ArgKind::kFuncIdx:
                TSCH_USER_ASSERT(a.value() >= 0 && a.value() < n_funcs, ValueError)
                    << where << ", instruction " << pc - f.start_instr << ": function index " << a.value() << " of "
                    << n_funcs;
                break;
              default:
                TSCH_USER_ASSERT(false, ValueError) << where << ", instruction " << pc - f.start_instr
                                                    << ": unknown argument kind " << static_cast<int>(a.kind());
            }
          }
          break;
        case Opcode::Ret:
          check_reg(pc, in.result, false);
          break;
        case Opcode::Goto:
          TSCH_USER_ASSERT(in.pc_offset != 0, ValueError)
              << where << ", instruction " << pc - f.start_instr << ": goto 0 loops forever";
          check_target(pc, in.pc_offset);
          break;
        case Opcode::If:
          check_reg(pc, in.cond, false);
          TSCH_USER_ASSERT(in.false_offset > 1, ValueError)
              << where << ", instruction " << pc - f.start_instr << ": If's false offset must be greater than 1, got "
              << in.false_offset;
          check_target(pc, in.false_offset);
          break;
        default:
          TSCH_USER_ASSERT(false, ValueError)
              << where << ", instruction " << pc - f.start_instr << ": unknown opcode " << static_cast<int>(in.op);
      }
    }
  }
}

void Executable::check_forward_jumps() const {
  for (const VMFuncInfo& f : func_table) {
    if (f.kind != FuncKind::kVMFunc) continue;
    for (Index pc = f.start_instr; pc < f.end_instr; ++pc) {
      const Instruction& in = instructions[pc];
      TSCH_USER_ASSERT(in.op != Opcode::Goto || in.pc_offset > 0, ValueError)
          << "VM function " << f.name << ", instruction " << pc - f.start_instr << ": goto " << in.pc_offset
          << " jumps backward (Relax code jumps forward only, so a loop cannot come from relax.build)";
    }
  }
}

}  // namespace tsch::runtime::vm
