#include "runtime/vm/builtin.h"

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <optional>

#include "runtime/registry.h"
#include "runtime/vm/vm.h"
#include "support/checked_size.h"
#include "support/error.h"

namespace tsch::runtime::vm {
namespace {

using Args = std::vector<Any>;

// ---------------------------------------------------------------------------------------
// Argument helpers: every mistake names the builtin and the argument.
// ---------------------------------------------------------------------------------------

void expect_args(const char* builtin, const Args& a, size_t lo, size_t hi) {
  TSCH_USER_ASSERT(a.size() >= lo && a.size() <= hi, TypeError)
      << builtin << " expects "
      << (lo == hi         ? ""
          : hi == SIZE_MAX ? "at least "
                           : std::to_string(lo) + " to ")
      << (hi == SIZE_MAX || lo == hi ? lo : hi) << " arguments, got " << a.size();
}

int64_t int_arg(const char* builtin, const Args& a, size_t i, const char* what) {
  TSCH_USER_ASSERT(i < a.size(), TypeError) << builtin << ": missing argument " << i << " (" << what << ")";
  TSCH_USER_ASSERT(a[i].kind() == Any::Kind::Int || a[i].kind() == Any::Kind::Bool, TypeError)
      << builtin << ": argument " << i << " (" << what << ") must be an int, got " << a[i].type_name();
  return a[i].as_int();
}

const NDArrayRef& tensor_arg(const char* builtin, const Args& a, size_t i, const char* what) {
  TSCH_USER_ASSERT(a[i].kind() == Any::Kind::NDArray, TypeError)
      << builtin << ": argument " << i << " (" << what << ") must be a Tensor, got " << a[i].type_name();
  return a[i].as_ndarray();
}

const Shape& shape_arg(const char* builtin, const Args& a, size_t i, const char* what) {
  TSCH_USER_ASSERT(a[i].kind() == Any::Kind::Shape, TypeError)
      << builtin << ": argument " << i << " (" << what << ") must be a Shape, got " << a[i].type_name();
  return a[i].as_shape();
}

// Dtypes travel as their names; "" is TVM's void: any dtype.
std::optional<ir::DataType> dtype_arg(const char* builtin, const Args& a, size_t i) {
  TSCH_USER_ASSERT(a[i].kind() == Any::Kind::Str, TypeError)
      << builtin << ": argument " << i << " (dtype) must be a dtype string, got " << a[i].type_name();
  const std::string& name = a[i].as_str();
  if (name.empty() || name == "void") return std::nullopt;
  std::optional<ir::DataType> t = ir::DataType::parse(name);
  TSCH_USER_ASSERT(t.has_value(), ValueError) << builtin << ": unknown dtype '" << name << "'";
  return t;
}

ir::DataType array_dtype_arg(const char* builtin, const Args& a, size_t i) {
  std::optional<ir::DataType> t = dtype_arg(builtin, a, i);
  TSCH_USER_ASSERT(t && is_array_dtype(*t), ValueError)
      << builtin << ": cannot make a tensor of dtype '" << a[i].as_str() << "'";
  return *t;
}

// The error context the code generator passes last (a string, or None when it emits none).
std::string context_arg(const Any& a) { return a.kind() == Any::Kind::Str ? a.as_str() : std::string(); }

// TVM writes the context, a space, then the message; contexts end with a space themselves.
std::string in_context(const std::string& ctx, const std::string& message) {
  return ctx.empty() ? message : ctx + " " + message;
}

// The int64 shape heap vm.builtin.alloc_shape_heap made, or none (None).
struct ShapeHeap {
  int64_t* data = nullptr;
  int64_t size = 0;

  int64_t& at(const char* builtin, int64_t reg) const {
    TSCH_USER_ASSERT(reg >= 0 && reg < size, IndexError)
        << builtin << ": shape heap slot " << reg << " is outside the heap of " << size
        << (data ? "" : " (no heap was passed)");
    return data[reg];
  }
};

ShapeHeap heap_arg(const char* builtin, const Any& a) {
  if (a.is_none()) return {};
  TSCH_USER_ASSERT(a.kind() == Any::Kind::NDArray, TypeError)
      << builtin << ": the shape heap must be a Tensor or None, got " << a.type_name();
  const NDArrayRef& heap = a.as_ndarray();
  TSCH_USER_ASSERT(heap->dtype() == ir::DataType::int64() && heap->ndim() == 1 && heap->is_dense(), TypeError)
      << builtin << ": the shape heap must be a 1-d int64 Tensor, got " << heap->dtype().to_string()
      << shape_string(heap->shape());
  return {static_cast<int64_t*>(heap->data()), heap->size()};
}

// ---------------------------------------------------------------------------------------
// Shapes and struct info
// ---------------------------------------------------------------------------------------

// alloc_shape_heap(vm, size): an int64 array on the host for symbolic dimensions.
Any alloc_shape_heap(const Args& a) {
  expect_args("vm.builtin.alloc_shape_heap", a, 2, 2);
  VirtualMachine::from_any(a[0], "vm.builtin.alloc_shape_heap");
  int64_t size = int_arg("vm.builtin.alloc_shape_heap", a, 1, "size");
  TSCH_USER_ASSERT(size >= 0, ValueError) << "vm.builtin.alloc_shape_heap: negative size " << size;
  return Any::of_ndarray(make_array(ir::DataType::int64(), {size}));
}

// match_prim_value(value, heap, code, reg, err_ctx): match_shape for one R.Prim value.
Any match_prim_value(const Args& a) {
  const char* name = "vm.builtin.match_prim_value";
  expect_args(name, a, 5, 5);
  int64_t value = int_arg(name, a, 0, "value");
  ShapeHeap heap = heap_arg(name, a[1]);
  auto code = static_cast<MatchShapeCode>(int_arg(name, a, 2, "code"));
  int64_t reg = int_arg(name, a, 3, "reg");
  std::string ctx = context_arg(a[4]);
  switch (code) {
    case MatchShapeCode::kAssertEqualToImm:
      TSCH_USER_ASSERT(value == reg, RuntimeError)
          << in_context(ctx, "match_cast error, PrimValue mismatch to specified constant: expected " +
                                 std::to_string(reg) + " but got " + std::to_string(value));
      break;
    case MatchShapeCode::kStoreToHeap:
      heap.at(name, reg) = value;
      break;
    case MatchShapeCode::kNoOp:
      break;
    case MatchShapeCode::kAssertEqualToLoad: {
      int64_t expected = heap.at(name, reg);
      TSCH_USER_ASSERT(value == expected, RuntimeError)
          << in_context(ctx, "match_cast error, PrimValue mismatch to a previous populated value: expected " +
                                 std::to_string(expected) + " but got " + std::to_string(value));
      break;
    }
    default:
      TSCH_USER_ASSERT(false, ValueError) << name << ": unknown match shape code " << static_cast<int>(code);
  }
  return Any();
}

// match_shape(value, heap, n, code[0], reg[0], ..., err_ctx): see MatchShapeCode.
Any match_shape(const Args& a) {
  const char* name = "vm.builtin.match_shape";
  expect_args(name, a, 4, SIZE_MAX);
  Shape dims;
  if (a[0].kind() == Any::Kind::NDArray) {
    dims = a[0].as_ndarray()->shape();
  } else {
    TSCH_USER_ASSERT(a[0].kind() == Any::Kind::Shape, TypeError)
        << name << ": argument 0 must be a Tensor or a Shape, got " << a[0].type_name();
    dims = a[0].as_shape();
  }
  ShapeHeap heap = heap_arg(name, a[1]);
  int64_t n = int_arg(name, a, 2, "size");
  TSCH_USER_ASSERT(n >= 0 && static_cast<uint64_t>(n) == (a.size() - 4) / 2 && a.size() % 2 == 0, TypeError)
      << name << ": " << n << " dimensions need " << 4 + 2 * std::max<int64_t>(n, 0) << " arguments, got " << a.size();
  std::string ctx = context_arg(a.back());
  TSCH_USER_ASSERT(static_cast<int64_t>(dims.size()) == n, RuntimeError)
      << in_context(ctx, "match_cast shape size mismatch: expected " + std::to_string(n) + " dimensions but got " +
                             std::to_string(dims.size()) + " " + shape_string(dims));
  for (int64_t i = 0; i < n; ++i) {
    auto code = static_cast<MatchShapeCode>(int_arg(name, a, 3 + 2 * i, "code"));
    int64_t reg = int_arg(name, a, 4 + 2 * i, "reg");
    std::string dim = "shape[" + std::to_string(i) + "]";
    switch (code) {
      case MatchShapeCode::kAssertEqualToImm:
        TSCH_USER_ASSERT(dims[i] == reg, RuntimeError)
            << in_context(ctx, "match_cast error, " + dim + " mismatch to specified constant: expected " +
                                   std::to_string(reg) + " but got " + std::to_string(dims[i]));
        break;
      case MatchShapeCode::kStoreToHeap:
        heap.at(name, reg) = dims[i];
        break;
      case MatchShapeCode::kNoOp:
        break;
      case MatchShapeCode::kAssertEqualToLoad: {
        int64_t expected = heap.at(name, reg);
        TSCH_USER_ASSERT(dims[i] == expected, RuntimeError)
            << in_context(ctx, "match_cast error, " + dim + " mismatch to a previous populated value: expected " +
                                   std::to_string(expected) + " but got " + std::to_string(dims[i]));
        break;
      }
      default:
        TSCH_USER_ASSERT(false, ValueError) << name << ": unknown match shape code " << static_cast<int>(code);
    }
  }
  return Any();
}

// make_prim_value(heap, code, reg) -> int: make_shape for one R.Prim value.
Any make_prim_value(const Args& a) {
  const char* name = "vm.builtin.make_prim_value";
  expect_args(name, a, 3, 3);
  ShapeHeap heap = heap_arg(name, a[0]);
  auto code = static_cast<MakeShapeCode>(int_arg(name, a, 1, "code"));
  int64_t reg = int_arg(name, a, 2, "reg");
  if (code == MakeShapeCode::kUseImm) return Any::of_int(reg);
  TSCH_USER_ASSERT(code == MakeShapeCode::kLoadShape, ValueError)
      << name << ": unknown shape code " << static_cast<int>(code);
  return Any::of_int(heap.at(name, reg));
}

// make_shape(heap, n, code[0], reg[0], ...) -> Shape: see MakeShapeCode.
Any make_shape(const Args& a) {
  const char* name = "vm.builtin.make_shape";
  expect_args(name, a, 2, SIZE_MAX);
  ShapeHeap heap = heap_arg(name, a[0]);
  int64_t n = int_arg(name, a, 1, "size");
  TSCH_USER_ASSERT(n >= 0 && static_cast<uint64_t>(n) * 2 + 2 == a.size(), TypeError)
      << name << ": " << n << " dimensions need " << 2 + 2 * std::max<int64_t>(n, 0) << " arguments, got " << a.size();
  Shape dims(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    auto code = static_cast<MakeShapeCode>(int_arg(name, a, 2 + 2 * i, "code"));
    int64_t reg = int_arg(name, a, 3 + 2 * i, "reg");
    if (code == MakeShapeCode::kUseImm) {
      dims[i] = reg;
    } else {
      TSCH_USER_ASSERT(code == MakeShapeCode::kLoadShape, ValueError)
          << name << ": unknown shape code " << static_cast<int>(code);
      dims[i] = heap.at(name, reg);
    }
  }
  return Any::of_shape(std::move(dims));
}

// check_tensor_info(arg, ndim, [dtype,] err_ctx): ndim -1 and dtype "" accept any.
Any check_tensor_info(const Args& a) {
  const char* name = "vm.builtin.check_tensor_info";
  expect_args(name, a, 3, 4);
  int64_t ndim = int_arg(name, a, 1, "ndim");
  std::optional<ir::DataType> dtype = a.size() == 4 ? dtype_arg(name, a, 2) : std::nullopt;
  std::string ctx = context_arg(a.back());
  TSCH_USER_ASSERT(a[0].kind() == Any::Kind::NDArray, TypeError)
      << in_context(ctx, "expect a Tensor but get " + a[0].type_name());
  const NDArray& t = *a[0].as_ndarray();
  TSCH_USER_ASSERT(ndim == -1 || t.ndim() == ndim, ValueError)
      << in_context(ctx, "expect Tensor with ndim " + std::to_string(ndim) + " but get " + std::to_string(t.ndim()));
  TSCH_USER_ASSERT(!dtype || t.dtype() == *dtype, ValueError)
      << in_context(ctx, "expect Tensor with dtype " + dtype->to_string() + " but get " + t.dtype().to_string());
  return Any();
}

// check_shape_info(arg, ndim, err_ctx)
Any check_shape_info(const Args& a) {
  const char* name = "vm.builtin.check_shape_info";
  expect_args(name, a, 3, 3);
  int64_t ndim = int_arg(name, a, 1, "ndim");
  std::string ctx = context_arg(a[2]);
  TSCH_USER_ASSERT(a[0].kind() == Any::Kind::Shape, TypeError)
      << in_context(ctx, "expect a Shape but get " + a[0].type_name());
  auto size = static_cast<int64_t>(a[0].as_shape().size());
  TSCH_USER_ASSERT(ndim == -1 || size == ndim, ValueError)
      << in_context(ctx, "expect Shape with ndim " + std::to_string(ndim) + " but get " + std::to_string(size));
  return Any();
}

// check_prim_value_info(arg, dtype, err_ctx): a number that the dtype can take.
Any check_prim_value_info(const Args& a) {
  const char* name = "vm.builtin.check_prim_value_info";
  expect_args(name, a, 3, 3);
  std::optional<ir::DataType> dtype = dtype_arg(name, a, 1);
  std::string ctx = context_arg(a[2]);
  ctx += ctx.empty() ? "" : ", ";  // TVM's "<context>, expected dtype ..."
  std::string expected = dtype ? dtype->to_string() : std::string("void");
  Any::Kind k = a[0].kind();
  bool number = k == Any::Kind::Bool || k == Any::Kind::Int || k == Any::Kind::Float;
  TSCH_USER_ASSERT(number || k == Any::Kind::None, TypeError)
      << ctx << "expected dtype " << expected << ", but received ObjectRef of type " << a[0].type_name();
  if (!dtype) return Any();
  bool ok = dtype->is_float()    ? number
            : dtype->is_handle() ? k == Any::Kind::None
                                 : k == Any::Kind::Bool || k == Any::Kind::Int;
  TSCH_USER_ASSERT(dtype->is_float() || dtype->is_int() || dtype->is_uint() || dtype->is_bool() || dtype->is_handle(),
                   TypeError)
      << ctx << "unsupported dtype " << expected;
  TSCH_USER_ASSERT(ok, TypeError) << ctx << "expected dtype " << expected << ", but received a " << a[0].type_name();
  TSCH_USER_ASSERT(!dtype->is_uint() || a[0].as_int() >= 0, ValueError)
      << ctx << "expected dtype " << expected << ", but received the negative value " << a[0].as_int();
  return Any();
}

// check_tuple_info(arg, size, err_ctx)
Any check_tuple_info(const Args& a) {
  const char* name = "vm.builtin.check_tuple_info";
  expect_args(name, a, 3, 3);
  int64_t size = int_arg(name, a, 1, "size");
  std::string ctx = context_arg(a[2]);
  TSCH_USER_ASSERT(a[0].kind() == Any::Kind::Tuple, TypeError)
      << in_context(ctx, "expect a Tuple but get " + a[0].type_name());
  auto got = static_cast<int64_t>(a[0].as_tuple().size());
  TSCH_USER_ASSERT(got == size, ValueError)
      << in_context(ctx, "expect a Tuple with " + std::to_string(size) + " elements, but get a Tuple with " +
                             std::to_string(got) + " elements.");
  return Any();
}

// check_func_info(arg, err_ctx)
Any check_func_info(const Args& a) {
  expect_args("vm.builtin.check_func_info", a, 2, 2);
  std::string ctx = context_arg(a[1]);
  TSCH_USER_ASSERT(a[0].kind() == Any::Kind::Function, TypeError)
      << in_context(ctx, "expect a Function but get " + a[0].type_name());
  return Any();
}

// ---------------------------------------------------------------------------------------
// Storage
// ---------------------------------------------------------------------------------------

// alloc_storage(vm, shape, device_index, dtype_hint, [scope]): prod(shape) elements of
// dtype_hint's size (code generation passes the byte count with uint8).
Any alloc_storage(const Args& a) {
  const char* name = "vm.builtin.alloc_storage";
  expect_args(name, a, 4, 5);
  VirtualMachine& vm = VirtualMachine::from_any(a[0], name);
  const Shape& shape = shape_arg(name, a, 1, "shape");
  int64_t device_index = int_arg(name, a, 2, "device_index");
  std::optional<ir::DataType> hint = dtype_arg(name, a, 3);
  if (a.size() == 5) {
    const std::string& scope = a[4].kind() == Any::Kind::Str ? a[4].as_str() : std::string("global");
    TSCH_USER_ASSERT(scope.empty() || scope == "global", ValueError)
        << "Allocator cannot allocate data space with specified memory scope: " << scope;
  }
  for (int64_t d : shape)
    TSCH_USER_ASSERT(d >= 0, ValueError) << name << ": negative dimension in " << shape_string(shape);
  int64_t nbytes = shape_size(shape);
  if (hint) nbytes = checked_mul(nbytes, element_bytes(*hint));
  return Any::of_object(vm.alloc_storage(nbytes, device_index), kStorageTypeName);
}

// alloc_tensor(storage, offset, shape, dtype, [scope]): a tensor over the storage's bytes
// from `offset` on. Tensors of one storage alias: memory planning puts tensors whose
// lifetimes do not overlap there.
Any alloc_tensor(const Args& a) {
  const char* name = "vm.builtin.alloc_tensor";
  expect_args(name, a, 4, 5);
  TSCH_USER_ASSERT(a[0].is_object_of(kStorageTypeName), TypeError)
      << name << ": argument 0 (storage) must be a vm.Storage, got " << a[0].type_name();
  const auto& storage = *static_cast<const Storage*>(a[0].as_object().get());
  int64_t offset = int_arg(name, a, 1, "offset");
  Shape shape = shape_arg(name, a, 2, "shape");
  ir::DataType dtype = array_dtype_arg(name, a, 3);
  for (int64_t d : shape)
    TSCH_USER_ASSERT(d >= 0, ValueError) << name << ": negative dimension in " << shape_string(shape);
  int64_t needed = checked_mul(shape_size(shape), element_bytes(dtype));
  TSCH_USER_ASSERT(offset >= 0 && offset <= storage.nbytes && needed <= storage.nbytes - offset, ValueError)
      << "storage allocation failure, attempted to allocate " << needed << " at offset " << offset
      << " in region that is " << storage.nbytes << " bytes";
  // Compiled functions assume their buffers 64-byte aligned, as the storage's base is.
  TSCH_USER_ASSERT(offset % 64 == 0, ValueError)
      << name << ": offset " << offset << " is not a multiple of 64 bytes, the alignment compiled functions assume";
  return Any::of_ndarray(
      view_memory(dtype, std::move(shape), std::shared_ptr<uint8_t>(storage.data, storage.data.get() + offset)));
}

// ---------------------------------------------------------------------------------------
// Closures and calls
// ---------------------------------------------------------------------------------------

// make_closure(func, saved...): func with `saved` appended to every call's arguments.
Any make_closure(const Args& a) {
  expect_args("vm.builtin.make_closure", a, 1, SIZE_MAX);
  TSCH_USER_ASSERT(a[0].kind() == Any::Kind::Function, TypeError)
      << "vm.builtin.make_closure: argument 0 must be a Function, got " << a[0].type_name();
  PackedFunc f = a[0].as_function();
  Args saved(a.begin() + 1, a.end());
  return Any::of_function(make_packed_func(
      [f, saved](const Args& args) {
        Args all = args;
        all.insert(all.end(), saved.begin(), saved.end());
        return (*f)(all);
      },
      f->name()));
}

// invoke_closure(vm, closure, args...)
Any invoke_closure(const Args& a) {
  const char* name = "vm.builtin.invoke_closure";
  expect_args(name, a, 2, SIZE_MAX);
  VirtualMachine::from_any(a[0], name);
  TSCH_USER_ASSERT(a[1].kind() == Any::Kind::Function, TypeError)
      << name << ": argument 1 (closure) must be a Function, got " << a[1].type_name();
  return (*a[1].as_function())(Args(a.begin() + 2, a.end()));
}

// call_tir_dyn(func, args..., shape): func(args..., *shape) — the shape's values become
// trailing int64 arguments (a TIR function's symbolic variables).
Any call_tir_dyn(const Args& a) {
  const char* name = "vm.builtin.call_tir_dyn";
  expect_args(name, a, 2, SIZE_MAX);
  TSCH_USER_ASSERT(a[0].kind() == Any::Kind::Function, TypeError)
      << name << ": argument 0 must be a Function, got " << a[0].type_name();
  const Shape& extra = shape_arg(name, a, a.size() - 1, "the trailing shape");
  Args call(a.begin() + 1, a.end() - 1);
  for (int64_t v : extra) call.push_back(Any::of_int(v));
  return (*a[0].as_function())(call);
}

// ---------------------------------------------------------------------------------------
// Values
// ---------------------------------------------------------------------------------------

Any make_tuple(const Args& a) { return Any::of_tuple(a); }

Any tuple_getitem(const Args& a) {
  const char* name = "vm.builtin.tuple_getitem";
  expect_args(name, a, 2, 2);
  TSCH_USER_ASSERT(a[0].kind() == Any::Kind::Tuple, TypeError)
      << name << ": argument 0 must be a Tuple, got " << a[0].type_name();
  const Args& items = a[0].as_tuple();
  int64_t i = int_arg(name, a, 1, "index");
  TSCH_USER_ASSERT(i >= 0 && i < static_cast<int64_t>(items.size()), IndexError)
      << name << ": index " << i << " is out of range for a Tuple of " << items.size() << " elements";
  return items[i];
}

Any null_value(const Args& a) {
  expect_args("vm.builtin.null_value", a, 0, 0);
  return Any();
}

// read_if_cond(cond) -> bool: an int or bool, or the first element of a bool/integer tensor.
Any read_if_cond(const Args& a) {
  const char* name = "vm.builtin.read_if_cond";
  expect_args(name, a, 1, 1);
  if (a[0].kind() == Any::Kind::Bool || a[0].kind() == Any::Kind::Int) return Any::of_bool(a[0].as_int() != 0);
  TSCH_USER_ASSERT(a[0].kind() == Any::Kind::NDArray, TypeError)
      << name << ": the condition must be a bool, an int or a Tensor, got " << a[0].type_name();
  const NDArray& t = *a[0].as_ndarray();
  TSCH_USER_ASSERT(!t.dtype().is_float(), TypeError)
      << name << ": the condition must be a bool or integer Tensor, got dtype " << t.dtype().to_string();
  TSCH_USER_ASSERT(t.size() >= 1, ValueError)
      << name << ": the condition is an empty Tensor " << shape_string(t.shape());
  return Any::of_bool(t.get_i(0) != 0);
}

// copy(value) -> value: a register-to-register move (TVM's copies no data).
Any copy(const Args& a) {
  expect_args("vm.builtin.copy", a, 1, 1);
  return a[0];
}

Any shape_of(const Args& a) {
  expect_args("vm.builtin.shape_of", a, 1, 1);
  return Any::of_shape(tensor_arg("vm.builtin.shape_of", a, 0, "data")->shape());
}

// reshape(data, shape): the same elements under another shape, sharing memory (a strided
// view is made dense first).
Any reshape(const Args& a) {
  const char* name = "vm.builtin.reshape";
  expect_args(name, a, 2, 2);
  NDArrayRef data = tensor_arg(name, a, 0, "data");
  const Shape& shape = shape_arg(name, a, 1, "shape");
  for (int64_t d : shape)
    TSCH_USER_ASSERT(d >= 0, ValueError) << name << ": negative dimension in " << shape_string(shape);
  int64_t n = shape_size(shape);
  TSCH_USER_ASSERT(n == data->size(), ValueError)
      << name << ": cannot reshape a Tensor of shape " << shape_string(data->shape()) << " (" << data->size()
      << " elements) into shape " << shape_string(shape) << " (" << n << " elements)";
  if (!data->is_dense()) data = data->copy();
  Shape strides(shape.size());
  int64_t step = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    strides[d] = step;
    step *= shape[d];
  }
  return Any::of_ndarray(make_view(data, 0, shape, std::move(strides)));
}

// tensor_to_shape(data) -> Shape: a 1-d integer tensor's values.
Any tensor_to_shape(const Args& a) {
  const char* name = "vm.builtin.tensor_to_shape";
  expect_args(name, a, 1, 1);
  const NDArray& t = *tensor_arg(name, a, 0, "data");
  TSCH_USER_ASSERT(t.ndim() == 1 && t.dtype().is_integer(), TypeError)
      << name << ": expected a 1-d integer Tensor, got " << t.dtype().to_string() << shape_string(t.shape());
  Shape dims(static_cast<size_t>(t.size()));
  for (int64_t i = 0; i < t.size(); ++i) dims[i] = t.get_i(i);
  return Any::of_shape(std::move(dims));
}

}  // namespace

void register_vm_builtins() {
  static std::once_flag once;
  std::call_once(once, [] {
    using Body = Any (*)(const Args&);
    const std::pair<const char*, Body> table[] = {
        {"vm.builtin.alloc_shape_heap", alloc_shape_heap},
        {"vm.builtin.match_prim_value", match_prim_value},
        {"vm.builtin.match_shape", match_shape},
        {"vm.builtin.make_prim_value", make_prim_value},
        {"vm.builtin.make_shape", make_shape},
        {"vm.builtin.check_tensor_info", check_tensor_info},
        {"vm.builtin.check_shape_info", check_shape_info},
        {"vm.builtin.check_prim_value_info", check_prim_value_info},
        {"vm.builtin.check_tuple_info", check_tuple_info},
        {"vm.builtin.check_func_info", check_func_info},
        {"vm.builtin.alloc_storage", alloc_storage},
        {"vm.builtin.alloc_tensor", alloc_tensor},
        {"vm.builtin.make_closure", make_closure},
        {"vm.builtin.invoke_closure", invoke_closure},
        {"vm.builtin.call_tir_dyn", call_tir_dyn},
        {"vm.builtin.make_tuple", make_tuple},
        {"vm.builtin.tuple_getitem", tuple_getitem},
        {"vm.builtin.null_value", null_value},
        {"vm.builtin.read_if_cond", read_if_cond},
        {"vm.builtin.copy", copy},
        {"vm.builtin.shape_of", shape_of},
        {"vm.builtin.reshape", reshape},
        {"vm.builtin.tensor_to_shape", tensor_to_shape},
    };
    for (const auto& [name, body] : table) register_global_func(name, make_packed_func(body, name), /*override=*/true);
  });
}

namespace {
// Start-up registration, so scripts find the builtins before any VM exists.
[[maybe_unused]] const bool kBuiltinsRegistered = (register_vm_builtins(), true);
}  // namespace

}  // namespace tsch::runtime::vm
