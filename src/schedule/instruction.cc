#include "schedule/instruction.h"

#include <algorithm>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

#include "ir/functor.h"
#include "ir/op.h"
#include "ir/printer.h"
#include "support/error.h"

namespace tsch::schedule {

namespace {

// ExprRV variables to their RVs: an expression a script built from ExprRVs holds only the
// variables, and a schedule must tell its own ExprRVs from another schedule's (or from a
// variable that is no ExprRV). Schedules may live on several threads (a tuner's).
struct ExprRVRegistry {
  std::mutex mutex;
  std::unordered_map<const ir::VarNode*, std::weak_ptr<RVNode>> rvs;
};
ExprRVRegistry& expr_rv_registry() {
  static ExprRVRegistry* r = new ExprRVRegistry();  // never destroyed: RVs may outlive statics
  return *r;
}

// The Refs of the ExprRVs `exprs` use, each once, in order of first use.
std::vector<TraceArg> expr_rv_refs(const std::vector<ir::PrimExpr>& exprs) {
  std::vector<TraceArg> refs;
  std::unordered_set<const ir::VarNode*> seen;
  for (const ir::PrimExpr& e : exprs) {
    ir::for_each_expr(e, [&](const ir::PrimExpr& x) {
      auto* v = ir::as<ir::VarNode>(x);
      if (!v || !seen.insert(v).second) return;
      if (RV rv = rv_of_var(v)) refs.push_back(TraceArg::of_ref(std::move(rv)));
    });
  }
  return refs;
}

}  // namespace

RVNode::~RVNode() {
  if (!var) return;
  ExprRVRegistry& r = expr_rv_registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.rvs.erase(var.get());
}

LoopSid RVNode::loop_sid() const {
  TSCH_INTERNAL_ASSERT(kind == Kind::Loop) << "a LoopRV was expected";
  return LoopSid(sid.value);
}

BlockSid RVNode::block_sid() const {
  TSCH_INTERNAL_ASSERT(kind == Kind::Block) << "a BlockRV was expected";
  return BlockSid(sid.value);
}

RV make_rv(RVNode::Kind kind, StmtSid sid, int64_t value, const std::string& name) {
  auto rv = std::make_shared<RVNode>();
  rv->kind = kind;
  rv->sid = sid;
  rv->value = value;
  if (kind == RVNode::Kind::Expr) {
    // TVM's ExprRV is an int32 tir.Var.
    rv->var = ir::make_var(name, ir::DataType::int32());
    ExprRVRegistry& r = expr_rv_registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    r.rvs[rv->var.get()] = rv;
  }
  return rv;
}

RV rv_of_var(const ir::VarNode* var) {
  ExprRVRegistry& r = expr_rv_registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.rvs.find(var);
  return it == r.rvs.end() ? RV() : it->second.lock();
}

RV expr_rv_of(const ir::Var& var) {
  ExprRVRegistry& r = expr_rv_registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.rvs.find(var.get());
  if (it != r.rvs.end()) {
    if (RV rv = it->second.lock()) return rv;
  }
  auto rv = std::make_shared<RVNode>();
  rv->kind = RVNode::Kind::Expr;
  rv->var = var;
  r.rvs[var.get()] = rv;
  return rv;
}

TraceArg TraceArg::of_index_map(std::vector<ir::Var> params, std::vector<ir::PrimExpr> outputs) {
  TraceArg a;
  a.kind = Kind::IndexMap;
  a.list = expr_rv_refs(outputs);
  a.map_params = std::move(params);
  a.map_outputs = std::move(outputs);
  return a;
}

TraceArg TraceArg::of_expr(ir::PrimExpr e) {
  TraceArg a;
  a.kind = Kind::Expr;
  a.list = expr_rv_refs({e});
  a.expr = std::move(e);
  return a;
}

namespace {

TraceArg with_vars(const TraceArg& a, const std::unordered_map<const ir::VarNode*, ir::PrimExpr>& vmap) {
  if (a.kind == TraceArg::Kind::Expr) return TraceArg::of_expr(ir::substitute(a.expr, vmap));
  TSCH_INTERNAL_ASSERT(a.kind == TraceArg::Kind::IndexMap) << "not an expression of ExprRVs";
  std::vector<ir::PrimExpr> outputs;
  for (const ir::PrimExpr& o : a.map_outputs) outputs.push_back(ir::substitute(o, vmap));
  return TraceArg::of_index_map(a.map_params, std::move(outputs));
}

}  // namespace

TraceArg map_rvs(const TraceArg& a, const std::function<RV(const RV&)>& to) {
  std::unordered_map<const ir::VarNode*, ir::PrimExpr> vmap;
  for (const TraceArg& r : a.list) {
    RV rv = to(r.ref);
    TSCH_INTERNAL_ASSERT(rv && rv->var) << "an ExprRV maps to no ExprRV";
    vmap[r.ref->var.get()] = rv->var;
  }
  return with_vars(a, vmap);
}

TraceArg rename_rvs(const TraceArg& a, const std::function<std::string(const RV&)>& name) {
  std::unordered_map<const ir::VarNode*, ir::PrimExpr> vmap;
  for (const TraceArg& r : a.list) vmap[r.ref->var.get()] = ir::make_var(name(r.ref), r.ref->var->dtype);
  return with_vars(a, vmap);
}

std::string TraceArg::lambda_text() const {
  std::string s = "lambda ";
  for (size_t i = 0; i < map_params.size(); ++i) s += (i ? ", " : "") + map_params[i]->name;
  s += ": (";
  for (size_t i = 0; i < map_outputs.size(); ++i) s += (i ? ", " : "") + ir::script(map_outputs[i]);
  return s + (map_outputs.size() == 1 ? ",)" : ")");
}

std::string InstructionKind::report_name() const {
  // TVM's TVM_TIR_SCHEDULE_END names: dashes, but for these few.
  for (const char* kept : {"transform_layout", "transform_block_layout", "loop_partition", "reorder_block_iter_var"}) {
    if (method == kept) return method;
  }
  std::string name = method;
  std::replace(name.begin(), name.end(), '_', '-');
  return name;
}

std::string InstructionKind::signature() const {
  std::string s;
  bool star = false;
  for (const ParamSpec& p : params) {
    if (p.slot == Slot::Unrecorded && p.name.empty()) continue;
    if (p.keyword_only && !star) {
      s += (s.empty() ? "" : ", ") + std::string("*");
      star = true;
    }
    std::string item = p.type == ParamType::Loops ? "*" + p.name : p.name;
    if (p.type == ParamType::Loops) star = true;
    if (!p.default_text.empty()) item += "=" + p.default_text;
    s += (s.empty() ? "" : ", ") + item;
  }
  return s;
}

const ParamSpec* InstructionKind::param_at(Slot slot, size_t index) const {
  for (const ParamSpec& p : params) {
    if (p.slot != slot) continue;
    size_t at = static_cast<size_t>(p.slot_index);
    bool rest = p.type == ParamType::Loops || p.type == ParamType::Factors;
    size_t width = p.type == ParamType::LayoutBuffer ? 2 : 1;
    if (index == at || (rest && index > at) || (index > at && index < at + width)) return &p;
  }
  return nullptr;
}

void InstructionKind::assign_slots() {
  int inputs = 0, attrs = 0;
  for (ParamSpec& p : params) {
    if (p.slot == Slot::Input) p.slot_index = inputs++;
    if (p.slot == Slot::Attr) {
      p.slot_index = attrs;
      attrs += p.type == ParamType::LayoutBuffer ? 2 : 1;
    }
  }
}

namespace {

struct Registry {
  KindList kinds;
  std::vector<const InstructionKind*> all;
  std::unordered_map<std::string, const InstructionKind*> by_name, by_method;

  Registry() {
#define TSCH_CALL_REGISTER(file) register_##file##_kinds(kinds);
    TSCH_SCHEDULE_KIND_FILES(TSCH_CALL_REGISTER)
#undef TSCH_CALL_REGISTER
    for (auto& k : kinds) {
      k->assign_slots();
      all.push_back(k.get());
      TSCH_INTERNAL_ASSERT(by_name.emplace(k->name, k.get()).second)
          << "instruction kind " << k->name << " registered twice";
      for (const std::string& alias : k->aliases) by_name.emplace(alias, k.get());
      by_method.emplace(k->method, k.get());
    }
  }
};

const Registry& registry() {
  static const Registry r;
  return r;
}

}  // namespace

const InstructionKind* InstructionKind::find(const std::string& name) {
  auto it = registry().by_name.find(name);
  return it == registry().by_name.end() ? nullptr : it->second;
}

const InstructionKind* InstructionKind::find_method(const std::string& method) {
  auto it = registry().by_method.find(method);
  return it == registry().by_method.end() ? nullptr : it->second;
}

const std::vector<const InstructionKind*>& InstructionKind::all() { return registry().all; }

}  // namespace tsch::schedule
