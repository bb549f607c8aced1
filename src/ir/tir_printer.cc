// The TensorIR printer, rule by rule after TVM-REFERENCE.md §2.3 (TVM's
// src/script/printer/tir/*): T.grid folding, T.axis.remap grouping, implicit root block,
// scoped de-duplicated names; expressions in tir_expr_printer.cc.
#include "ir/tir_printer.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "ir/functor.h"
#include "ir/op.h"
#include "ir/printer.h"
#include "ir/tir_expr_printer.h"

namespace tsch::ir {
namespace {

class TIRPrinter : public TIRExprPrinter {
 public:
  explicit TIRPrinter(PrintContext& c) : TIRExprPrinter(c) {}

  // A statement by itself, its free variables and buffers declared above it as TVM prints
  // them (in order of first use).
  void stmt_alone(const Stmt& s) {
    c_.push_frame();
    std::vector<std::string> decls;
    free_decls_ = &decls;
    size_t start = c_.out.size();
    stmt(s, 0);
    free_decls_ = nullptr;
    std::string text;
    for (const std::string& d : decls) text += d + "\n";
    c_.out.insert(start, text);
    c_.pop_frame();
  }

  void declare_free_buffer(const BufferNode* b) override {
    // The shape's free variables come first: buffer_decl names them.
    std::string decl = buffer_decl(*b, "Buffer", "", false);
    std::string name = c_.define_outermost(b, b->name);
    data_owner_.emplace(b->data.get(), b);
    free_decls_->push_back(name + " = " + decl);
  }

  void line(int indent, const std::string& text) { c_.line(indent, text); }
  void mark(int indent, const std::string& text, const StmtNode* node) { c_.mark(indent, text, node); }
  bool sugar() const { return c_.options.syntax_sugar; }
  void push_frame() { c_.push_frame(); }
  void pop_frame() { c_.pop_frame(); }
  std::string define(const void* key, const std::string& hint) { return c_.define(key, hint); }

  // ---------------------------------------------------------------- buffers

  std::string buffer_decl(const Buffer& b, const std::string& fn, const std::string& first_arg, bool always_dtype,
                          const std::string& data = "") {
    return buffer_decl(*b, fn, first_arg, always_dtype, data);
  }
  std::string buffer_decl(const BufferNode& buf, const std::string& fn, const std::string& first_arg, bool always_dtype,
                          const std::string& data = "") {
    const BufferNode* b = &buf;
    std::string s = "T." + fn + "(";
    if (!first_arg.empty()) s += first_arg + ", ";
    s += shape(b->shape);
    if (always_dtype || b->dtype != DataType::float32()) s += ", " + quote(b->dtype.to_string());
    if (!data.empty()) s += ", " + data;
    // A variable first seen here belongs to the buffer (TVM's BufferAttrs): a stride prints as
    // its name in quotes and is used as `A.strides[i]`; an elem_offset is used as
    // `A.elem_offset`, implied by printing offset_factor.
    auto is_new_var = [&](const PrimExpr& e) {
      auto* v = e ? as<VarNode>(e) : nullptr;
      return v && !c_.is_defined(v) && !data_owner_.count(v) && !field_owner_.count(v);
    };
    if (!b->strides.empty()) {
      s += ", strides=(";
      for (size_t i = 0; i < b->strides.size(); ++i) {
        const PrimExpr& e = b->strides[i];
        if (is_new_var(e)) {
          s += (i ? ", " : "") + quote(as<VarNode>(e)->name);
          field_owner_.emplace(as<VarNode>(e), std::make_pair(b, ".strides[" + std::to_string(i) + "]"));
        } else {
          s += (i ? ", " : "") + expr(e).s;
        }
      }
      s += b->strides.size() == 1 ? ",)" : ")";
    }
    bool needs_factor = false;
    if (is_new_var(b->elem_offset)) {
      field_owner_.emplace(as<VarNode>(b->elem_offset), std::make_pair(b, ".elem_offset"));
      needs_factor = true;
    } else if (b->elem_offset && !is_zero(b->elem_offset)) {
      s += ", elem_offset=" + expr(b->elem_offset).s;
    }
    if (b->scope != "global") s += ", scope=" + quote(b->scope);
    if (b->align != 64) s += ", align=" + std::to_string(b->align);
    if (needs_factor || b->offset_factor != 1) s += ", offset_factor=" + std::to_string(b->offset_factor);
    if (!b->axis_separators.empty()) {
      s += ", axis_separators=[";
      for (size_t i = 0; i < b->axis_separators.size(); ++i)
        s += (i ? ", " : "") + std::to_string(b->axis_separators[i]);
      s += "]";
    }
    return s + ")";
  }

  // `(min, max)` of an iterator domain, min printed first.
  std::string dom_pair(const Range& dom) {
    std::string lo = expr(dom.min).s;
    return "(" + lo + ", " + expr(add(dom.min, dom.extent)).s + ")";
  }

  static bool simple_buffer(const Buffer& b, const std::unordered_set<const VarNode*>& defined) {
    if (!b->strides.empty() || b->scope != "global" || b->align != 64 || b->offset_factor != 1 ||
        !b->axis_separators.empty())
      return false;
    if (b->elem_offset && !is_zero(b->elem_offset)) return false;
    for (const auto& d : b->shape) {
      if (uses_var(d, [&](const VarNode* v) { return !defined.count(v); })) return false;
    }
    return true;
  }

  // ---------------------------------------------------------------- functions

  void function(const PrimFunc& f, const std::string& name, int indent) {
    push_frame();
    std::unordered_set<const VarNode*> defined;
    std::vector<std::string> params;
    std::vector<std::string> body_lines;
    std::vector<bool> inlined(f->params.size(), false);
    // Step 1: parameters; simple buffers print inline as `A: T.Buffer(...)`.
    for (size_t i = 0; i < f->params.size(); ++i) {
      const Var& p = f->params[i];
      Buffer b = f->buffer_of(p);
      if (b) data_owner_.emplace(b->data.get(), b.get());
      if (b && sugar() && simple_buffer(b, defined)) {
        std::string bname = define(b.get(), b->name);
        params.push_back(bname + ": " + buffer_decl(b, "Buffer", "", true));
        inlined[i] = true;
        continue;
      }
      std::string pname = define(p.get(), p->name);
      params.push_back(pname + ": " + var_type_script(*p));
      defined.insert(p.get());
    }
    bool has_global = find_attr(f->attrs, "global_symbol") != nullptr;
    line(indent, has_global ? "@T.prim_func" : "@T.prim_func(private=True)");
    std::string sig = "def " + name + "(";
    for (size_t i = 0; i < params.size(); ++i) sig += (i ? ", " : "") + params[i];
    line(indent, sig + "):");
    int in = indent + 1;
    // Step 2: symbolic variables of non-inlined buffers: a dimension that is a new variable is
    // declared before its buffer's match_buffer (`m, n = T.int32(), T.int32()`, as TVM prints
    // them); one first seen inside an expression, first of all.
    std::vector<const VarNode*> free_vars;
    std::vector<std::vector<const VarNode*>> dims_declared(f->params.size());
    std::unordered_set<const VarNode*> seen;
    for (size_t i = 0; i < f->params.size(); ++i) {
      Buffer b = inlined[i] ? Buffer() : f->buffer_of(f->params[i]);
      for (const auto& d : b ? b->shape : std::vector<PrimExpr>{}) {
        for_each_expr(d, [&](const PrimExpr& x) {
          auto* v = as<VarNode>(x);
          if (v && !defined.count(v) && seen.insert(v).second) (x == d ? dims_declared[i] : free_vars).push_back(v);
        });
      }
    }
    // Step 3: attributes.
    if (!f->attrs.empty()) {
      AttrMap attrs;
      for (const auto& kv : f->attrs) {
        const AttrValue& v = kv.second;
        bool redundant = kv.first == "global_symbol" && v.kind == AttrValue::Kind::Str && v.s == name;
        if (!redundant || c_.options.keep_global_symbol) attrs.push_back(kv);
      }
      if (!attrs.empty()) line(in, "T.func_attr(" + attr_map(attrs) + ")");
    }
    for (const VarNode* v : free_vars) line(in, define(v, v->name) + " = T." + v->dtype.to_string() + "()");
    // Step 4: match_buffer for the other buffer parameters.
    for (size_t i = 0; i < f->params.size(); ++i) {
      if (inlined[i]) continue;
      if (Buffer b = f->buffer_of(f->params[i])) {
        std::string names, types;
        for (const VarNode* v : dims_declared[i]) {
          names += (names.empty() ? "" : ", ") + define(v, v->name);
          types += (types.empty() ? "" : ", ") + ("T." + v->dtype.to_string() + "()");
        }
        if (!names.empty()) line(in, names + " = " + types);
        std::string bname = define(b.get(), b->name);
        line(in, bname + " = " + buffer_decl(b, "match_buffer", name_of(f->params[i].get()), false));
      }
    }
    // Step 5: the body, with the implicit root block as a comment.
    const BlockRealizeNode* root = as<BlockRealizeNode>(f->body);
    bool implicit_root = false;
    if (sugar() && root && root->iter_values.empty() && is_one(root->predicate)) {
      const BlockNode* rb = root->block.get();
      if (rb->annotations.empty() && rb->match_buffers.empty() && rb->reads.empty() && rb->writes.empty() &&
          !rb->init) {
        const BlockRealizeNode* inner = as<BlockRealizeNode>(rb->body);
        bool contains_block = false;
        for_each_stmt(rb->body, [&](const Stmt& s) { contains_block |= s->kind == StmtKind::BlockRealize; });
        implicit_root =
            !rb->alloc_buffers.empty() || (inner && !inner->block->iter_vars.empty()) || (!inner && contains_block);
      }
    }
    if (implicit_root) {
      line(in, "# with T.block(\"root\"):");
      for (const auto& b : root->block->alloc_buffers) {
        line(in, define(b.get(), b->name) + " = " + buffer_decl(b, "alloc_buffer", "", false));
        data_owner_.emplace(b->data.get(), b.get());
      }
      body(root->block->body, in);
    } else {
      body(f->body, in);
    }
    pop_frame();
  }

  // ---------------------------------------------------------------- statements

  void body(const Stmt& s, int indent) {
    if (auto* seq = as<SeqStmtNode>(s)) {
      for (size_t i = 0; i < seq->seq.size(); ++i) {
        last_in_body_ = i + 1 == seq->seq.size();
        stmt(seq->seq[i], indent);
      }
    } else {
      last_in_body_ = true;
      stmt(s, indent);
    }
  }

  void stmt(const Stmt& s, int indent) {
    switch (s->kind) {
      case StmtKind::BufferStore: {
        auto* n = as<BufferStoreNode>(s);
        // TVM's order (buffer, value, indices), which is the order free names are declared in.
        std::string buffer = name_of(n->buffer.get());
        std::string value = expr(n->value).s;
        line(indent, buffer + "[" + indices(n->indices) + "] = " + value);
        return;
      }
      case StmtKind::For:
        return for_loop(as<ForNode>(s), indent);
      case StmtKind::BlockRealize: {
        auto* n = as<BlockRealizeNode>(s);
        return block(n->block.get(), n, indent);
      }
      case StmtKind::Block:
        return block(as<BlockNode>(s), nullptr, indent);
      case StmtKind::SeqStmt:
        return body(s, indent);
      case StmtKind::IfThenElse: {
        auto* n = as<IfThenElseNode>(s);
        line(indent, "if " + expr(n->condition).s + ":");
        push_frame();
        body(n->then_case, indent + 1);
        pop_frame();
        if (n->else_case) {
          line(indent, "else:");
          push_frame();
          body(n->else_case, indent + 1);
          pop_frame();
        }
        return;
      }
      case StmtKind::LetStmt: {
        auto* n = as<LetStmtNode>(s);
        std::string value = expr(n->value).s;
        if (c_.is_defined(n->var.get())) {
          // A variable bound again (a hand-built LetStmt over a parameter): TVM's scoped form.
          line(indent, "with T.LetStmt(" + value + ", var=" + name_of(n->var.get()) + "):");
          body(n->body, indent + 1);
          return;
        }
        // `k: T.int32 = v` scopes to the end of its body; a LetStmt followed by other statements
        // prints as TVM's scoped form (AllowConciseScoping).
        if (!last_in_body_) {
          push_frame();
          // TVM names a pointer variable's type: T.LetStmt(value, T.handle("float32", "global")).
          std::string type = n->var->type_annotation ? ", " + script(*n->var->type_annotation) : "";
          line(indent, "with T.LetStmt(" + value + type + ") as " + define(n->var.get(), n->var->name) + ":");
          body(n->body, indent + 1);
          pop_frame();
          return;
        }
        line(indent, define(n->var.get(), n->var->name) + ": " + var_type_script(*n->var) + " = " + value);
        body(n->body, indent);
        return;
      }
      case StmtKind::Evaluate: {
        // A call prints as a statement of its own, as TVM prints it.
        const PrimExpr& value = as<EvaluateNode>(s)->value;
        line(indent, value->kind == ExprKind::Call ? expr(value).s : "T.evaluate(" + expr(value).s + ")");
        return;
      }
      case StmtKind::Allocate: {
        auto* n = as<AllocateNode>(s);
        line(indent,
             define(n->buffer.get(), n->buffer->name) + " = " + buffer_decl(n->buffer, "decl_buffer", "", false));
        data_owner_.emplace(n->buffer->data.get(), n->buffer.get());
        body(n->body, indent);
        return;
      }
      case StmtKind::DeclBuffer: {
        auto* n = as<DeclBufferNode>(s);
        // The data pointer is spelled through the buffer that owns it: `data=A.data`.
        const VarNode* data = n->buffer->data.get();
        auto owner = data_owner_.find(data);
        std::string pointer = owner != data_owner_.end() ? name_of(owner->second) + ".data" : name_of(data);
        line(indent, define(n->buffer.get(), n->buffer->name) + " = " +
                         buffer_decl(n->buffer, "decl_buffer", "", false, "data=" + pointer));
        body(n->body, indent);
        return;
      }
      case StmtKind::AllocateConst:
        return allocate_const(as<AllocateConstNode>(s), indent);
      case StmtKind::AttrStmt: {
        // TVM's concise scoping: the last statement of a body prints `T.attr(...)` over the
        // statements it scopes; any other `with T.attr(...):`.
        auto* n = as<AttrStmtNode>(s);
        std::string call = "T.attr(" + expr(n->node).s + ", " + quote(n->attr_key) + ", " + expr(n->value).s + ")";
        if (last_in_body_) {
          line(indent, call);
          body(n->body, indent);
          return;
        }
        line(indent, "with " + call + ":");
        push_frame();
        body(n->body, indent + 1);
        pop_frame();
        return;
      }
    }
  }

  // `p = T.allocate_const([1.0, 2.0], "float32", [2])` as TVM prints it (every value: TVM
  // stops after 201, which would not parse back), then, as TVM defines a buffer at its
  // first use in the lowest frame that defines its data, `X = T.Buffer((2,), data=p)` for
  // the buffers over `p` no DeclBuffer declares.
  void allocate_const(const AllocateConstNode* n, int indent) {
    std::string data = "[";
    for (size_t i = 0; i < n->size(); ++i) {
      if (i) data += ", ";
      data += n->dtype.is_float() ? float_text(n->float_data[i]) : std::to_string(n->int_data[i]);
    }
    data += "]";
    std::string extents = "[";
    for (size_t i = 0; i < n->extents.size(); ++i) extents += (i ? ", " : "") + expr(n->extents[i]).s;
    extents += "]";
    std::string args = data + ", " + quote(n->dtype.to_string()) + ", " + extents;
    if (!n->annotations.empty()) args += ", annotations=" + attr_map(n->annotations);
    std::string ptr = define(n->buffer_var.get(), n->buffer_var->name);
    line(indent, ptr + " = T.allocate_const(" + args + ")");
    for (const Buffer& b : buffers_over_data(n->body, n->buffer_var)) {
      if (c_.is_defined(b.get())) continue;
      line(indent, define(b.get(), b->name) + " = " + buffer_decl(b, "Buffer", "", false, "data=" + ptr));
    }
    body(n->body, indent);
  }

  // `T.launch_thread` as TVM prints a thread_extent AttrStmt: `x = T.launch_thread("blockIdx.x",
  // n)` over the rest of the body when it is the body's last statement, else a `with` scope.
  void launch_thread(const ForNode* loop, int indent) {
    bool concise = last_in_body_;
    push_frame();
    open_loops_.push_back(loop);
    std::string var = define(loop->loop_var.get(), loop->loop_var->name);
    std::string call = "T.launch_thread(" + quote(loop->thread_tag) + ", " + expr(loop->extent).s + ")";
    c_.annotation(indent, loop);
    std::string head = concise ? var + " = " + call : "with " + call + " as " + var + ":";
    line(indent, head);
    mark(indent, head, loop);
    body(loop->body, concise ? indent : indent + 1);
    open_loops_.pop_back();
    pop_frame();
  }

  void for_loop(const ForNode* loop, int indent) {
    if (loop->launch_thread && loop->for_kind == ForKind::ThreadBinding && is_zero(loop->min) &&
        loop->annotations.empty() && loop->has_trivial_step()) {
      return launch_thread(loop, indent);
    }
    // T.grid: a chain of perfectly nested serial loops starting at 0 without annotations
    // whose extents do not depend on the chain's own variables.
    std::vector<const ForNode*> grid;
    std::unordered_set<const VarNode*> grid_vars;
    for (const ForNode* l = sugar() ? loop : nullptr; l != nullptr; l = as<ForNode>(l->body)) {
      if (l->for_kind != ForKind::Serial || !is_zero(l->min) || !l->annotations.empty() || !l->has_trivial_step() ||
          uses_var(l->extent, [&](const VarNode* v) { return grid_vars.count(v) > 0; })) {
        break;
      }
      grid.push_back(l);
      grid_vars.insert(l->loop_var.get());
    }
    push_frame();
    open_loops_.push_back(loop);
    if (grid.size() > 1) {
      std::string vars, extents;
      for (size_t i = 0; i < grid.size(); ++i) {
        vars += (i ? ", " : "") + define(grid[i]->loop_var.get(), grid[i]->loop_var->name);
        extents += (i ? ", " : "") + expr(grid[i]->extent).s;
      }
      line(indent, "for " + vars + " in T.grid(" + extents + "):");
      for (const ForNode* l : grid) mark(indent, "for " + vars + " in T.grid(" + extents + "):", l);
      body(grid.back()->body, indent + 1);
    } else {
      std::string var = define(loop->loop_var.get(), loop->loop_var->name);
      std::vector<std::string> args;
      bool from_zero = is_zero(loop->min) && loop->has_trivial_step();
      if (!from_zero) args.push_back(expr(loop->min).s);
      args.push_back(expr(from_zero ? loop->extent : add(loop->min, loop->extent)).s);
      std::string fn;
      // range's step must be a literal (TVM's parser refuses others; its printer still writes
      // range(0, n, s), which does not parse back): a symbolic step prints as T.serial's step=.
      bool literal_step = loop->has_trivial_step() || loop->step->kind == ExprKind::IntImm;
      switch (loop->for_kind) {
        case ForKind::Serial:
          fn = loop->annotations.empty() && literal_step ? "range" : "T.serial";
          break;
        case ForKind::Parallel:
          fn = "T.parallel";
          break;
        case ForKind::Vectorized:
          fn = "T.vectorized";
          break;
        case ForKind::Unrolled:
          fn = "T.unroll";
          break;
        case ForKind::ThreadBinding:
          fn = "T.thread_binding";
          args.push_back("thread=" + quote(loop->thread_tag));
          break;
      }
      if (!loop->annotations.empty()) args.push_back("annotations=" + attr_map(loop->annotations));
      // A step: range's third argument, the other kinds' step= (TVM's printer).
      if (!loop->has_trivial_step()) args.push_back((fn == "range" ? "" : "step=") + expr(loop->step).s);
      std::string call = fn + "(";
      for (size_t i = 0; i < args.size(); ++i) call += (i ? ", " : "") + args[i];
      c_.annotation(indent, loop);
      line(indent, "for " + var + " in " + call + "):");
      mark(indent, "for " + var + " in " + call + "):", loop);
      body(loop->body, indent + 1);
    }
    open_loops_.pop_back();
    pop_frame();
  }

  // The loop (among the open ones and their perfectly nested chains) whose variable is v.
  const ForNode* open_loop_of(const VarNode* v) {
    for (const ForNode* outer : open_loops_) {
      for (const ForNode* l = outer; l != nullptr; l = as<ForNode>(l->body)) {
        if (l->loop_var.get() == v) return l;
      }
    }
    return nullptr;
  }

  static bool same_expr(const PrimExpr& a, const PrimExpr& b) {
    if (a == b) return true;
    int64_t x, y;
    return as_const_int(a, &x) && as_const_int(b, &y) && x == y && a->dtype == b->dtype;
  }

  void block(const BlockNode* b, const BlockRealizeNode* realize, int indent) {
    std::string head = "with T.block(" + quote(b->name) + (realize ? "" : ", no_realize=True") + "):";
    c_.annotation(indent, b);
    line(indent, head);
    mark(indent, head, b);
    int in = indent + 1;
    push_frame();
    // Step 1: iterators, grouping runs bound to enclosing loops into T.axis.remap.
    std::vector<size_t> remap;
    auto single = [&](size_t i) {
      const IterVar& iv = b->iter_vars[i];
      static const char* kinds[] = {"spatial", "reduce", "scan", "opaque"};
      std::string dom = is_zero(iv.dom.min) ? expr(iv.dom.extent).s : dom_pair(iv.dom);
      std::string rhs = std::string("T.axis.") + kinds[static_cast<int>(iv.type)] + "(" + dom;
      if (realize) rhs += ", " + expr(realize->iter_values[i]).s;
      // The binding is printed before the iterator is defined: it names outer variables.
      line(in, define(iv.var.get(), iv.var->name) + " = " + rhs + ")");
    };
    auto flush = [&]() {
      if (remap.empty()) return;
      if (remap.size() == 1) {
        single(remap[0]);
        remap.clear();
        return;
      }
      std::string kinds, loops;
      std::vector<std::string> values;
      for (size_t i : remap) values.push_back(expr(realize->iter_values[i]).s);
      std::string lhs;
      for (size_t k = 0; k < remap.size(); ++k) {
        const IterVar& iv = b->iter_vars[remap[k]];
        lhs += (k ? ", " : "") + define(iv.var.get(), iv.var->name);
        kinds += iv.type == IterType::DataPar ? "S" : "R";
        loops += (k ? ", " : "") + values[k];
      }
      line(in, lhs + " = T.axis.remap(" + quote(kinds) + ", [" + loops + "])");
      remap.clear();
    };
    for (size_t i = 0; i < b->iter_vars.size(); ++i) {
      const IterVar& iv = b->iter_vars[i];
      bool remappable = false;
      if (realize && sugar() && (iv.type == IterType::DataPar || iv.type == IterType::CommReduce)) {
        if (auto* v = as<VarNode>(realize->iter_values[i])) {
          const ForNode* loop = open_loop_of(v);
          remappable = loop && same_expr(loop->min, iv.dom.min) && same_expr(loop->extent, iv.dom.extent);
        }
      }
      if (remappable) {
        remap.push_back(i);
      } else {
        flush();
        single(i);
      }
    }
    flush();
    // Step 2: predicate, regions, annotations.
    if (realize && !is_one(realize->predicate)) line(in, "T.where(" + expr(realize->predicate).s + ")");
    std::string reads, writes;
    for (size_t i = 0; i < b->reads.size(); ++i) reads += (i ? ", " : "") + region(b->reads[i]);
    for (size_t i = 0; i < b->writes.size(); ++i) writes += (i ? ", " : "") + region(b->writes[i]);
    line(in, "T.reads(" + reads + ")");
    line(in, "T.writes(" + writes + ")");
    if (!b->annotations.empty()) line(in, "T.block_attr(" + attr_map(b->annotations) + ")");
    // Step 3: allocations and match_buffers.
    for (const auto& buf : b->alloc_buffers) {
      line(in, define(buf.get(), buf->name) + " = " + buffer_decl(buf, "alloc_buffer", "", false));
      data_owner_.emplace(buf->data.get(), buf.get());
    }
    for (const auto& m : b->match_buffers) {
      std::string source = region(m.source);
      // Variables of the view's shape that nothing defined yet come first.
      for (const auto& d : m.buffer->shape) {
        for_each_expr(d, [&](const PrimExpr& x) {
          auto* v = as<VarNode>(x);
          if (v && !c_.is_defined(v) && !data_owner_.count(v) && !field_owner_.count(v))
            line(in, define(v, v->name) + " = T." + v->dtype.to_string() + "()");
        });
      }
      std::string decl = buffer_decl(m.buffer, "match_buffer", source, false);
      line(in, define(m.buffer.get(), m.buffer->name) + " = " + decl);
      data_owner_.emplace(m.buffer->data.get(), m.buffer.get());
    }
    // Step 4: init and body.
    if (b->init) {
      line(in, "with T.init():");
      push_frame();
      body(b->init, in + 1);
      pop_frame();
    }
    body(b->body, in);
    pop_frame();
  }

  std::vector<const ForNode*> open_loops_;
  bool last_in_body_ = true;  // the statement printed last in its body (concise scoping)
};

}  // namespace

void print_prim_func(PrintContext& ctx, const PrimFunc& func, const std::string& name, int indent) {
  TIRPrinter(ctx).function(func, name, indent);
}

std::string script(const Stmt& s) {
  PrintOptions options;
  PrintContext ctx(options);
  TIRPrinter(ctx).stmt_alone(s);
  return ctx.out;
}

}  // namespace tsch::ir
