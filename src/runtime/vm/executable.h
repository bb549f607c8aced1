// The Relax VM's executable (TVM's VMExecutable): the function table, the constant pool and
// the instructions; its text form (`as_text`, exactly as TVM prints it) and Python form
// (`as_python`), and a binary form of tsch's own (`save`/`load`). `ExecBuilder` (TVM's
// relax.ExecBuilder) is how code generation and tests make one:
//
//   ExecBuilder b;
//   b.emit_function("main", 2, {"x", "y"});
//   b.emit_call("test.add", {Arg::Register(0), Arg::Register(1)}, 2);
//   b.emit_ret(2);
//   b.end_function("main");
//   std::shared_ptr<Executable> exec = b.get();
//
//   @main:
//     call  test.add         in: %0, %1       dst: %2
//     ret   %2
//
//   @test.add packed_func;
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/packed_func.h"
#include "runtime/vm/bytecode.h"

namespace tsch::runtime::vm {

struct VMFuncInfo {
  enum class FuncKind : int {
    kPackedFunc = 0,  // resolved by name in the library module, then the global registry
    kVMFunc = 1,      // bytecode in [start_instr, end_instr)
    kVMTIRFunc = 2,   // TVM's TIR-compiled VM function: listed, not supported yet
  };
  FuncKind kind = FuncKind::kPackedFunc;
  std::string name;
  Index start_instr = 0;
  Index end_instr = 0;
  Index num_args = 0;
  Index register_file_size = 0;
  std::vector<std::string> param_names;
};

class Executable {
 public:
  std::vector<VMFuncInfo> func_table;
  std::unordered_map<std::string, Index> func_map;  // name -> index in func_table
  // NDArrays, ints, floats, bools, strings (dtypes travel as their names), shapes, tuples.
  std::vector<Any> constants;
  std::vector<Instruction> instructions;

  bool has_function(const std::string& name) const { return func_map.count(name) > 0; }
  // TVM's as_text: `@main:` then one line per instruction, a blank line after each function.
  std::string as_text() const;
  // TVM's as_python: the ExecBuilder calls that rebuild it.
  std::string as_python() const;
  // TVM's stats: the constant pool and the globals, summarized.
  std::string stats() const;

  // A binary form with a magic header and a version; NDArray constants keep dtype, shape and
  // bytes. Function or script-object constants cannot be saved: UserError (ValueError).
  std::string save() const;
  // The executable `save` wrote. A blob that is not one (wrong magic, other version,
  // truncated, corrupt, or failing validate()) is a UserError (ValueError) saying where.
  static std::shared_ptr<Executable> load(const std::string& bytes);

  // Checks what the interpreter relies on without checking again as it runs: every function
  // of kind kVMFunc has a non-empty range that ends in ret or goto; registers are below its
  // register_file_size (or special); constant and function indices exist; jumps land inside
  // the function; If's false offset is greater than 1. A UserError (ValueError) otherwise.
  void validate() const;
  // What an executable of Relax code generation also holds, which only jumps forward (if/else
  // only): no goto goes backward, so no call can loop. A UserError (ValueError) naming the
  // jump otherwise. Exported executables are checked at load (ExecBuilder's may loop).
  void check_forward_jumps() const;
};

// Builds an Executable as TVM's ExecBuilder does. Registers are numbered freely while
// emitting; get() renumbers each function's registers past its arguments in order of first
// definition and sizes its register file (TVM's Formalize), then validates.
class ExecBuilder {
 public:
  using Arg = Instruction::Arg;

  ExecBuilder();

  // Adds `name` to the function table (a second declaration of the same kind is a no-op).
  void declare_function(const std::string& name, VMFuncInfo::FuncKind kind);
  // Starts a function; its instructions follow until end_function. `param_names` is empty
  // or has `num_args` names.
  void emit_function(const std::string& name, int64_t num_args, std::vector<std::string> param_names = {},
                     VMFuncInfo::FuncKind kind = VMFuncInfo::FuncKind::kVMFunc, int64_t init_register_size = 0);
  void end_function(const std::string& name);
  // dst = name(args...); a name not declared yet becomes a kPackedFunc.
  void emit_call(const std::string& func_name, std::vector<Arg> args, RegName dst = Instruction::kVoidRegister);
  void emit_ret(RegName result);
  void emit_goto(Index pc_offset);
  void emit_if(RegName cond, Index false_offset);
  // The argument that passes `value`: an Immediate for an int, else a constant-pool index
  // (equal strings, numbers and shapes share one entry; arrays by identity).
  Arg convert_constant(const Any& value);
  // The function `name` as a value argument (kFuncIdx); a name not declared yet becomes a
  // kPackedFunc, as in emit_call.
  Arg function_arg(const std::string& name);
  // The next instruction's index (for computing jump offsets).
  Index next_pc() const { return static_cast<Index>(exec_->instructions.size()); }
  // Sets the offset of the If / Goto at `pc` once the code it jumps over is emitted.
  void patch_if(Index pc, Index false_offset);
  void patch_goto(Index pc, Index pc_offset);

  // The executable so far, formalized and validated; the builder may go on emitting.
  std::shared_ptr<Executable> get();

 private:
  VMFuncInfo& function(const std::string& name);
  void formalize();

  std::shared_ptr<Executable> exec_;
};

}  // namespace tsch::runtime::vm
