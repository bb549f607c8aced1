// The C source code generator's base (TVM's CodeGenC): C types for dtypes, expressions with
// full parenthesization, memory through each buffer's data pointer, statements and loops,
// the math intrinsics, and helper functions emitted once into the prelude. What depends on
// where the code runs — the entry ABI, allocations, parallel loops, thread bindings — is
// left to a target's subclass (codegen_c_host.h; CUDA C derives here too).
#pragma once

#include <map>
#include <set>
#include <sstream>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/module.h"
#include "runtime/module.h"

namespace tsch::codegen {

using runtime::BuildError;

class CodeGenC {
 public:
  virtual ~CodeGenC() = default;

  // The headers, then the helper definitions the emitted code uses (floordiv for signed
  // integers, min/max).
  std::string prelude() const;

 protected:
  using DataType = ir::DataType;
  using ExprKind = ir::ExprKind;
  using PrimExpr = ir::PrimExpr;
  using Stmt = ir::Stmt;

  // ---- what a target decides ----
  // What the translation unit starts with (C: the standard headers).
  virtual std::string headers() const;
  virtual void emit_allocate(const ir::AllocateNode& n) = 0;
  virtual void emit_parallel(const ir::ForNode& n) = 0;
  // A loop bound to a GPU thread; the base refuses it.
  virtual void emit_thread_binding(const ir::ForNode& n);
  // Calls the intrinsic table does not know (the runtime's, e.g. T.call_packed).
  virtual std::string target_call(const ir::CallNode& n);
  // Vectorized code (a loop VectorizeLoop turned into Ramp / Broadcast / vector loads): a
  // vector value, and a store of one. C source has none (its vectorized loops stay loops).
  virtual std::string vector_expr(const PrimExpr& e);
  virtual void vector_store(const ir::BufferStoreNode& n);
  // A call statement the target writes as statements of its own (CUDA's inline-PTX mma
  // builtins); false when it has none for `n`.
  virtual bool emit_call_stmt(const ir::CallNode& n) { return false; }
  // Called at the head of every loop body (Ctrl-C checks on the CPU).
  virtual void at_loop_head(const Stmt& body) {}

  // ---- types ----
  // The C type of a value of `t` (bool: "bool"); BuildError for vectors and unsupported kinds.
  virtual std::string type_of(DataType t) const;
  // The C type of an element of a buffer of `t` in memory (bool: one byte).
  std::string memory_type_of(DataType t) const;

  // ---- names: each variable a distinct C identifier ----
  std::string define(const ir::VarNode* v, const std::string& hint);
  std::string name_of(const ir::VarNode* v) const;
  void forget(const ir::VarNode* v) { names_.erase(v); }
  // Starts a new function: its identifiers may repeat another function's.
  void reset_names() {
    names_.clear();
    used_.clear();
  }
  // Makes `v` read as `text` (a GPU thread index: `((int)threadIdx.x)`).
  void bind_text(const ir::VarNode* v, std::string text) { names_[v] = std::move(text); }
  // A fresh identifier for generated temporaries (loop ends).
  std::string fresh(const std::string& hint);

  // ---- expressions (codegen_c.cc) ----
  std::string expr(const PrimExpr& e);
  std::string binary(ExprKind kind, const PrimExpr& a, const PrimExpr& b, DataType t);
  // Integer division whose divisor may be 0 or -1 without a trap (CPU code: x86 faults on
  // both; a GPU does not, so CUDA C divides as TVM's does).
  virtual bool guards_integer_division() const { return false; }
  std::string guarded_division(ExprKind kind, const std::string& a, const std::string& b, DataType t,
                               const std::string& suffix);
  std::string cast(const PrimExpr& value, DataType to);
  std::string load(const ir::BufferLoadNode& n);
  std::string call(const ir::CallNode& n);
  virtual std::string literal(const PrimExpr& e) const;

  // ---- statements ----
  void stmt(const Stmt& s);
  void line(const std::string& text) { out_ << std::string(static_cast<size_t>(indent_) * 2, ' ') << text << "\n"; }
  void open_scope(const std::string& head) {
    line(head + " {");
    ++indent_;
  }
  void close_scope(const std::string& tail = "}") {
    --indent_;
    line(tail);
  }
  void serial_loop(const ir::ForNode& n, const std::string& pragma = "");
  // The C name of the pointer to `buf`'s data (its data variable's).
  std::string data_of(const ir::Buffer& buf) const;

  std::ostringstream out_;
  int indent_ = 0;
  // Helpers the code called (name → definition), emitted before the functions.
  std::map<std::string, std::string> helpers_;

 private:
  std::string helper(const std::string& name, const std::string& definition);
  std::unordered_map<const ir::VarNode*, std::string> names_;
  // Handle variables bound by a LetStmt (`void*` in C): buffers over them cast to their type.
  std::unordered_set<const ir::VarNode*> void_pointers_;
  std::set<std::string> used_;
};

}  // namespace tsch::codegen
