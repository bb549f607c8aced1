// The trace: every successful primitive call as an instruction, printed as the Python that
// replays it (TVM's format: `def apply_trace(sch: tir.Schedule) -> None:` with b0/l1/v2
// names and keyword arguments).
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ir/expr.h"

namespace tsch::schedule {

// A random variable: a handle to a block or loop (by sid) or a sampled integer.
struct RVNode {
  enum class Kind { Block, Loop, Expr };
  Kind kind = Kind::Block;
  uint64_t sid = 0;
  int64_t value = 0;
};
using RV = std::shared_ptr<RVNode>;

struct TraceArg {
  enum class Kind { None, Int, Float, Bool, Str, Ref, List, Tuple, IndexMap };
  Kind kind = Kind::None;
  int64_t i = 0;
  double f = 0;
  bool b = false;
  std::string s;
  RV ref;
  std::vector<TraceArg> list;  // List and Tuple
  // IndexMap: `lambda params: (outputs)`.
  std::vector<ir::Var> map_params;
  std::vector<ir::PrimExpr> map_outputs;

  static TraceArg none() { return TraceArg{}; }
  static TraceArg of_int(int64_t v) { TraceArg a; a.kind = Kind::Int; a.i = v; return a; }
  static TraceArg of_bool(bool v) { TraceArg a; a.kind = Kind::Bool; a.b = v; return a; }
  static TraceArg of_str(std::string v) { TraceArg a; a.kind = Kind::Str; a.s = std::move(v); return a; }
  static TraceArg of_ref(RV v) { TraceArg a; a.kind = Kind::Ref; a.ref = std::move(v); return a; }
  static TraceArg of_list(std::vector<TraceArg> v) { TraceArg a; a.kind = Kind::List; a.list = std::move(v); return a; }
  static TraceArg of_tuple(std::vector<TraceArg> v) { TraceArg a; a.kind = Kind::Tuple; a.list = std::move(v); return a; }
  static TraceArg of_index_map(std::vector<ir::Var> params, std::vector<ir::PrimExpr> outputs) {
    TraceArg a;
    a.kind = Kind::IndexMap;
    a.map_params = std::move(params);
    a.map_outputs = std::move(outputs);
    return a;
  }
  // `lambda i, j: (i // 16, j, i % 16)` for an IndexMap.
  std::string lambda_text() const;
};

struct Instruction {
  std::string kind;    // "Split" (JSON kind name)
  std::string method;  // "split"
  std::vector<TraceArg> positional;  // variadic arguments (reorder, fuse)
  std::vector<std::pair<std::string, TraceArg>> keywords;
  std::vector<RV> outputs;
  bool list_output = false;  // outputs come as a list (`l1, = ...` for one element)
};

struct Trace {
  std::vector<Instruction> insts;

  // The replayable Python text.
  std::string str() const;
};

}  // namespace tsch::schedule
