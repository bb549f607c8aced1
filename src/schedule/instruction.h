// Instructions (TVM's Instruction / InstructionKind): one schedule primitive call as data.
// Each primitive's file registers its kind: TVM's name ("Split"), the script method, the
// parameters in the script's order with the slot each fills (an input, an attribute or the
// decision), how the call is applied to a schedule and its help text. The trace, its Python
// and JSON forms, replay and the script bindings are all derived from these records.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ir/expr.h"
#include "schedule/sid.h"

namespace tsch::schedule {

// A random variable: a handle to a block or loop (by sid) or a sampled integer. A sampled
// integer (TVM's ExprRV) is also an int32 IR variable, `var`, so that scripts can compute
// with it (`j1 * j2`, an index map's `j // j1`); a schedule replaces the variable by `value`
// before a primitive sees the expression, so it never reaches the module.
struct RVNode {
  enum class Kind { Block, Loop, Expr };
  Kind kind = Kind::Block;
  StmtSid sid;  // Block and Loop: the block or loop, as `kind` says (0 for an ExprRV)
  int64_t value = 0;
  ir::Var var;  // Expr only
  // The sid as the handle's kind names it: a LoopRV's loop, a BlockRV's block (a bug, an
  // InternalError, for a handle of another kind). Whether it still exists is the caller's
  // question (Schedule::loop_sid / block_sid check it).
  LoopSid loop_sid() const;
  BlockSid block_sid() const;
  ~RVNode();
};
using RV = std::shared_ptr<RVNode>;
// An ExprRV's variable is named `name` (TVM names them v1, v2, ... by the schedule's count
// of handles).
RV make_rv(RVNode::Kind kind, StmtSid sid, int64_t value = 0, const std::string& name = "v");
// The ExprRV whose variable `var` is, null when it is no ExprRV's (or that one is gone).
RV rv_of_var(const ir::VarNode* var);
// The ExprRV of `var`, made (value 0) when it has none: a tir.Var given as an instruction's
// output in a hand-built trace, as TVM's tests build them.
RV expr_rv_of(const ir::Var& var);

// A value in an instruction's inputs, attributes or decision (TVM's Any).
struct TraceArg {
  // Expr: an integer expression over ExprRVs (`v0 * v1`), the RVs it uses as Refs in `list`.
  enum class Kind { None, Int, Float, Bool, Str, Ref, List, IndexMap, Dict, Expr };
  Kind kind = Kind::None;
  int64_t i = 0;
  double f = 0;
  bool b = false;
  std::string s;
  RV ref;
  std::vector<TraceArg> list;
  std::vector<std::string> keys;  // Dict: the keys of `list`'s values, in order (annotation values)
  ir::PrimExpr expr;              // Expr
  // IndexMap: `lambda params: (outputs)`; the ExprRVs the outputs use are Refs in `list`.
  std::vector<ir::Var> map_params;
  std::vector<ir::PrimExpr> map_outputs;

  static TraceArg none() { return TraceArg{}; }
  static TraceArg of_int(int64_t v) {
    TraceArg a;
    a.kind = Kind::Int;
    a.i = v;
    return a;
  }
  static TraceArg of_float(double v) {
    TraceArg a;
    a.kind = Kind::Float;
    a.f = v;
    return a;
  }
  static TraceArg of_bool(bool v) {
    TraceArg a;
    a.kind = Kind::Bool;
    a.b = v;
    return a;
  }
  static TraceArg of_str(std::string v) {
    TraceArg a;
    a.kind = Kind::Str;
    a.s = std::move(v);
    return a;
  }
  static TraceArg of_ref(RV v) {
    TraceArg a;
    a.kind = Kind::Ref;
    a.ref = std::move(v);
    return a;
  }
  static TraceArg of_list(std::vector<TraceArg> v) {
    TraceArg a;
    a.kind = Kind::List;
    a.list = std::move(v);
    return a;
  }
  static TraceArg of_dict(std::vector<std::string> k, std::vector<TraceArg> v) {
    TraceArg a;
    a.kind = Kind::Dict;
    a.keys = std::move(k);
    a.list = std::move(v);
    return a;
  }
  // Both record, as Refs in `list`, the ExprRVs whose variables `outputs` / `e` use.
  static TraceArg of_index_map(std::vector<ir::Var> params, std::vector<ir::PrimExpr> outputs);
  static TraceArg of_expr(ir::PrimExpr e);

  bool is_none() const { return kind == Kind::None; }
  // Ints and bools read as integers (JSON stores TVM's bool attributes as 1/0).
  int64_t as_int() const { return kind == Kind::Bool ? b : i; }
  bool as_bool() const { return kind == Kind::Bool ? b : i != 0; }
  // `lambda i, j: (i // 16, j, i % 16)` for an IndexMap.
  std::string lambda_text() const;
  // Whether the value depends on ExprRVs through an expression (an Expr, or an IndexMap
  // whose outputs use one).
  bool uses_expr_rvs() const { return (kind == Kind::Expr || kind == Kind::IndexMap) && !list.empty(); }
};

// An Expr or IndexMap argument with each ExprRV it uses replaced by another: `map_rvs` by
// the RV `to` gives (a trace replayed on another schedule), `rename_rvs` by a plain variable
// named `name` gives (the trace's text and JSON name them v0, v1, ...).
TraceArg map_rvs(const TraceArg& a, const std::function<RV(const RV&)>& to);
TraceArg rename_rvs(const TraceArg& a, const std::function<std::string(const RV&)>& name);

// How a script passes a parameter; the bindings convert by type, the trace prints by type.
enum class ParamType {
  Block,        // a BlockRV, or a block name (looked up with get_block, which is traced)
  Loop,         // a LoopRV
  BlockOrLoop,  // either
  Loops,        // *loops: variadic LoopRVs, printed positionally
  Factors,      // split factors: None, int, ExprRV or an integer expression of ExprRVs each
  Target,       // blockize: a LoopRV or a list of BlockRVs
  Blocks,       // None or a list of BlockRVs (cache_read's consumer_blocks)
  Int,
  Bool,
  Str,
  IntList,
  FloatList,
  AnnValue,      // int, bool, float, str, ExprRV or an expression of ExprRVs
  ReadIndex,     // a read buffer of the block: index, name or Buffer
  WriteIndex,    // a written buffer of the block: index, name or Buffer
  LayoutBuffer,  // ("read"|"write", index), write index, name or Buffer: two attributes
  IndexMap,      // a function of the buffer's indices, or its lambda text
  PadValue,      // None, a constant, an expression or a function of the new indices
  Decision,      // a sampling decision (None: sample)
};

enum class Slot { Input, Attr, Decision, Unrecorded };

struct ParamSpec {
  std::string name;
  ParamType type;
  Slot slot = Slot::Input;
  std::string default_text;  // Python default ("True", "None", "-1"); empty: required
  bool keyword_only = false;
  bool positional_only = false;  // printed without its name (fuse's loops, get_child_blocks)
  int slot_index = -1;           // position in inputs or attrs (set when the kind is registered)
};

enum class OutputForm { None, Single, List };

class Schedule;

// One primitive call being applied: the apply function reads inputs, attributes and the
// decision, may normalize them (get_block fills in the function worked on; sampling records
// the decision taken) and fills the outputs.
struct InstructionCall {
  std::vector<TraceArg> inputs;
  std::vector<TraceArg> attrs;
  TraceArg decision;
  std::vector<RV> outputs;
};

struct InstructionKind {
  std::string name;    // "Split", as TVM spells it
  std::string method;  // "split"
  std::vector<ParamSpec> params;
  OutputForm outputs = OutputForm::None;
  bool is_pure = false;      // a query: a trace may drop it when its outputs are unused
  bool is_postproc = false;  // EnterPostproc: what follows belongs to postprocessing
  std::function<void(Schedule&, InstructionCall&)> apply;
  std::string doc;                   // one-line description shown by help()
  std::string help;                  // what the primitive checks, and an example
  std::vector<std::string> aliases;  // other TVM names accepted in JSON (GetSBlock)

  // The primitive as TVM's error reports name it: "compute-at", "transform_layout".
  std::string report_name() const;
  // The script signature: "loop, factors, preserve_unit_iters=True, ...".
  std::string signature() const;
  // The parameter filling `slot` at `index` (variadic inputs and the two attributes of a
  // layout buffer included); null when none does.
  const ParamSpec* param_at(Slot slot, size_t index) const;
  // Numbers the parameters' slots in order; called once by the registry.
  void assign_slots();
  // Looks a kind up by TVM's name or an alias; null when unknown.
  static const InstructionKind* find(const std::string& name);
  static const InstructionKind* find_method(const std::string& method);
  static const std::vector<const InstructionKind*>& all();
};

// A recorded call. Decisions live in the trace, keyed by instruction.
struct InstructionNode {
  const InstructionKind* kind = nullptr;
  std::vector<TraceArg> inputs;
  std::vector<TraceArg> attrs;
  std::vector<RV> outputs;
};
using Instruction = std::shared_ptr<const InstructionNode>;

// The registry is filled once from each primitive file's register function (at the bottom of
// the file), called explicitly: static initializers in a static library would be dropped.
using KindList = std::vector<std::unique_ptr<InstructionKind>>;
#define TSCH_SCHEDULE_KIND_FILES(X) \
  X(get_block)                      \
  X(split)                          \
  X(fuse)                           \
  X(reorder)                        \
  X(loop_kind)                      \
  X(compute_at)                     \
  X(compute_inline)                 \
  X(decompose_reduction)            \
  X(rfactor)                        \
  X(blockize)                       \
  X(cache)                          \
  X(annotate)                       \
  X(storage_align)                  \
  X(transform_layout)               \
  X(sampling)                       \
  X(postproc)                       \
  X(set_dtype)                      \
  X(merge)                          \
  X(reindex)                        \
  X(tensorize)                      \
  X(rolling_buffer)                 \
  X(decompose_padding)              \
  X(pad_einsum)                     \
  X(fuse_reduction_epilogue)        \
  X(read_write_at)                  \
  X(cache_inplace)                  \
  X(cache_index)                    \
  X(reindex_cache)
#define TSCH_DECLARE_REGISTER(file) void register_##file##_kinds(KindList& kinds);
TSCH_SCHEDULE_KIND_FILES(TSCH_DECLARE_REGISTER)
#undef TSCH_DECLARE_REGISTER

}  // namespace tsch::schedule
