// tvm.testing in scripts: assert_allclose (numpy.testing's), assert_prim_expr_equal,
// assert_same_results (tsch's differential check), and what stdlib/tvm_testing.tsch writes in
// tsch (CompareBeforeAfter, SkipTest, the requirement decorators).
#include "arith/analyzer.h"
#include "bindings/tvm/runtime/runtime_values.h"
#include "driver/differential.h"
#include "runtime/module.h"
#include "script/exceptions.h"
#include "script/modules.h"
#include "values/ir_values.h"

namespace tsch::bindings {

using script::Args;
using script::ExcKind;
using script::Namespace;
using script::raise;
using tsch::intern;

void register_tvm_testing_module() {
  script::ModuleLoader::register_builtin("tvm.testing", [](Interpreter& interp, script::Module& m) {
    Namespace& ns = *m.globals;
    Value np_assert = *interp.modules().import(interp, "numpy.testing", "")->globals->find(intern("assert_allclose"));
    script::def_function(ns, "assert_allclose", "actual, desired, rtol=1e-07, atol=1e-07",
                         [np_assert](Interpreter& interp, Args& a) {
                           return interp.call(np_assert, std::vector<Value>{a[0], a[1], a[2], a[3]});
                         });
    // TVM's: a fresh Analyzer's can_prove_equal, ValueError otherwise.
    script::def_function(
        ns, "assert_prim_expr_equal", "lhs, rhs",
        [](Interpreter& interp, Args& a) -> Value {
          ir::PrimExpr lhs = to_expr(interp, a[0], "lhs");
          ir::PrimExpr rhs = to_expr(interp, a[1], "rhs");
          if (!guard_ir([&] { return arith::can_prove_equal(lhs, rhs); }))
            raise(script::ExcKind::ValueError, interp.str(a[0]) + " and " + interp.str(a[1]) + " are not equal");
          return Value();
        },
        "assert_prim_expr_equal(lhs, rhs): raise ValueError unless an Analyzer proves lhs == rhs.");
    script::def_function(
        ns, "assert_same_results", "reference, candidate, seed=1",
        [](Interpreter& interp, Args& a) -> Value {
          ir::IRModule ref = to_module(interp, a[0], "assert_same_results"),
                       cand = to_module(interp, a[1], "assert_same_results");
          driver::DifferentialResult r;
          try {
            r = driver::compare_execution(ref, cand, static_cast<uint32_t>(a.get_int(2)));
          } catch (const runtime::BuildError& e) {  // too big inputs: MemoryError/ValueError at the call
            raise(ExcKind::RuntimeError, std::string("assert_same_results: cannot build: ") + e.what());
          }
          if (!r.equal) raise(ExcKind::AssertionError, "the modules compute different results: " + r.note);
          return Value::boolean(r.compared);
        },
        "assert_same_results(reference, candidate, seed=1) (tsch extension): build both modules, run every function on "
        "the same "
        "random inputs and raise AssertionError when any buffer differs. Returns False when nothing could be compared "
        "(GPU thread bindings, scalar parameters, shapes given by expressions; a symbolic dimension gets a size from "
        "the seed).");
    // CompareBeforeAfter and the requirement decorators are written in tsch
    // (stdlib/tvm_testing.tsch); their helpers stay there.
    auto written = interp.modules().import(interp, "tvm_testing", "");
    for (const char* name :
         {"CompareBeforeAfter", "SkipTest", "requires_cuda", "requires_gpu", "requires_cuda_compute_version"}) {
      ns.set(intern(name), *written->globals->find(intern(name)));
    }
  });
}

}  // namespace tsch::bindings
