// Passes as TVM has them: module passes (IRModule -> IRModule) with a PassInfo (name,
// opt_level, required), function passes over each PrimFunc through an adapter, Sequential,
// and the PassContext they run under (opt_level, disabled and required passes, config,
// instruments). Passes never mutate their input; they return a new module (or the same one
// when nothing changed).
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ir/module.h"

namespace tsch::transform {

struct PassInfo {
  std::string name;  // TVM's name, e.g. "tir.LowerInitBlock"
  int opt_level = 0;
  std::vector<std::string> required;
};

// Called around each pass that is not a Sequential (TVM's PassInstrument).
struct PassInstrument {
  std::string name;
  std::function<void(const ir::IRModule&, const PassInfo&)> run_before_pass;
  std::function<void(const ir::IRModule&, const PassInfo&)> run_after_pass;
};

class Pass;

// A pass added to the lowering pipeline by `tir.add_lower_pass`: it runs at the end of
// `phase` (0: before lowering, 1: after buffers are flattened, 2: after vectorizing and
// unrolling, 3: at the end), as TVM's driver places them.
struct PhasePass {
  int phase;
  std::shared_ptr<const Pass> pass;
};

class PassContext {
 public:
  int opt_level = 2;
  std::vector<std::string> required_pass, disabled_pass;
  nlohmann::json config = nlohmann::json::object();  // checked by validate_config
  std::vector<PassInstrument> instruments;
  std::vector<PhasePass> lower_passes;  // config "tir.add_lower_pass" (holds passes, not JSON)

  // Sequential runs a pass when it is required here, else when it is not disabled here and
  // its opt_level is at most this context's.
  bool pass_enabled(const PassInfo& info) const;
  bool config_flag(const std::string& key, bool otherwise = false) const;

  // The innermost `with PassContext(...)` of this thread, or the default context.
  static const PassContext& current();
  static void enter(std::shared_ptr<const PassContext> ctx);
  static void exit();

  // The config keys tsch honours, and TVM's other keys (refused as not supported yet).
  static std::vector<std::string> list_configs();
  // Throws UserError: AttributeError for a key TVM does not know, NotImplementedError for
  // one tsch does not honour yet, TypeError for a value of the wrong type.
  static void validate_config(const nlohmann::json& config);
  // The key alone (before its value is converted).
  static void validate_config_key(const std::string& key);
};

class Pass {
 public:
  using ModuleFunction = std::function<ir::IRModule(const ir::IRModule&, const PassContext&)>;
  using FunctionPassFunction =
      std::function<ir::PrimFunc(const ir::PrimFunc&, const ir::IRModule&, const PassContext&)>;

  Pass(PassInfo info, ModuleFunction run);
  // A function pass at opt_level 0 applied to each PrimFunc: what the lowering passes are.
  Pass(std::string name, std::function<ir::PrimFunc(const ir::PrimFunc&)> run);

  const PassInfo& info() const { return info_; }
  const std::string& name() const { return info_.name; }
  // Runs under PassContext::current(), calling its instruments (a Sequential calls them
  // around the passes inside instead).
  ir::IRModule operator()(const ir::IRModule& mod) const;
  ir::IRModule operator()(const ir::IRModule& mod, const PassContext& ctx) const;
  bool is_sequential() const { return !inner_.empty() || sequential_; }
  const std::vector<Pass>& inner_passes() const { return inner_; }

  friend Pass sequential(std::vector<Pass> passes, PassInfo info);

 private:
  PassInfo info_;
  ModuleFunction run_;
  std::vector<Pass> inner_;
  bool sequential_ = false;
};

// TVM's tir.transform.prim_func_pass: `run` on each PrimFunc of the module.
Pass prim_func_pass(PassInfo info, Pass::FunctionPassFunction run);
// TVM's transform.Sequential: the passes in order, each when the context enables it.
Pass sequential(std::vector<Pass> passes, PassInfo info = {"sequential", 0, {}});

// A copy of `f` with a new body.
ir::PrimFunc with_body(const ir::PrimFunc& f, ir::Stmt body);

// The lowering passes, one per file.
Pass canonicalize_loop();
Pass lower_cross_thread_reduction();
Pass lower_init_block();
Pass convert_blocks_to_opaque();
Pass lower_match_buffer();
Pass lower_opaque_block();
Pass plan_buffer_allocation();
Pass compact_buffer_allocation();
Pass inject_software_pipeline();
Pass flatten_buffer();
Pass storage_rewrite();
Pass simplify();
Pass vectorize_loop();
Pass unroll_loop();
Pass remove_no_op();
// The device passes of a GPU build (before the host/device split, as TVM's mixed-module
// pipeline runs them).
Pass thread_sync(const std::string& scope);
// tir.LowerWarpMemory: "warp" buffers striped across the lanes, read through warp shuffles.
Pass lower_warp_memory();

// Every lowering pass by TVM's name, for tvm.tir.transform.<Name>() in scripts.
const std::vector<std::pair<std::string, std::function<Pass()>>>& named_passes();

}  // namespace tsch::transform
