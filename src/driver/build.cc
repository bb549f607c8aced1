#include "driver/build.h"

#include <string>
#include <vector>

#include "arith/verify_well_formed.h"
#include "codegen/signature.h"
#include "driver/backend.h"
#include "driver/build_cache.h"
#include "support/error.h"
#include "transform/pass.h"
#include "transform/pipeline.h"

namespace tsch::driver {

namespace {

// What every backend refuses: unsafe symbols, functions that are not PrimFuncs, accesses
// past a buffer.
void check_buildable(const ir::IRModule& mod) {
  // Symbols reach generated C and CUDA source and the exported function table.
  codegen::check_symbol_names(mod);
  for (const auto& [name, f] : mod->functions) {
    TSCH_USER_ASSERT(f->func_kind() == ir::FuncKind::PrimFunc, NotImplementedError)
        << "not supported yet: building " << f->type_key() << " \"" << name << "\" (tvm.build compiles PrimFuncs)";
  }
  // TVM accepts a function that reads or writes past a buffer (its tests schedule such
  // functions) and compiles it; tsch refuses it here, where the access would run.
  for (const auto& [name, f] : mod->prim_funcs()) {
    std::vector<std::string> problems = arith::verify_well_formed(f, arith::kBounds);
    TSCH_USER_ASSERT(problems.empty(), ValueError)
        << "cannot build prim_func " << name << ": " << problems[0]
        << (problems.size() > 1 ? " (and " + std::to_string(problems.size() - 1) + " more)" : std::string());
  }
}

const Backend& backend_of(const target::Target& target) {
  const Backend* backend = find_backend(target->kind->name);
  if (!backend) {
    std::string kinds;
    for (const std::string& k : backend_kinds()) kinds += (kinds.empty() ? "" : ", ") + k;
    throw UserError(UserErrorKind::RuntimeError,
                    "not supported yet: target \"" + target->kind->name + "\" (tsch generates code for " + kinds + ")");
  }
  return *backend;
}

}  // namespace

ir::IRModule lower(const ir::IRModule& mod, const target::Target& target, const BuildOptions& options) {
  // The host/device split follows lowering for CUDA (build). C source is scalar: vectorized
  // loops stay loops, which the C compiler vectorizes itself.
  transform::LowerOptions lower_options;
  lower_options.after_pass = options.after_pass;
  transform::lowering_notes().clear();
  // (CUDA C writes vectorized loops with its vector types, codegen_cuda_vector.cc.)
  const Backend* backend = find_backend(target->kind->name);
  bool scalar_only = backend && !backend->vectorizes;
  if (scalar_only) {
    auto ctx = std::make_shared<transform::PassContext>(transform::PassContext::current());
    ctx->config["tir.disable_vectorize"] = true;
    transform::PassContext::enter(ctx);
  }
  ir::IRModule lowered;
  try {
    lowered = transform::lower(mod, lower_options);
  } catch (...) {
    if (scalar_only) transform::PassContext::exit();
    throw;
  }
  if (scalar_only) transform::PassContext::exit();
  if (options.notes) *options.notes = transform::lowering_notes();
  transform::lowering_notes().clear();
  return lowered;
}

runtime::CompiledModuleRef build(const ir::IRModule& mod, const target::Target& target, const BuildOptions& options) {
  const Backend& backend = backend_of(target);
  check_buildable(mod);
  LoweredModule lowered = backend.lower(mod, target, options);
  BuildKey key = build_key(lowered, target, options);
  if (auto hit = build_cache().find(key, lowered)) return hit;
  runtime::CompiledModuleRef m = backend.generate(lowered, target, options);
  build_cache().insert(key, lowered, m);
  return m;
}

}  // namespace tsch::driver
