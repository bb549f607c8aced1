// relax.build / tvm.compile for modules with Relax functions: the Relax pipeline
// (transform/passes.h), then the prim_funcs built for the target through driver::build and
// the Relax functions generated as VM bytecode. The result runs in a VirtualMachine.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "driver/build.h"
#include "ir/module.h"
#include "runtime/module.h"
#include "runtime/vm/executable.h"
#include "target/target.h"

namespace tsch::relax {

// TVM's relax.Executable (tvm.runtime.Executable in 0.23): the bytecode and the compiled
// prim_funcs it calls.
struct Executable {
  std::shared_ptr<const runtime::vm::Executable> bytecode;
  runtime::Module library;  // null when the module has no prim_funcs
  target::Target target;
  // The module as given to build (for TSCH_CHECK_RELAX); null for a loaded executable.
  ir::IRModule source;
};

struct RelaxBuildOptions {
  driver::BuildOptions tir;
  // Called after each Relax pass with its name and the module (TSCH_PRINT_AFTER_ALL).
  std::function<void(const std::string& pass, const ir::IRModule&)> after_pass;
};

// The module after the Relax pipeline (what VMCodeGen receives).
ir::IRModule lower_for_vm(const ir::IRModule& mod, const RelaxBuildOptions& options = {});
Executable build(const ir::IRModule& mod, const target::Target& target, const RelaxBuildOptions& options = {});

// An executable as one file: the library (a shared object) with the bytecode appended, which
// the dynamic loader ignores; load_executable reads it back.
void export_executable(const Executable& ex, const std::string& path);
// True when `path` holds an exported executable (a library with bytecode appended).
bool is_exported_executable(const std::string& path);
Executable load_executable(const std::string& path);

}  // namespace tsch::relax
