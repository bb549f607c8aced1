// tvm.tir.For / tvm.tir.Block values. Fields follow TVM's Python names; a For's `kind` is
// the integer of TVM's ForKind enum (SERIAL=0 ... THREAD_BINDING=4).
#include "values/stmt_values.h"

#include <map>

#include "ir/functor.h"
#include "ir/printer.h"
#include "ir/stmt_copy.h"
#include "script/exceptions.h"
#include "script/modules.h"
#include "script/signature.h"
#include "script/types.h"
#include "values/attr_values.h"
#include "values/ir_values.h"

namespace tsch::bindings {

using script::TypeObject;
using script::TypeRef;

namespace {

// tvm.tir.Stmt: the base every statement kind's type derives from (isinstance checks).
TypeRef stmt_base_type() {
  static TypeRef t = [] {
    auto type = std::make_shared<TypeObject>("Stmt");
    type->set_module("tvm.tir");
    return type;
  }();
  return t;
}

TypeRef make_type(const char* name) {
  auto t = std::make_shared<TypeObject>(name, std::vector<TypeRef>{stmt_base_type()});
  t->set_module("tvm.tir");
  t->def(
      "script", "self",
      [](Interpreter& interp, script::Args& a) { return script::make_str(a[0].as<StmtValue>()->repr_hook(interp)); },
      "script(): the statement as TVMScript text.");
  t->def(
      "show", "self",
      [](Interpreter& interp, script::Args& a) {
        interp.write_stdout(a[0].as<StmtValue>()->repr_hook(interp) + "\n");
        return Value();
      },
      "show(): print the statement as TVMScript.");
  // As TVM's objects: == and hash by node (sch.get(block) == sch.get(block)).
  auto same = [](script::Args& a) {
    auto* other = a[1].as<StmtValue>();
    return other && other->stmt.get() == a[0].as<StmtValue>()->stmt.get();
  };
  t->def("same_as", "self, other", [same](Interpreter&, script::Args& a) { return Value::boolean(same(a)); });
  t->def("__eq__", "self, other", [same](Interpreter&, script::Args& a) { return Value::boolean(same(a)); });
  t->def("__ne__", "self, other", [same](Interpreter&, script::Args& a) { return Value::boolean(!same(a)); });
  t->def("__hash__", "self", [](Interpreter&, script::Args& a) {
    return Value::integer(static_cast<int64_t>(reinterpret_cast<uintptr_t>(a[0].as<StmtValue>()->stmt.get())));
  });
  t->hashes_by_value = true;
  // TVM pickles objects through these (`x.__setstate__(x.__getstate__())` is its deep copy).
  // TVM's state is the object's JSON text, which makes new Vars and Buffers too; tsch's
  // holds a copy of the statement nodes that shares expressions, Vars and Buffers, so the
  // copy can still stand in for the original inside the function it came from.
  t->def(
      "__getstate__", "self",
      [](Interpreter& interp, script::Args& a) {
        auto state = std::make_shared<script::Dict>();
        state->set(interp, script::make_str("handle"), wrap(ir::deep_copy(a[0].as<StmtValue>()->stmt)));
        return Value(state);
      },
      "__getstate__(): {\"handle\": a deep copy of the statement} (TVM's pickling protocol).");
  t->def(
      "__setstate__", "self, state",
      [](Interpreter& interp, script::Args& a) {
        auto* state = a[1].as<script::Dict>();
        if (!state) a.type_error(1, "a dict from __getstate__()");
        Value* handle = state->find(interp, script::make_str("handle"));
        if (!handle)
          script::raise(script::ExcKind::ValueError,
                        "__setstate__: the state has no \"handle\" (expected a dict from __getstate__())");
        auto* from = handle->as<StmtValue>();
        if (!from)
          script::raise(script::ExcKind::TypeError, "__setstate__: the state's \"handle\" is not a statement, got " +
                                                        Interpreter::type_name(*handle));
        StmtValue* self = a[0].as<StmtValue>();
        // The value keeps its Python type, as TVM's object keeps its class.
        if (from->type() != self->type()) {
          script::raise(script::ExcKind::TypeError,
                        "__setstate__: the state holds a " + from->type()->name() + ", not a " + self->type()->name());
        }
        // A fresh copy each time, so one state restores into independent statements.
        self->stmt = ir::deep_copy(from->stmt);
        return Value();
      },
      "__setstate__(state): rebind this statement to a deep copy of the state's (TVM's pickling protocol).");
  return t;
}

TypeRef for_type() {
  static TypeRef t = [] {
    TypeRef type = make_type("For");
    // For(loop_var, min, extent, kind, body): a loop built outside TVMScript (TVM's analysis
    // tests hand loops to tvm.tir.schedule.analysis this way).
    type->constructor = [](Interpreter& interp, TypeObject*, script::CallArgs& call) {
      static const script::Signature sig = script::Signature::parse(
          "loop_var, min, extent, kind, body, thread_binding=None, annotations=None, step=None, span=None");
      script::Args a(interp, "For", sig, std::move(call));
      ir::PrimExpr var = to_expr(interp, a[0], "For loop_var");
      if (!ir::as<ir::VarNode>(var)) script::raise(script::ExcKind::TypeError, "For: loop_var must be a tvm.tir.Var");
      int64_t kind = a.get_int(3);
      if (kind < 0 || kind > 3)
        script::raise(script::ExcKind::NotImplementedError, "not supported yet: tvm.tir.For of this kind");
      auto* body = a[4].as<StmtValue>();
      if (!body) a.type_error(4, "a tvm.tir.Stmt");
      if (!a[5].is_none())
        script::raise(script::ExcKind::NotImplementedError, "not supported yet: tvm.tir.For with a thread_binding");
      auto loop = std::make_shared<ir::ForNode>(std::static_pointer_cast<const ir::VarNode>(var),
                                                to_expr(interp, a[1], "For min"), to_expr(interp, a[2], "For extent"),
                                                static_cast<ir::ForKind>(kind), body->stmt);
      if (!a[6].is_none()) loop->annotations = to_attr_map(interp, a[6], "For annotations");
      if (!a[7].is_none()) loop->step = to_expr(interp, a[7], "For step");
      return wrap(loop);
    };
    return type;
  }();
  return t;
}
// The items of a list (or tuple) argument; None as an empty list where TVM's Python
// wrapper turns None into [].
std::vector<Value> list_arg(Interpreter& interp, script::Args& a, size_t i, const char* expected, bool none_is_empty) {
  if (none_is_empty && a[i].is_none()) return {};
  if (!a[i].as<script::List>() && !a[i].as<script::Tuple>()) a.type_error(i, expected);
  return interp.to_vector(a[i]);
}

// A list argument holding something else (the list itself was the right type).
[[noreturn]] void item_error(const script::Args& a, const char* name, const char* expected, const Value& item) {
  script::raise(script::ExcKind::TypeError, a.function_name() + ": " + name + " must be a list of " + expected +
                                                ", got an item of type " + Interpreter::type_name(item));
}

std::vector<ir::BufferRegion> regions_arg(Interpreter& interp, script::Args& a, size_t i, const char* name) {
  std::vector<ir::BufferRegion> out;
  for (const Value& v : list_arg(interp, a, i, "a list of BufferRegion", false)) {
    auto* r = v.as<RegionValue>();
    if (!r) item_error(a, name, "BufferRegion", v);
    out.push_back(r->region);
  }
  return out;
}

const ir::Stmt& stmt_arg(script::Args& a, size_t i) {
  auto* s = a[i].as<StmtValue>();
  if (!s) a.type_error(i, "a tvm.tir.Stmt");
  return s->stmt;
}

// tvm.tir.Block(iter_vars, reads, writes, name_hint, body, init=None, alloc_buffers=None,
// match_buffers=None, annotations=None, span=None), as TVM's constructor.
Value construct_block(Interpreter& interp, TypeObject*, script::CallArgs& call) {
  static const script::Signature sig = script::Signature::parse(
      "iter_vars, reads, writes, name_hint, body, init=None, alloc_buffers=None, match_buffers=None, annotations=None, "
      "span=None");
  script::Args a(interp, "Block", sig, std::move(call));
  auto block = std::make_shared<ir::BlockNode>();
  // tsch has no script value for a block's IterVar (var, domain, kind): `block.iter_vars`
  // gives the bare Vars.
  if (!list_arg(interp, a, 0, "a list of IterVar", false).empty()) {
    script::raise(script::ExcKind::NotImplementedError,
                  "not supported yet: tvm.tir.Block with iter_vars (only iter_vars=[])");
  }
  block->reads = regions_arg(interp, a, 1, "reads");
  block->writes = regions_arg(interp, a, 2, "writes");
  block->name = a.get_str(3);
  block->body = stmt_arg(a, 4);
  if (!a[5].is_none()) block->init = stmt_arg(a, 5);
  for (const Value& v : list_arg(interp, a, 6, "a list of Buffer", true)) {
    auto* b = v.as<BufferValue>();
    if (!b) item_error(a, "alloc_buffers", "Buffer", v);
    block->alloc_buffers.push_back(b->buffer);
  }
  if (!list_arg(interp, a, 7, "a list of MatchBufferRegion", true).empty()) {
    script::raise(script::ExcKind::NotImplementedError,
                  "not supported yet: tvm.tir.Block with match_buffers (only None or [])");
  }
  if (!a[8].is_none()) {
    if (!a[8].as<script::Dict>()) a.type_error(8, "a dict of annotations");
    block->annotations = to_attr_map(interp, a[8], "Block annotations");
  }
  return wrap(ir::Stmt(block));
}

// tvm.tir.BlockRealize(iter_values, predicate, block, span=None): one value per block
// iterator; a Python bool predicate becomes a bool constant, as TVM's wrapper makes it.
Value construct_block_realize(Interpreter& interp, TypeObject*, script::CallArgs& call) {
  static const script::Signature sig = script::Signature::parse("iter_values, predicate, block, span=None");
  script::Args a(interp, "BlockRealize", sig, std::move(call));
  std::vector<ir::PrimExpr> values;
  for (const Value& v : list_arg(interp, a, 0, "a list of PrimExpr", false)) {
    if (!v.is_number() && !is_expr(v)) item_error(a, "iter_values", "PrimExpr", v);
    values.push_back(to_expr(interp, v, "BlockRealize iter_values"));
  }
  ir::PrimExpr predicate;
  if (a[1].is_bool()) {
    predicate = ir::make_bool(a[1].as_bool());
  } else {
    if (!is_expr(a[1])) a.type_error(1, "a bool or a bool PrimExpr");
    predicate = to_expr(interp, a[1], "BlockRealize predicate");
    if (!predicate->dtype.is_bool())
      script::raise(script::ExcKind::TypeError, "Expect Block.predicate to be a bool expression");
  }
  auto* b = a[2].as<StmtValue>();
  ir::Block block = b ? std::dynamic_pointer_cast<const ir::BlockNode>(b->stmt) : nullptr;
  if (!block) a.type_error(2, "a tvm.tir.Block");
  if (block->iter_vars.size() != values.size()) {
    script::raise(script::ExcKind::ValueError,
                  "BlockRealize needs to have the same number of iter_vars and binding values");
  }
  return wrap(std::make_shared<ir::BlockRealizeNode>(std::move(values), std::move(predicate), std::move(block)));
}

TypeRef block_type() {
  static TypeRef t = [] {
    TypeRef type = make_type("Block");
    type->constructor = construct_block;
    return type;
  }();
  return t;
}
TypeRef block_realize_type() {
  static TypeRef t = [] {
    TypeRef type = make_type("BlockRealize");
    type->constructor = construct_block_realize;
    return type;
  }();
  return t;
}
// A child statement: its own node, so that a script variable holding it counts as one of
// the node's holders (the schedule state's copy-on-write writes only unshared nodes).
Value child(const ir::Stmt& node) {
  if (!node) return Value();
  return wrap(node);
}

TypeRef seq_stmt_type() {
  static TypeRef t = [] {
    TypeRef type = make_type("SeqStmt");
    // A SeqStmt indexes and counts its statements (`func.body.block.body[1]`), as TVM's.
    type->def("__getitem__", "self, index", [](Interpreter&, script::Args& a) -> Value {
      auto& seq = ir::as<ir::SeqStmtNode>(a[0].as<StmtValue>()->stmt)->seq;
      int64_t i = a.get_int(1), n = static_cast<int64_t>(seq.size());
      if (i < 0) i += n;
      if (i < 0 || i >= n) script::raise(script::ExcKind::IndexError, "SeqStmt index out of range");
      return child(seq[static_cast<size_t>(i)]);
    });
    type->def("__len__", "self", [](Interpreter&, script::Args& a) -> Value {
      return Value::integer(static_cast<int64_t>(ir::as<ir::SeqStmtNode>(a[0].as<StmtValue>()->stmt)->seq.size()));
    });
    return type;
  }();
  return t;
}

TypeRef evaluate_type() {
  static TypeRef t = [] {
    TypeRef type = make_type("Evaluate");
    type->constructor = [](Interpreter& interp, TypeObject*, script::CallArgs& call) {
      static const script::Signature sig = script::Signature::parse("value, span=None");
      script::Args a(interp, "Evaluate", sig, std::move(call));
      return wrap(std::make_shared<ir::EvaluateNode>(to_expr(interp, a[0], "Evaluate value")));
    };
    return type;
  }();
  return t;
}

// tvm.tir.LetStmt(var, value, body) and tvm.tir.BufferStore(buffer, value, indices).
TypeRef let_stmt_type() {
  static TypeRef t = [] {
    TypeRef type = make_type("LetStmt");
    type->constructor = [](Interpreter& interp, TypeObject*, script::CallArgs& call) {
      static const script::Signature sig = script::Signature::parse("var, value, body, span=None");
      script::Args a(interp, "LetStmt", sig, std::move(call));
      ir::PrimExpr var = to_expr(interp, a[0], "LetStmt var");
      auto* v = ir::as<ir::VarNode>(var);
      if (!v) a.type_error(0, "a tvm.tir.Var");
      ir::PrimExpr value = to_expr_as(interp, a[1], var->dtype, "LetStmt value");
      if (value->dtype != var->dtype) {
        script::raise(script::ExcKind::TypeError, "LetStmt: the value's " + value->dtype.to_string() +
                                                      " is not the variable's " + var->dtype.to_string());
      }
      auto* body = a[2].as<StmtValue>();
      if (!body) a.type_error(2, "a tvm.tir.Stmt");
      return wrap(
          std::make_shared<ir::LetStmtNode>(std::static_pointer_cast<const ir::VarNode>(var), value, body->stmt));
    };
    return type;
  }();
  return t;
}

// tvm.tir.AttrStmt(node, attr_key, value, body).
TypeRef attr_stmt_type() {
  static TypeRef t = [] {
    TypeRef type = make_type("AttrStmt");
    type->constructor = [](Interpreter& interp, TypeObject*, script::CallArgs& call) {
      static const script::Signature sig = script::Signature::parse("node, attr_key, value, body, span=None");
      script::Args a(interp, "AttrStmt", sig, std::move(call));
      auto* body = a[3].as<StmtValue>();
      if (!body) a.type_error(3, "a tvm.tir.Stmt");
      return wrap(std::make_shared<ir::AttrStmtNode>(attr_stmt_operand(interp, a[0], "AttrStmt node"), a.get_str(1),
                                                     attr_stmt_operand(interp, a[2], "AttrStmt value"), body->stmt));
    };
    return type;
  }();
  return t;
}

TypeRef buffer_store_type() {
  static TypeRef t = [] {
    TypeRef type = make_type("BufferStore");
    type->constructor = [](Interpreter& interp, TypeObject*, script::CallArgs& call) {
      static const script::Signature sig =
          script::Signature::parse("buffer, value, indices, predicate=None, span=None");
      script::Args a(interp, "BufferStore", sig, std::move(call));
      auto* b = a[0].as<BufferValue>();
      if (!b) a.type_error(0, "a tvm.tir.Buffer");
      if (!a[3].is_none())
        script::raise(script::ExcKind::NotImplementedError, "not supported yet: tvm.tir.BufferStore with a predicate");
      std::vector<ir::PrimExpr> idx;
      for (const Value& v : interp.to_vector(a[2])) idx.push_back(to_expr(interp, v, "BufferStore index"));
      if (idx.size() != b->buffer->shape.size()) {
        script::raise(script::ExcKind::IndexError, "BufferStore: buffer " + b->buffer->name + " has " +
                                                       std::to_string(b->buffer->shape.size()) + " dimensions, " +
                                                       std::to_string(idx.size()) + " indices given");
      }
      int lanes = 1;
      for (const auto& i : idx) lanes = std::max(lanes, static_cast<int>(i->dtype.lanes));
      ir::DataType expected = b->buffer->dtype.with_lanes(lanes * b->buffer->dtype.lanes);
      ir::PrimExpr value = to_expr_as(interp, a[1], expected.element_of(), "BufferStore value");
      if (value->dtype != expected) {
        script::raise(script::ExcKind::TypeError, "BufferStore: the value's " + value->dtype.to_string() +
                                                      " is not the buffer's " + expected.to_string());
      }
      return wrap(std::make_shared<ir::BufferStoreNode>(b->buffer, value, std::move(idx)));
    };
    return type;
  }();
  return t;
}

// The other kinds' types: TVM's class names, no constructors yet.
TypeRef plain_kind_type(ir::StmtKind kind) {
  static std::map<ir::StmtKind, TypeRef> types = [] {
    std::map<ir::StmtKind, TypeRef> m;
#define TSCH_X(name) m[ir::StmtKind::name] = make_type(#name);
    TSCH_IR_STMT_KINDS(TSCH_X)
#undef TSCH_X
    return m;
  }();
  return types.at(kind);
}

TypeRef kind_type(ir::StmtKind kind) {
  switch (kind) {
    case ir::StmtKind::For:
      return for_type();
    case ir::StmtKind::Block:
      return block_type();
    case ir::StmtKind::BlockRealize:
      return block_realize_type();
    case ir::StmtKind::SeqStmt:
      return seq_stmt_type();
    case ir::StmtKind::Evaluate:
      return evaluate_type();
    case ir::StmtKind::LetStmt:
      return let_stmt_type();
    case ir::StmtKind::BufferStore:
      return buffer_store_type();
    case ir::StmtKind::AttrStmt:
      return attr_stmt_type();
    default:
      return plain_kind_type(kind);
  }
}

}  // namespace

script::TypeRef for_stmt_type() { return for_type(); }

void install_stmt_constructors(script::Namespace& ns) {
  // tvm.tir.ForKind: TVM's enum, as the integers a For's `kind` holds.
  auto kinds = std::make_shared<script::Module>("tvm.tir.ForKind");
  const char* names[] = {"SERIAL", "PARALLEL", "VECTORIZED", "UNROLLED", "THREAD_BINDING"};
  for (int64_t i = 0; i < 5; ++i) kinds->globals->set(intern(names[i]), Value::integer(i));
  ns.set(intern("ForKind"), Value(kinds));
  ns.set(intern("Stmt"), Value(stmt_base_type()));
#define TSCH_X(name) ns.set(intern(#name), Value(kind_type(ir::StmtKind::name)));
  TSCH_IR_STMT_KINDS(TSCH_X)
#undef TSCH_X
}
script::TypeRef block_stmt_type() { return block_type(); }
script::TypeRef block_realize_stmt_type() { return block_realize_type(); }

namespace {

// fvisit on each statement (not on expressions), parents first or children first. Whole-node
// on purpose: fvisit sees statements of every kind; the visitor's per-node methods find the
// children.
class StmtFunctorVisit : public ir::IRVisitor {
 public:
  StmtFunctorVisit(Interpreter& interp, const Value& fn, bool pre_order)
      : interp_(interp), fn_(fn), pre_order_(pre_order) {}
  using IRVisitor::visit;
  void visit(const ir::Stmt& s) override {
    if (!s) return;
    // Pre-order, a falsy result skips the statement's children.
    if (pre_order_ && !interp_.truthy(interp_.call(fn_, {wrap(s)}))) return;
    IRVisitor::visit(s);
    if (!pre_order_) interp_.call(fn_, {wrap(s)});
  }
  void visit(const ir::PrimExpr&) override {}

 private:
  Interpreter& interp_;
  const Value& fn_;
  bool pre_order_;
};

}  // namespace

// tvm.tir.stmt_functor.pre_order_visit(stmt, fvisit): fvisit on each statement, parents
// first; a falsy result skips the statement's children (expressions are not visited).
void pre_order_visit(Interpreter& interp, const ir::Stmt& s, const Value& fn) {
  StmtFunctorVisit(interp, fn, true).visit(s);
}

// tvm.tir.stmt_functor.post_order_visit(stmt, fvisit): fvisit on each statement, children
// first (tsch visits statements only; TVM's visits expressions too).
void post_order_visit(Interpreter& interp, const ir::Stmt& s, const Value& fn) {
  StmtFunctorVisit(interp, fn, false).visit(s);
}

Value wrap(ir::Stmt s) { return Value(std::make_shared<StmtValue>(std::move(s))); }

TypeObject* StmtValue::type() const { return kind_type(stmt->kind).get(); }

std::string StmtValue::repr_hook(Interpreter&) {
  std::string text = ir::script(stmt);
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

bool StmtValue::get_attr_hook(Interpreter&, Symbol name, Value& out) {
  const std::string& field = symbol_name(name);
  if (auto* loop = ir::as<ir::ForNode>(stmt)) {
    if (field == "loop_var")
      out = wrap(ir::PrimExpr(loop->loop_var));
    else if (field == "min")
      out = wrap(loop->min);
    else if (field == "extent")
      out = wrap(loop->extent);
    else if (field == "kind")
      out = Value::integer(static_cast<int64_t>(loop->for_kind));
    else if (field == "thread_binding")
      out = loop->thread_tag.empty() ? Value() : script::make_str(loop->thread_tag);
    else if (field == "annotations")
      out = wrap_attrs(loop->annotations);
    else if (field == "step")
      out = loop->step ? wrap(loop->step) : Value();
    else if (field == "body")
      out = child(loop->body);
    else
      return false;
    return true;
  }
  if (auto* block = ir::as<ir::BlockNode>(stmt)) {
    if (field == "name_hint")
      out = script::make_str(block->name);
    else if (field == "body")
      out = child(block->body);
    else if (field == "init")
      out = child(block->init);
    else if (field == "alloc_buffers")
      out = wrap_list(block->alloc_buffers);
    else if (field == "annotations")
      out = wrap_attrs(block->annotations);
    else if (field == "reads" || field == "writes") {
      std::vector<Value> regions;
      for (const auto& r : field == "reads" ? block->reads : block->writes)
        regions.push_back(Value(std::make_shared<RegionValue>(r)));
      out = script::make_list(std::move(regions));
    } else if (field == "iter_vars") {
      std::vector<Value> vars;
      for (const auto& iv : block->iter_vars) vars.push_back(wrap(ir::PrimExpr(iv.var)));
      out = script::make_list(std::move(vars));
    } else {
      return false;
    }
    return true;
  }
  if (auto* realize = ir::as<ir::BlockRealizeNode>(stmt)) {
    if (field == "block")
      out = child(realize->block);
    else if (field == "predicate")
      out = wrap(realize->predicate);
    else if (field == "iter_values") {
      std::vector<Value> values;
      for (const auto& v : realize->iter_values) values.push_back(wrap(v));
      out = script::make_list(std::move(values));
    } else {
      return false;
    }
    return true;
  }
  if (auto* branch = ir::as<ir::IfThenElseNode>(stmt)) {
    if (field == "condition")
      out = wrap(branch->condition);
    else if (field == "then_case")
      out = child(branch->then_case);
    else if (field == "else_case")
      out = child(branch->else_case);
    else
      return false;
    return true;
  }
  if (auto* store = ir::as<ir::BufferStoreNode>(stmt)) {
    if (field == "buffer")
      out = wrap(store->buffer);
    else if (field == "value")
      out = wrap(store->value);
    else if (field == "indices")
      out = wrap_list(store->indices);
    else
      return false;
    return true;
  }
  if (auto* let = ir::as<ir::LetStmtNode>(stmt)) {
    if (field == "var")
      out = wrap(ir::PrimExpr(let->var));
    else if (field == "value")
      out = wrap(let->value);
    else if (field == "body")
      out = child(let->body);
    else
      return false;
    return true;
  }
  if (auto* attr = ir::as<ir::AttrStmtNode>(stmt)) {
    if (field == "node")
      out = wrap(attr->node);
    else if (field == "attr_key")
      out = script::make_str(attr->attr_key);
    else if (field == "value")
      out = wrap(attr->value);
    else if (field == "body")
      out = child(attr->body);
    else
      return false;
    return true;
  }
  if (auto* eval = ir::as<ir::EvaluateNode>(stmt)) {
    if (field != "value") return false;
    out = wrap(eval->value);
    return true;
  }
  if (auto* decl = ir::as<ir::DeclBufferNode>(stmt)) {
    if (field == "buffer")
      out = wrap(decl->buffer);
    else if (field == "body")
      out = child(decl->body);
    else
      return false;
    return true;
  }
  if (auto* seq = ir::as<ir::SeqStmtNode>(stmt)) {
    if (field == "seq") {
      std::vector<Value> items;
      for (const auto& st : seq->seq) items.push_back(child(st));
      out = script::make_list(std::move(items));
      return true;
    }
    return false;
  }
  return false;
}

}  // namespace tsch::bindings
