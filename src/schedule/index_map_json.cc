#include "schedule/index_map_json.h"

#include <map>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "arith/scalable_expression.h"
#include "ir/json_graph.h"
#include "ir/op.h"
#include "ir/printer.h"
#include "support/error.h"

namespace tsch::schedule {

using namespace ir;
using nlohmann::json;
using nlohmann::ordered_json;

namespace {

// TVM's type keys of the binary expressions, by tsch's kind.
const std::vector<std::pair<ExprKind, const char*>>& binary_keys() {
  static const std::vector<std::pair<ExprKind, const char*>> keys = {{ExprKind::Add, "tir.Add"},
                                                                     {ExprKind::Sub, "tir.Sub"},
                                                                     {ExprKind::Mul, "tir.Mul"},
                                                                     {ExprKind::Div, "tir.Div"},
                                                                     {ExprKind::Mod, "tir.Mod"},
                                                                     {ExprKind::FloorDiv, "tir.FloorDiv"},
                                                                     {ExprKind::FloorMod, "tir.FloorMod"},
                                                                     {ExprKind::Min, "tir.Min"},
                                                                     {ExprKind::Max, "tir.Max"},
                                                                     {ExprKind::EQ, "tir.EQ"},
                                                                     {ExprKind::NE, "tir.NE"},
                                                                     {ExprKind::LT, "tir.LT"},
                                                                     {ExprKind::LE, "tir.LE"},
                                                                     {ExprKind::GT, "tir.GT"},
                                                                     {ExprKind::GE, "tir.GE"},
                                                                     {ExprKind::And, "tir.And"},
                                                                     {ExprKind::Or, "tir.Or"}};
  return keys;
}

// ---- writing: nodes in the order TVM's serializer appends them (children before parents),
// one node per object and per distinct None or string.
class GraphWriter : public JsonGraphWriter {
 public:
  int64_t expr(const PrimExpr& e) {
    auto it = objects_.find(e.get());
    if (it != objects_.end()) return it->second;
    ordered_json data;
    data["span"] = none();
    data["dtype"] = e->dtype.to_string();
    std::string type;
    if (auto* i = as<IntImmNode>(e)) {
      type = "ir.IntImm";
      data["value"] = i->value;
    } else if (auto* f = as<FloatImmNode>(e)) {
      type = "ir.FloatImm";
      data["value"] = f->value;
    } else if (auto* v = as<VarNode>(e)) {
      type = v->is_size_var ? "tir.SizeVar" : "tir.Var";
      data["name"] = string(v->name);
      ordered_json prim;
      prim["span"] = none();
      prim["dtype"] = e->dtype.to_string();
      data["type_annotation"] = object("ir.PrimType", prim);
    } else if (auto* c = as<CastNode>(e)) {
      type = "tir.Cast";
      data["value"] = expr(c->value);
    } else if (auto* n = as<NotNode>(e)) {
      type = "tir.Not";
      data["a"] = expr(n->a);
    } else if (auto* s = as<SelectNode>(e)) {
      type = "tir.Select";
      data["condition"] = expr(s->condition);
      data["true_value"] = expr(s->true_value);
      data["false_value"] = expr(s->false_value);
    } else if (arith::is_vscale_call(e)) {
      // A split factor such as `T.vscale() * 4`: the call of TVM's op tir.vscale, no arguments.
      type = "tir.Call";
      ordered_json op;
      op["name"] = string("tir.vscale");
      data["op"] = object("ir.Op", op);
      data["args"] = array({});
    } else {
      for (const auto& [kind, key] : binary_keys()) {
        if (e->kind != kind) continue;
        type = key;
        auto* b = static_cast<const BinaryNode<ExprKind::Add>*>(e.get());  // every BinaryNode has the same layout
        data["a"] = expr(b->a);
        data["b"] = expr(b->b);
      }
      TSCH_USER_ASSERT(!type.empty(), NotImplementedError)
          << "not supported yet: " << ir::script(e) << " in an index map's JSON form";
    }
    return objects_[e.get()] = object(type, data);
  }

 private:
  std::unordered_map<const ExprNode*, int64_t> objects_;
};

// ---- reading

[[noreturn]] void bad_graph(const std::string& why) {
  throw UserError(UserErrorKind::ValueError, "not an IndexMap in TVM's JSON graph form: " + why);
}

class GraphReader : public JsonGraphReader {
 public:
  explicit GraphReader(const json& doc) : JsonGraphReader(doc, "an IndexMap") {}

  // The root: an IndexMap, or (an argument computed from ExprRVs) an expression.
  TraceArg index_map() {
    const json& node = at(root());
    if (type_of(node) != "tir.IndexMap") {
      if (type_of(node).rfind("tir.", 0) == 0 || type_of(node).rfind("ir.", 0) == 0)
        return TraceArg::of_expr(expr(root()));
      bad("the root is a " + type_of(node) + ", not a tir.IndexMap");
    }
    const json& data = fields(node);
    std::vector<Var> params;
    for (int64_t i : sequence(field(data, "initial_indices"))) {
      PrimExpr e = expr(i);
      auto* v = as<VarNode>(e);
      if (!v) bad_graph("an initial index is not a variable");
      params.push_back(std::static_pointer_cast<const VarNode>(e));
    }
    std::vector<PrimExpr> outputs;
    for (int64_t i : sequence(field(data, "final_indices"))) outputs.push_back(expr(i));
    return TraceArg::of_index_map(std::move(params), std::move(outputs));
  }

 private:
  static DataType dtype_of(const json& data) {
    if (!data.contains("dtype") || !data["dtype"].is_string()) bad_graph("missing field dtype");
    std::optional<DataType> t = DataType::parse(data["dtype"].get<std::string>());
    if (!t) bad_graph("unknown dtype " + data["dtype"].get<std::string>());
    return *t;
  }

  // The call T.vscale() as expr_to_json_graph writes it; other calls are not read.
  bool is_vscale_call(const json& data) const {
    if (!data.contains("op") || !data.contains("args")) return false;
    const json& op = at(field(data, "op"));
    if (type_of(op) != "ir.Op" || !fields(op).contains("name")) return false;
    return string_at(field(fields(op), "name")) == "tir.vscale" && sequence(field(data, "args")).empty();
  }

  PrimExpr expr(int64_t index) {
    auto it = exprs_.find(index);
    if (it != exprs_.end()) return it->second;
    if (++depth_ > 1000) bad_graph("nested too deeply");
    const json& node = at(index);
    std::string type = type_of(node);
    const json& data = fields(node);
    PrimExpr out;
    try {
      if (type == "ir.IntImm") {
        if (!data.contains("value") || !data["value"].is_number_integer()) bad_graph("an IntImm without a value");
        out = make_int(data["value"].get<int64_t>(), dtype_of(data));
      } else if (type == "ir.FloatImm") {
        if (!data.contains("value") || !data["value"].is_number()) bad_graph("a FloatImm without a value");
        out = make_float(data["value"].get<double>(), dtype_of(data));
      } else if (type == "tir.Var" || type == "tir.SizeVar") {
        // TVM 0.23 calls the field "name"; older graphs "name_hint".
        const char* key = data.contains("name") ? "name" : "name_hint";
        out = std::make_shared<VarNode>(string_at(field(data, key)), dtype_of(data), type == "tir.SizeVar");
      } else if (type == "tir.Cast") {
        out = cast(dtype_of(data), expr(field(data, "value")));
      } else if (type == "tir.Not") {
        out = logical_not(expr(field(data, "a")));
      } else if (type == "tir.Select") {
        out = select(expr(field(data, "condition")), expr(field(data, "true_value")), expr(field(data, "false_value")));
      } else if (type == "tir.Call" && is_vscale_call(data)) {
        out = call(dtype_of(data), "vscale", {});
      } else {
        for (const auto& [kind, key] : binary_keys()) {
          if (type == key) out = make_binary(kind, expr(field(data, "a")), expr(field(data, "b")));
        }
      }
    } catch (const IRError& e) {
      bad_graph(std::string("a ") + type + " node: " + e.what());
    }
    TSCH_USER_ASSERT(out, NotImplementedError)
        << "not supported yet: a " << type << " node in an index map's JSON form";
    --depth_;
    return exprs_[index] = out;
  }

  int depth_ = 0;
  std::unordered_map<int64_t, PrimExpr> exprs_;
};

}  // namespace

std::string index_map_to_json_graph(const TraceArg& map) {
  TSCH_INTERNAL_ASSERT(map.kind == TraceArg::Kind::IndexMap) << "not an index map";
  GraphWriter w;
  // Fields in TVM's order (initial_indices, final_indices, inverse_index_map), each node
  // created before the IndexMap that refers to it.
  std::vector<int64_t> initial, final_indices;
  for (const Var& p : map.map_params) initial.push_back(w.expr(p));
  int64_t initial_node = w.array(initial);
  for (const PrimExpr& e : map.map_outputs) final_indices.push_back(w.expr(e));
  int64_t final_node = w.array(final_indices);
  ordered_json data;
  data["initial_indices"] = initial_node;
  data["final_indices"] = final_node;
  data["inverse_index_map"] = w.none();
  int64_t root = w.object("tir.IndexMap", std::move(data));
  return w.finish(root).dump(2);
}

std::string expr_to_json_graph(const ir::PrimExpr& e) {
  GraphWriter w;
  int64_t root = w.expr(e);
  return w.finish(root).dump(2);
}

TraceArg index_map_from_json_graph(const std::string& text) {
  json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded()) bad_graph("the text is not JSON");
  return GraphReader(doc).index_map();
}

}  // namespace tsch::schedule
