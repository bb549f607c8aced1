#include "schedule/trace.h"

#include <fmt/format.h>

#include <unordered_map>
#include <unordered_set>

#include "ir/functor.h"
#include "ir/op.h"
#include "ir/printer.h"
#include "schedule/schedule.h"
#include "support/error.h"

namespace tsch::schedule {

namespace {

// TVM prints floats in traces with 17 significant digits (std::ostream precision 17).
std::string float_text(double v) { return fmt::format("{:.17g}", v); }

using Names = std::unordered_map<const RVNode*, std::string>;

std::string rv_name(const RV& rv, const Names& names) {
  if (!rv) return "None";
  auto it = names.find(rv.get());
  TSCH_INTERNAL_ASSERT(it != names.end()) << "the trace uses a handle it never created";
  return it->second;
}

std::string value_text(const TraceArg& a, const Names& names) {
  switch (a.kind) {
    case TraceArg::Kind::None:
      return "None";
    case TraceArg::Kind::Int:
      return std::to_string(a.i);
    case TraceArg::Kind::Float:
      return float_text(a.f);
    case TraceArg::Kind::Bool:
      return a.b ? "True" : "False";
    case TraceArg::Kind::Str:
      return "\"" + a.s + "\"";
    case TraceArg::Kind::Ref:
      return rv_name(a.ref, names);
    case TraceArg::Kind::List: {
      std::string s = "[";
      for (size_t i = 0; i < a.list.size(); ++i) s += (i ? ", " : "") + value_text(a.list[i], names);
      return s + "]";
    }
    case TraceArg::Kind::IndexMap:
      return rename_rvs(a, [&](const RV& rv) { return rv_name(rv, names); }).lambda_text();
    case TraceArg::Kind::Dict: {
      std::string s = "{";
      for (size_t i = 0; i < a.list.size(); ++i)
        s += (i ? ", " : "") + ("\"" + a.keys[i] + "\": ") + value_text(a.list[i], names);
      return s + "}";
    }
    case TraceArg::Kind::Expr:
      return ir::script(rename_rvs(a, [&](const RV& rv) { return rv_name(rv, names); }).expr);
  }
  return "None";
}

// TVM's PythonAPICall: `outputs = sch.method(name=value, ...)`.
std::string python_line(const InstructionNode& inst, const TraceArg& decision, Names& names, int& counter,
                        bool anonymous = false) {
  const InstructionKind& kind = *inst.kind;
  std::vector<std::pair<std::string, std::string>> args;  // (keyword or "", text)
  for (const ParamSpec& p : kind.params) {
    const std::vector<TraceArg>& slot = p.slot == Slot::Input ? inst.inputs : inst.attrs;
    size_t at = static_cast<size_t>(p.slot_index);
    switch (p.type) {
      case ParamType::Loops:
        for (size_t i = at; i < inst.inputs.size(); ++i) args.emplace_back("", value_text(inst.inputs[i], names));
        continue;
      case ParamType::Factors: {
        TraceArg list = TraceArg::of_list({inst.inputs.begin() + static_cast<long>(at), inst.inputs.end()});
        args.emplace_back(p.name, value_text(list, names));
        continue;
      }
      case ParamType::Decision:
        if (!decision.is_none()) args.emplace_back(p.name, value_text(decision, names));
        continue;
      case ParamType::Blocks:
        if (at < slot.size() && slot[at].kind == TraceArg::Kind::List && !slot[at].list.empty()) {
          args.emplace_back(p.name, value_text(slot[at], names));
        }
        continue;
      case ParamType::LayoutBuffer:
        args.emplace_back(p.name, fmt::format("(\"{}\", {})", inst.attrs[at + 1].as_int() == 0 ? "read" : "write",
                                              inst.attrs[at].as_int()));
        continue;
      case ParamType::Bool:
        args.emplace_back(p.name, slot[at].as_bool() ? "True" : "False");
        continue;
      default:
        break;
    }
    if (p.slot == Slot::Unrecorded) continue;
    args.emplace_back(p.positional_only ? "" : p.name, value_text(slot[at], names));
  }
  std::string lhs;
  for (size_t i = 0; i < inst.outputs.size(); ++i) {
    const RV& rv = inst.outputs[i];
    std::string name = !rv || anonymous ? "_"
                                        : std::string(1, rv->kind == RVNode::Kind::Block  ? 'b'
                                                         : rv->kind == RVNode::Kind::Loop ? 'l'
                                                                                          : 'v') +
                                              std::to_string(counter);
    ++counter;
    if (rv) names[rv.get()] = name;
    lhs += (i ? ", " : "") + name;
  }
  if (kind.outputs == OutputForm::List && inst.outputs.size() == 1) lhs += ",";
  std::string out = lhs.empty() ? "" : lhs + " = ";
  out += "sch." + kind.method + "(";
  for (size_t i = 0; i < args.size(); ++i) {
    out += (i ? ", " : "") + (args[i].first.empty() ? args[i].second : args[i].first + "=" + args[i].second);
  }
  return out + ")";
}

void collect_refs(const TraceArg& a, std::unordered_set<const RVNode*>& used) {
  if (a.kind == TraceArg::Kind::Ref && a.ref) used.insert(a.ref.get());
  for (const TraceArg& x : a.list) collect_refs(x, used);
}

}  // namespace

TraceArg Trace::get_decision(const Instruction& inst) const {
  auto it = decisions_.find(inst.get());
  return it == decisions_.end() ? TraceArg::none() : it->second;
}

void Trace::append(Instruction inst, TraceArg decision) {
  if (!decision.is_none()) decisions_[inst.get()] = std::move(decision);
  insts_.push_back(std::move(inst));
}

void Trace::truncate(size_t size) {
  while (insts_.size() > size) {
    decisions_.erase(insts_.back().get());
    insts_.pop_back();
  }
}

size_t Trace::valid_prefix(bool remove_postproc) const {
  if (!remove_postproc) return insts_.size();
  size_t n = 0;
  while (n < insts_.size() && !insts_[n]->kind->is_postproc) ++n;
  return n;
}

void Trace::apply_to_schedule(Schedule& sch, bool remove_postproc, const DecisionProvider& provider) const {
  std::unordered_map<const RVNode*, RV> mapped;
  auto new_rv = [&](const RV& rv) {
    auto it = mapped.find(rv.get());
    TSCH_USER_ASSERT(it != mapped.end(), ValueError) << "apply_to_schedule: the trace uses a handle it never created";
    return it->second;
  };
  std::function<TraceArg(const TraceArg&)> translate = [&](const TraceArg& a) -> TraceArg {
    if (a.kind == TraceArg::Kind::Ref) return TraceArg::of_ref(new_rv(a.ref));
    // An expression of ExprRVs is recomputed from the new schedule's ExprRVs (TVM's
    // Substitute in TranslateInputRVs).
    if (a.uses_expr_rvs()) return map_rvs(a, new_rv);
    if (a.kind != TraceArg::Kind::List) return a;
    std::vector<TraceArg> items;
    for (const TraceArg& x : a.list) items.push_back(translate(x));
    return TraceArg::of_list(std::move(items));
  };
  for (size_t n = valid_prefix(remove_postproc), k = 0; k < n; ++k) {
    const Instruction& inst = insts_[k];
    std::vector<TraceArg> inputs, attrs;
    for (const TraceArg& a : inst->inputs) inputs.push_back(translate(a));
    // transform_layout's index map is an attribute here (an input in TVM): it may use ExprRVs.
    for (const TraceArg& a : inst->attrs) attrs.push_back(a.uses_expr_rvs() ? translate(a) : a);
    TraceArg decision = get_decision(inst);
    if (provider) decision = provider(inst, decision);
    std::vector<RV> outs = sch.apply(*inst->kind, std::move(inputs), std::move(attrs), decision);
    TSCH_INTERNAL_ASSERT(outs.size() == inst->outputs.size())
        << inst->kind->name << " gave " << outs.size() << " outputs";
    for (size_t i = 0; i < outs.size(); ++i) {
      if (inst->outputs[i]) mapped[inst->outputs[i].get()] = outs[i];
    }
  }
}

Trace Trace::with_decision(const Instruction& inst, TraceArg decision, bool remove_postproc) const {
  Trace out;
  for (size_t n = valid_prefix(remove_postproc), k = 0; k < n; ++k) out.append(insts_[k], get_decision(insts_[k]));
  out.decisions_[inst.get()] = std::move(decision);
  return out;
}

Trace Trace::simplified(bool remove_postproc) const {
  std::unordered_set<const RVNode*> used;
  std::vector<size_t> kept;
  for (size_t k = valid_prefix(remove_postproc); k-- > 0;) {
    const InstructionNode& inst = *insts_[k];
    bool dead = inst.kind->is_pure;
    for (const RV& rv : inst.outputs) dead = dead && !(rv && used.count(rv.get()));
    if (dead) continue;
    kept.push_back(k);
    for (const TraceArg& a : inst.inputs) collect_refs(a, used);
  }
  Trace out;
  for (auto it = kept.rbegin(); it != kept.rend(); ++it) out.append(insts_[*it], get_decision(insts_[*it]));
  return out;
}

std::vector<std::string> Trace::as_python(bool remove_postproc) const {
  std::vector<std::string> lines;
  Names names;
  int counter = 0;
  for (size_t n = valid_prefix(remove_postproc), k = 0; k < n; ++k) {
    lines.push_back(python_line(*insts_[k], get_decision(insts_[k]), names, counter));
  }
  return lines;
}

std::string instruction_python(const InstructionNode& inst) {
  Names names;
  std::function<void(const TraceArg&)> unnamed = [&](const TraceArg& a) {
    if (a.kind == TraceArg::Kind::Ref && a.ref) names[a.ref.get()] = "_";
    for (const TraceArg& x : a.list) unnamed(x);
  };
  for (const TraceArg& a : inst.inputs) unnamed(a);
  int counter = 0;
  return python_line(inst, TraceArg::none(), names, counter, /*anonymous=*/true);
}

std::string Trace::str() const {
  std::string out = "# from tvm import tir\ndef apply_trace(sch: tir.Schedule) -> None:\n";
  std::vector<std::string> lines = as_python();
  if (lines.empty()) return out + "  pass";
  for (size_t i = 0; i < lines.size(); ++i) out += (i ? "\n  " : "  ") + lines[i];
  return out;
}

}  // namespace tsch::schedule
