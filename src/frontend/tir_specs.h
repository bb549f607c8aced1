// Values that TVMScript's T.* functions return for the front end to consume: loop and
// axis descriptions, block headers, buffer annotations. (Dtypes and regions are values of
// their own, in values/dtype_value.h and values/ir_values.h.)
#pragma once

#include <string>
#include <vector>

#include "ir/stmt.h"
#include "script/object.h"

namespace tsch::frontend {

using script::Value;

// `T.Buffer((128, 128), "float32")` in a parameter annotation.
class BufferTypeValue : public script::Object {
 public:
  script::TypeObject* type() const override;
  std::vector<ir::PrimExpr> shape;
  ir::DataType dtype = ir::DataType::float32();
  std::string scope = "global";
  // The declaration's options (T.Buffer(..., strides=, elem_offset=, align=, offset_factor=));
  // an elem_offset variable named "elem_offset" is the buffer's own, renamed per parameter.
  std::vector<ir::PrimExpr> strides;
  ir::PrimExpr elem_offset;
  int align = 64, offset_factor = 1;
  std::vector<int64_t> axis_separators;
};

// One block iterator: `T.axis.spatial(128, i)`.
class AxisValue : public script::Object {
 public:
  script::TypeObject* type() const override;
  ir::IterType iter_type = ir::IterType::DataPar;
  ir::Range dom;
  ir::PrimExpr binding;  // null for T.block(no_realize=True) bodies
};

// Loops: `range(n)`, `T.serial(n)`, `T.grid(a, b)`, `T.thread_binding(...)`.
class LoopValue : public script::Object {
 public:
  struct Loop {
    ir::PrimExpr min, extent;
    ir::PrimExpr step;  // null: a unit step
    ir::ForKind kind = ir::ForKind::Serial;
    std::string thread;
    ir::AttrMap annotations;
  };
  script::TypeObject* type() const override;
  std::vector<Loop> loops;
};

// `with T.block("name"):` and `with T.init():`.
class BlockHeaderValue : public script::Object {
 public:
  script::TypeObject* type() const override;
  std::string name;
  bool no_realize = false;
  bool is_init = false;
};

// `T.env_thread("threadIdx.x")`: a thread axis named by the assignment, launched later by
// `T.launch_thread(tx, n)`.
class EnvThreadValue : public script::Object {
 public:
  script::TypeObject* type() const override;
  std::string thread;
  std::string name;  // the variable it is assigned to
};

// `T.launch_thread("blockIdx.x", n)` (or of an env_thread): the rest of the body, or the body
// of its `with`, runs on `n` threads of that axis. Parsed as a ThreadBinding loop.
class LaunchThreadValue : public script::Object {
 public:
  script::TypeObject* type() const override;
  std::string thread;
  ir::PrimExpr extent;
  std::string env_name;  // the env_thread's variable, when launched through one
};

// `T.attr(node, "pragma_x", value)`: the rest of the body, or the body of its `with`, under
// that attribute (TVM's AttrStmt).
class AttrFrameValue : public script::Object {
 public:
  script::TypeObject* type() const override;
  ir::PrimExpr node;
  std::string attr_key;
  ir::PrimExpr value;
};

// `with T.LetStmt(value, var=x):` (how TVM prints a LetStmt whose variable is already
// defined) or `with T.LetStmt(value) as v:`: the body runs with the variable bound to value.
class LetFrameValue : public script::Object {
 public:
  script::TypeObject* type() const override;
  ir::PrimExpr value;
  ir::Var var;  // null: a new variable named by `as`
  // `T.LetStmt(value, T.handle("float32"))`: what the new variable points to.
  std::optional<ir::PointerType> pointer;
};

}  // namespace tsch::frontend
