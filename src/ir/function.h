// What every function kind shares (TVM's BaseFunc): attributes and a kind tag. PrimFunc
// (TensorIR) derives from it here; Relax functions derive from it in relax/. An IRModule
// maps global names to BaseFuncs.
#pragma once

#include <memory>
#include <string>

#include "ir/stmt.h"

namespace tsch::ir {

enum class FuncKind { PrimFunc, RelaxFunction, ExternFunc };

struct BaseFuncNode {
  // Function attributes (`T.func_attr` / `R.func_attr`). A function without a
  // "global_symbol" attribute is private.
  AttrMap attrs;

  virtual ~BaseFuncNode() = default;
  virtual FuncKind func_kind() const = 0;
  // TVM's type key ("tir.PrimFunc", "relax.expr.Function"), for messages.
  virtual const char* type_key() const = 0;
  // A copy of this function (attributes and all) to edit before sharing it.
  virtual std::shared_ptr<BaseFuncNode> copy() const = 0;

 protected:
  BaseFuncNode() = default;
  BaseFuncNode(const BaseFuncNode&) = default;
  BaseFuncNode& operator=(const BaseFuncNode&) = default;
};
using BaseFunc = std::shared_ptr<const BaseFuncNode>;

// The value of attribute `key`, or null.
inline const AttrValue* func_attr(const BaseFunc& f, const std::string& key) { return find_attr(f->attrs, key); }

// `f` with attribute `key` set to `value` (replaced, else appended) / removed.
BaseFunc with_attr(const BaseFunc& f, const std::string& key, AttrValue value);
BaseFunc without_attr(const BaseFunc& f, const std::string& key);

// The name a function is exported under: its "global_symbol" attribute, or empty when private.
std::string global_symbol(const BaseFuncNode& f);

}  // namespace tsch::ir
