// The trace in TVM's JSON form:
//   [[[kind, inputs, attrs, outputs], ...], [[instruction index, decision], ...]]
// Inputs name handles ("b0", "l1", "v2"), write None as "None" and strings with their quotes
// ("\"shared\""); attributes are plain values (bools as 1/0); outputs are handle names.
// Index maps (transform_layout) are strings holding TVM's JSON object graph of the IndexMap.
#include <unordered_map>

#include "ir/functor.h"
#include "schedule/index_map_json.h"
#include "schedule/schedule.h"
#include "schedule/trace.h"
#include "support/error.h"

namespace tsch::schedule {

using nlohmann::json;

namespace {

char prefix_of(const RV& rv) {
  return rv->kind == RVNode::Kind::Block ? 'b' : rv->kind == RVNode::Kind::Loop ? 'l' : 'v';
}

using Names = std::unordered_map<const RVNode*, std::string>;

// An index map or expression using ExprRVs, their variables named by the handles (TVM's
// RenameVariables before SaveJSON), so that reading binds them to the replayed handles.
TraceArg named(const TraceArg& a, const Names* names) {
  if (!a.uses_expr_rvs()) return a;
  TSCH_INTERNAL_ASSERT(names) << "an expression of ExprRVs where no handle is named";
  return rename_rvs(a, [names](const RV& rv) {
    auto it = names->find(rv.get());
    TSCH_INTERNAL_ASSERT(it != names->end()) << "the trace uses a handle it never created";
    return it->second;
  });
}

json input_json(const TraceArg& a, const Names& names) {
  switch (a.kind) {
    case TraceArg::Kind::None:
      return "None";
    case TraceArg::Kind::Int:
      return a.i;
    case TraceArg::Kind::Float:
      return a.f;
    case TraceArg::Kind::Bool:
      return a.b ? 1 : 0;
    case TraceArg::Kind::Str:
      return "\"" + a.s + "\"";
    case TraceArg::Kind::Ref: {
      auto it = names.find(a.ref.get());
      TSCH_INTERNAL_ASSERT(it != names.end()) << "the trace uses a handle it never created";
      return it->second;
    }
    case TraceArg::Kind::List: {
      json out = json::array();
      for (const TraceArg& x : a.list) out.push_back(input_json(x, names));
      return out;
    }
    case TraceArg::Kind::IndexMap:
      return index_map_to_json_graph(named(a, &names));
    case TraceArg::Kind::Dict: {
      json out = json::object();
      for (size_t i = 0; i < a.list.size(); ++i) out[a.keys[i]] = input_json(a.list[i], names);
      return out;
    }
    case TraceArg::Kind::Expr:
      return expr_to_json_graph(named(a, &names).expr);
  }
  return nullptr;
}

json attr_json(const TraceArg& a, const Names* names = nullptr) {
  switch (a.kind) {
    case TraceArg::Kind::None:
      return nullptr;
    case TraceArg::Kind::Int:
      return a.i;
    case TraceArg::Kind::Float:
      return a.f;
    case TraceArg::Kind::Bool:
      return a.b ? 1 : 0;
    case TraceArg::Kind::Str:
      return a.s;
    case TraceArg::Kind::Ref:
      TSCH_INTERNAL_ASSERT(false) << "a handle in an attribute";
      return nullptr;
    case TraceArg::Kind::List: {
      json out = json::array();
      for (const TraceArg& x : a.list) out.push_back(attr_json(x));
      return out;
    }
    case TraceArg::Kind::IndexMap:
      return index_map_to_json_graph(named(a, names));
    case TraceArg::Kind::Dict: {
      json out = json::object();
      for (size_t i = 0; i < a.list.size(); ++i) out[a.keys[i]] = attr_json(a.list[i]);
      return out;
    }
    case TraceArg::Kind::Expr:
      return expr_to_json_graph(named(a, names).expr);
  }
  return nullptr;
}

[[noreturn]] void bad_json(const std::string& why) {
  throw UserError(UserErrorKind::ValueError, "not a trace in TVM's JSON form: " + why);
}

struct Reader {
  const Trace::IndexMapParser& parse_index_map;
  std::unordered_map<std::string, RV> handles;

  // A JSON object (an annotation's dict value), each value read by `read`.
  template <typename F>
  static TraceArg dict(const json& v, F&& read) {
    std::vector<std::string> keys;
    std::vector<TraceArg> values;
    for (auto it = v.begin(); it != v.end(); ++it) {
      keys.push_back(it.key());
      values.push_back(read(it.value()));
    }
    return TraceArg::of_dict(std::move(keys), std::move(values));
  }

  // An index map: TVM's JSON graph text, or (as tsch wrote traces before) lambda text; or an
  // expression's graph text. Variables named as ExprRV handles are those handles.
  TraceArg lambda(const std::string& text) {
    if (!text.empty() && text.front() == '{') return bind_handles(index_map_from_json_graph(text));
    if (!parse_index_map) bad_json("an index map cannot be read here");
    return parse_index_map(text);
  }

  TraceArg bind_handles(const TraceArg& a) {
    std::unordered_map<const ir::VarNode*, ir::PrimExpr> vmap;
    auto bind = [&](const ir::PrimExpr& e) {
      ir::for_each_expr(e, [&](const ir::PrimExpr& x) {
        auto* v = ir::as<ir::VarNode>(x);
        if (!v) return;
        auto it = handles.find(v->name);
        if (it != handles.end() && it->second && it->second->kind == RVNode::Kind::Expr) vmap[v] = it->second->var;
      });
    };
    if (a.kind == TraceArg::Kind::Expr) {
      bind(a.expr);
      return TraceArg::of_expr(ir::substitute(a.expr, vmap));
    }
    std::vector<ir::PrimExpr> outputs;
    for (const ir::PrimExpr& o : a.map_outputs) bind(o);
    for (const ir::Var& p : a.map_params) vmap.erase(p.get());  // an index named like a handle stays the index
    for (const ir::PrimExpr& o : a.map_outputs) outputs.push_back(ir::substitute(o, vmap));
    return TraceArg::of_index_map(a.map_params, std::move(outputs));
  }

  TraceArg number(const json& v) {
    if (v.is_boolean()) return TraceArg::of_int(v.get<bool>());
    if (v.is_number_integer()) return TraceArg::of_int(v.get<int64_t>());
    return TraceArg::of_float(v.get<double>());
  }

  TraceArg input(const json& v, const ParamSpec* p) {
    if (v.is_number() || v.is_boolean()) return number(v);
    if (v.is_null()) return TraceArg::none();
    if (v.is_array()) {
      std::vector<TraceArg> items;
      for (const json& x : v) items.push_back(input(x, p));
      return TraceArg::of_list(std::move(items));
    }
    if (v.is_object()) return dict(v, [&](const json& x) { return input(x, p); });
    if (!v.is_string()) bad_json("unexpected input " + v.dump());
    const std::string& s = v.get_ref<const std::string&>();
    if (s == "None") return TraceArg::none();
    if (s.size() >= 2 && s.front() == '"' && s.back() == '"') return TraceArg::of_str(s.substr(1, s.size() - 2));
    if ((p && p->type == ParamType::IndexMap) || (!s.empty() && s.front() == '{')) return lambda(s);
    auto it = handles.find(s);
    if (it == handles.end()) bad_json("the handle " + s + " is used before an instruction defines it");
    return TraceArg::of_ref(it->second);
  }

  TraceArg attr(const json& v, const ParamSpec* p) {
    if (v.is_null()) return TraceArg::none();
    if (v.is_number() || v.is_boolean()) {
      TraceArg n = number(v);
      return p && p->type == ParamType::Bool ? TraceArg::of_bool(n.as_int() != 0) : n;
    }
    if (v.is_array()) {
      std::vector<TraceArg> items;
      for (const json& x : v) items.push_back(attr(x, nullptr));
      return TraceArg::of_list(std::move(items));
    }
    if (v.is_object()) return dict(v, [&](const json& x) { return attr(x, nullptr); });
    if (!v.is_string()) bad_json("unexpected attribute " + v.dump());
    const std::string& s = v.get_ref<const std::string&>();
    if (p && (p->type == ParamType::IndexMap || p->type == ParamType::PadValue)) return lambda(s);
    return TraceArg::of_str(s);
  }

  TraceArg decision(const json& v) {
    if (v.is_array()) {
      std::vector<TraceArg> items;
      for (const json& x : v) items.push_back(decision(x));
      return TraceArg::of_list(std::move(items));
    }
    if (!v.is_number_integer()) bad_json("a decision is an integer or a list of integers, got " + v.dump());
    return TraceArg::of_int(v.get<int64_t>());
  }
};

}  // namespace

json Trace::as_json(bool remove_postproc) const {
  Names names;
  json insts = json::array(), decisions = json::array();
  int counter = 0;
  for (size_t n = valid_prefix(remove_postproc), k = 0; k < n; ++k) {
    const InstructionNode& inst = *insts_[k];
    json inputs = json::array(), attrs = json::array(), outputs = json::array();
    for (const TraceArg& a : inst.inputs) inputs.push_back(input_json(a, names));
    for (const TraceArg& a : inst.attrs) attrs.push_back(attr_json(a, &names));
    for (const RV& rv : inst.outputs) {
      std::string name = rv ? prefix_of(rv) + std::to_string(counter) : "_";
      ++counter;
      if (rv) names[rv.get()] = name;
      outputs.push_back(name);
    }
    insts.push_back(json::array({inst.kind->name, inputs, attrs, outputs}));
    TraceArg d = get_decision(insts_[k]);
    if (!d.is_none()) decisions.push_back(json::array({static_cast<int64_t>(k), attr_json(d)}));
  }
  return json::array({insts, decisions});
}

void Trace::apply_json_to_schedule(const json& doc, Schedule& sch, const IndexMapParser& parse_index_map) {
  if (!doc.is_array() || doc.size() != 2 || !doc[0].is_array() || !doc[1].is_array()) {
    bad_json("expected [instructions, decisions]");
  }
  Reader reader{parse_index_map, {}};
  std::vector<TraceArg> decisions(doc[0].size());
  for (const json& d : doc[1]) {
    if (!d.is_array() || d.size() != 2 || !d[0].is_number_integer())
      bad_json("each decision is [instruction index, decision]");
    int64_t at = d[0].get<int64_t>();
    if (at < 0 || at >= static_cast<int64_t>(decisions.size()))
      bad_json("a decision for instruction " + std::to_string(at) + ", which does not exist");
    decisions[static_cast<size_t>(at)] = reader.decision(d[1]);
  }
  size_t k = 0;
  for (const json& item : doc[0]) {
    if (!item.is_array() || item.size() != 4 || !item[0].is_string() || !item[1].is_array() || !item[2].is_array() ||
        !item[3].is_array()) {
      bad_json("each instruction is [kind, inputs, attrs, outputs], got " + item.dump());
    }
    const InstructionKind* kind = InstructionKind::find(item[0].get<std::string>());
    if (!kind) bad_json("unknown instruction kind " + item[0].get<std::string>());
    std::vector<TraceArg> inputs, attrs;
    for (size_t i = 0; i < item[1].size(); ++i)
      inputs.push_back(reader.input(item[1][i], kind->param_at(Slot::Input, i)));
    for (size_t i = 0; i < item[2].size(); ++i) attrs.push_back(reader.attr(item[2][i], kind->param_at(Slot::Attr, i)));
    std::vector<RV> outs = sch.apply(*kind, std::move(inputs), std::move(attrs), decisions[k++]);
    if (outs.size() != item[3].size())
      bad_json(kind->name + " names " + std::to_string(item[3].size()) + " outputs but gives " +
               std::to_string(outs.size()));
    for (size_t i = 0; i < outs.size(); ++i) {
      if (!item[3][i].is_string()) bad_json("outputs are handle names");
      reader.handles[item[3][i].get<std::string>()] = outs[i];
    }
  }
}

}  // namespace tsch::schedule
