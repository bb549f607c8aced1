// The parts of TVM's and NumPy's Python APIs that scripts written for TVM reach and tsch does not
// have yet. Importing or reading one says so by name ("not supported yet: tvm.dlight (...)")
// rather than "No module named 'tvm.dlight'", which reads like a typo. The table shrinks as the
// features land (MetaSchedule, Relax's operators, nn.Module: issues #49 and #50).
#include "bindings/builtin_modules.h"
#include "script/modules.h"

namespace tsch::script {

void register_not_supported_names() {
  struct Gap {
    const char* dotted;
    const char* what;
  };
  static const Gap gaps[] = {
      // tvm: packages of TVM's Python API
      {"tvm.dlight", "DLight's rule-based GPU schedules"},
      {"tvm.relay", "Relay, the graph IR before Relax; TVM removed it in v0.20"},
      {"tvm.auto_scheduler", "Ansor; TVM removed it in v0.20 in favour of tvm.meta_schedule"},
      {"tvm.autotvm", "AutoTVM's template tuning; TVM removed it in v0.20 in favour of tvm.meta_schedule"},
      {"tvm.rpc", "remote devices"},
      {"tvm.micro", "microTVM"},
      {"tvm.instrument", "pass instruments"},
      {"tvm.ir.instrument", "pass instruments"},
      // tvm.relax: the graph level beyond TVMScript's R.* and relax.build
      {"tvm.relax.frontend", "nn.Module and the model importers"},
      {"tvm.relax.op", "Relax's operators as Python functions"},
      {"tvm.relax.BlockBuilder", "building Relax functions from Python"},
      {"tvm.relax.Var", "building Relax expressions from Python"},
      {"tvm.relax.const", "building Relax expressions from Python"},
      {"tvm.relax.call_tir", "building Relax expressions from Python"},
      {"tvm.relax.ShapeExpr", "building Relax expressions from Python"},
      {"tvm.relax.DataflowBlock", "building Relax expressions from Python"},
      {"tvm.relax.get_pipeline", "Relax's named pass pipelines"},
      {"tvm.relax.analysis", "Relax's analyses from Python"},
      {"tvm.relax.testing", "Relax's test helpers"},
      {"tvm.relax.backend", "Relax's backend dispatch"},
      {"tvm.relax.dpl", "Relax's dataflow pattern language"},
      // numpy: what tsch's numpy does not cover
      {"numpy.linalg", "linear algebra"},
      {"numpy.fft", "Fourier transforms"},
      {"numpy.einsum", "Einstein summation"},
      {"numpy.tensordot", "tensor contraction"},
      {"numpy.concatenate", "joining arrays"},
      {"numpy.stack", "joining arrays"},
      {"numpy.split", "splitting arrays"},
      {"numpy.pad", "padding arrays"},
      {"numpy.sort", "sorting"},
      {"numpy.argsort", "sorting"},
      {"numpy.unique", "set routines"},
      {"numpy.cumsum", "cumulative sums"},
      {"numpy.meshgrid", "coordinate grids"},
  };
  for (const Gap& gap : gaps) ModuleLoader::register_not_supported(gap.dotted, gap.what);
}

}  // namespace tsch::script
