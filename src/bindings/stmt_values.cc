// tvm.tir.For / tvm.tir.Block values. Fields follow TVM's Python names; a For's `kind` is
// the integer of TVM's ForKind enum (SERIAL=0 ... THREAD_BINDING=4).
#include "bindings/stmt_values.h"

#include "bindings/attr_values.h"

#include "bindings/ir_values.h"
#include "frontend/tir_specs.h"
#include "ir/printer.h"
#include "script/exceptions.h"
#include "script/modules.h"
#include "script/types.h"

namespace tsch::bindings {


using script::TypeObject;
using script::TypeRef;

namespace {

TypeRef make_type(const char* name) {
  auto t = std::make_shared<TypeObject>(name);
  t->set_module("tvm.tir");
  t->def("script", "self", [](Interpreter& interp, script::Args& a) {
    return script::make_str(a[0].as<StmtValue>()->repr_hook(interp));
  }, "script(): the statement as TVMScript text.");
  t->def("show", "self", [](Interpreter& interp, script::Args& a) {
    interp.write_stdout(a[0].as<StmtValue>()->repr_hook(interp) + "\n");
    return Value();
  }, "show(): print the statement as TVMScript.");
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
  return t;
}

TypeRef for_type() {
  static TypeRef t = [] {
    TypeRef type = make_type("For");
    // For(loop_var, min, extent, kind, body): a loop built outside TVMScript (TVM's analysis
    // tests hand loops to tvm.tir.schedule.analysis this way).
    type->constructor = [](Interpreter& interp, TypeObject*, script::CallArgs& call) {
      static const script::Signature sig =
          script::Signature::parse("loop_var, min, extent, kind, body, thread_binding=None, annotations=None, step=None, span=None");
      script::Args a(interp, "For", sig, std::move(call));
      ir::PrimExpr var = to_expr(interp, a[0], "For loop_var");
      if (!ir::as<ir::VarNode>(var)) script::raise(script::ExcKind::TypeError, "For: loop_var must be a tvm.tir.Var");
      int64_t kind = a.get_int(3);
      if (kind < 0 || kind > 3) script::raise(script::ExcKind::NotImplementedError, "not supported yet: tvm.tir.For of this kind");
      auto* body = a[4].as<StmtValue>();
      if (!body) a.type_error(4, "a tvm.tir.Stmt");
      if (!a[5].is_none() || !a[6].is_none() || !a[7].is_none())
        script::raise(script::ExcKind::NotImplementedError, "not supported yet: tvm.tir.For with thread_binding, annotations or step");
      return wrap(std::make_shared<ir::ForNode>(std::static_pointer_cast<const ir::VarNode>(var), to_expr(interp, a[1], "For min"),
                                                to_expr(interp, a[2], "For extent"), static_cast<ir::ForKind>(kind), body->stmt));
    };
    return type;
  }();
  return t;
}
TypeRef block_type() {
  static TypeRef t = make_type("Block");
  return t;
}
// A child node kept alive by the parent's owner.
Value child(const ir::Stmt& owner, const ir::Stmt& node) {
  if (!node) return Value();
  return wrap(ir::Stmt(owner, node.get()));
}

TypeRef stmt_type() {
  static TypeRef t = [] {
    TypeRef type = make_type("Stmt");
    // A SeqStmt indexes and counts its statements (`func.body.block.body[1]`), as TVM's.
    type->def("__getitem__", "self, index", [](Interpreter&, script::Args& a) -> Value {
      const ir::Stmt& stmt = a[0].as<StmtValue>()->stmt;
      auto* seq = ir::as<ir::SeqStmtNode>(stmt);
      if (!seq) script::raise(script::ExcKind::TypeError, "'Stmt' object is not subscriptable");
      int64_t i = a.get_int(1), n = static_cast<int64_t>(seq->seq.size());
      if (i < 0) i += n;
      if (i < 0 || i >= n) script::raise(script::ExcKind::IndexError, "SeqStmt index out of range");
      return child(stmt, seq->seq[static_cast<size_t>(i)]);
    });
    type->def("__len__", "self", [](Interpreter&, script::Args& a) -> Value {
      auto* seq = ir::as<ir::SeqStmtNode>(a[0].as<StmtValue>()->stmt);
      if (!seq) script::raise(script::ExcKind::TypeError, "object of type 'Stmt' has no len()");
      return Value::integer(static_cast<int64_t>(seq->seq.size()));
    });
    return type;
  }();
  return t;
}

Value buffers(const std::vector<ir::Buffer>& list) {
  std::vector<Value> out;
  for (const auto& b : list) out.push_back(wrap(b));
  return script::make_list(std::move(out));
}

}  // namespace

script::TypeRef for_stmt_type() { return for_type(); }

void install_stmt_constructors(script::Namespace& ns) {
  // tvm.tir.ForKind: TVM's enum, as the integers a For's `kind` holds.
  auto kinds = std::make_shared<script::Module>("tvm.tir.ForKind");
  const char* names[] = {"SERIAL", "PARALLEL", "VECTORIZED", "UNROLLED", "THREAD_BINDING"};
  for (int64_t i = 0; i < 5; ++i) kinds->globals->set(intern(names[i]), Value::integer(i));
  ns.set(intern("ForKind"), Value(kinds));
  script::def_function(ns, "Evaluate", "value, span=None", [](Interpreter& interp, script::Args& a) {
    return wrap(std::make_shared<ir::EvaluateNode>(to_expr(interp, a[0], "Evaluate value")));
  }, "Evaluate(value): the statement evaluating an expression.");
}
script::TypeRef block_stmt_type() { return block_type(); }

// tvm.tir.stmt_functor.pre_order_visit(stmt, fvisit): fvisit on each statement, parents
// first; a falsy result skips the statement's children (expressions are not visited).
void pre_order_visit(Interpreter& interp, const ir::Stmt& root, const ir::Stmt& s, const Value& fn) {
  if (!s) return;
  if (!interp.truthy(interp.call(fn, {wrap(ir::Stmt(root, s.get()))}))) return;
  switch (s->kind) {
    case ir::StmtKind::For: return pre_order_visit(interp, root, ir::as<ir::ForNode>(s)->body, fn);
    case ir::StmtKind::BlockRealize: return pre_order_visit(interp, root, ir::Stmt(ir::as<ir::BlockRealizeNode>(s)->block), fn);
    case ir::StmtKind::Block: {
      auto* b = ir::as<ir::BlockNode>(s);
      if (b->init) pre_order_visit(interp, root, b->init, fn);
      return pre_order_visit(interp, root, b->body, fn);
    }
    case ir::StmtKind::SeqStmt:
      for (const auto& c : ir::as<ir::SeqStmtNode>(s)->seq) pre_order_visit(interp, root, c, fn);
      return;
    case ir::StmtKind::IfThenElse: {
      auto* n = ir::as<ir::IfThenElseNode>(s);
      pre_order_visit(interp, root, n->then_case, fn);
      return pre_order_visit(interp, root, n->else_case, fn);
    }
    case ir::StmtKind::LetStmt: return pre_order_visit(interp, root, ir::as<ir::LetStmtNode>(s)->body, fn);
    case ir::StmtKind::Allocate: return pre_order_visit(interp, root, ir::as<ir::AllocateNode>(s)->body, fn);
    case ir::StmtKind::DeclBuffer: return pre_order_visit(interp, root, ir::as<ir::DeclBufferNode>(s)->body, fn);
    case ir::StmtKind::AllocateConst: return pre_order_visit(interp, root, ir::as<ir::AllocateConstNode>(s)->body, fn);
    default: return;
  }
}

// tvm.tir.stmt_functor.post_order_visit(stmt, fvisit): fvisit on each statement, children
// first (tsch visits statements only; TVM's visits expressions too).
void post_order_visit(Interpreter& interp, const ir::Stmt& root, const ir::Stmt& s, const Value& fn) {
  if (!s) return;
  switch (s->kind) {
    case ir::StmtKind::For: post_order_visit(interp, root, ir::as<ir::ForNode>(s)->body, fn); break;
    case ir::StmtKind::BlockRealize: post_order_visit(interp, root, ir::Stmt(ir::as<ir::BlockRealizeNode>(s)->block), fn); break;
    case ir::StmtKind::Block: {
      auto* b = ir::as<ir::BlockNode>(s);
      if (b->init) post_order_visit(interp, root, b->init, fn);
      post_order_visit(interp, root, b->body, fn);
      break;
    }
    case ir::StmtKind::SeqStmt:
      for (const auto& c : ir::as<ir::SeqStmtNode>(s)->seq) post_order_visit(interp, root, c, fn);
      break;
    case ir::StmtKind::IfThenElse: {
      auto* n = ir::as<ir::IfThenElseNode>(s);
      post_order_visit(interp, root, n->then_case, fn);
      post_order_visit(interp, root, n->else_case, fn);
      break;
    }
    case ir::StmtKind::LetStmt: post_order_visit(interp, root, ir::as<ir::LetStmtNode>(s)->body, fn); break;
    case ir::StmtKind::Allocate: post_order_visit(interp, root, ir::as<ir::AllocateNode>(s)->body, fn); break;
    case ir::StmtKind::DeclBuffer: post_order_visit(interp, root, ir::as<ir::DeclBufferNode>(s)->body, fn); break;
    case ir::StmtKind::AllocateConst: post_order_visit(interp, root, ir::as<ir::AllocateConstNode>(s)->body, fn); break;
    default: break;
  }
  interp.call(fn, {wrap(ir::Stmt(root, s.get()))});
}

Value wrap(ir::Stmt s) { return Value(std::make_shared<StmtValue>(std::move(s))); }

TypeObject* StmtValue::type() const {
  if (ir::as<ir::ForNode>(stmt)) return for_type().get();
  if (ir::as<ir::BlockNode>(stmt)) return block_type().get();
  return stmt_type().get();
}

std::string StmtValue::repr_hook(Interpreter&) {
  std::string text = ir::script(stmt);
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

bool StmtValue::get_attr_hook(Interpreter&, Symbol name, Value& out) {
  const std::string& field = symbol_name(name);
  if (auto* loop = ir::as<ir::ForNode>(stmt)) {
    if (field == "loop_var") out = wrap(ir::PrimExpr(loop->loop_var));
    else if (field == "min") out = wrap(loop->min);
    else if (field == "extent") out = wrap(loop->extent);
    else if (field == "kind") out = Value::integer(static_cast<int64_t>(loop->for_kind));
    else if (field == "thread_binding") out = loop->thread_tag.empty() ? Value() : script::make_str(loop->thread_tag);
    else if (field == "annotations") out = wrap_attrs(loop->annotations);
    else if (field == "body") out = child(stmt, loop->body);
    else return false;
    return true;
  }
  if (auto* block = ir::as<ir::BlockNode>(stmt)) {
    if (field == "name_hint") out = script::make_str(block->name);
    else if (field == "body") out = child(stmt, block->body);
    else if (field == "init") out = child(stmt, block->init);
    else if (field == "alloc_buffers") out = buffers(block->alloc_buffers);
    else if (field == "annotations") out = wrap_attrs(block->annotations);
    else if (field == "reads" || field == "writes") {
      std::vector<Value> regions;
      for (const auto& r : field == "reads" ? block->reads : block->writes) regions.push_back(Value(std::make_shared<frontend::RegionValue>(r)));
      out = script::make_list(std::move(regions));
    }
    else if (field == "iter_vars") {
      std::vector<Value> vars;
      for (const auto& iv : block->iter_vars) vars.push_back(wrap(ir::PrimExpr(iv.var)));
      out = script::make_list(std::move(vars));
    } else {
      return false;
    }
    return true;
  }
  if (auto* realize = ir::as<ir::BlockRealizeNode>(stmt)) {
    if (field == "block") out = child(stmt, realize->block);
    else if (field == "predicate") out = wrap(realize->predicate);
    else if (field == "iter_values") {
      std::vector<Value> values;
      for (const auto& v : realize->iter_values) values.push_back(wrap(v));
      out = script::make_list(std::move(values));
    } else {
      return false;
    }
    return true;
  }
  if (auto* seq = ir::as<ir::SeqStmtNode>(stmt)) {
    if (field == "seq") {
      std::vector<Value> items;
      for (const auto& st : seq->seq) items.push_back(child(stmt, st));
      out = script::make_list(std::move(items));
      return true;
    }
    return false;
  }
  return false;
}

}  // namespace tsch::bindings
