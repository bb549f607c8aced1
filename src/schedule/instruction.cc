#include "schedule/instruction.h"

#include <algorithm>
#include <unordered_map>

#include "ir/printer.h"
#include "support/error.h"

namespace tsch::schedule {

RV make_rv(RVNode::Kind kind, uint64_t sid, int64_t value) {
  auto rv = std::make_shared<RVNode>();
  rv->kind = kind;
  rv->sid = sid;
  rv->value = value;
  return rv;
}

TraceArg TraceArg::of_index_map(std::vector<ir::Var> params, std::vector<ir::PrimExpr> outputs) {
  TraceArg a;
  a.kind = Kind::IndexMap;
  a.map_params = std::move(params);
  a.map_outputs = std::move(outputs);
  return a;
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
      TSCH_INTERNAL_ASSERT(by_name.emplace(k->name, k.get()).second) << "instruction kind " << k->name << " registered twice";
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
