#include "runtime/call.h"

#include <cstdint>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <unordered_map>

#include "ir/printer.h"
#include "runtime/array_ops.h"
#include "runtime/packed_call.h"
#include "runtime/workspace.h"
#include "support/checked_size.h"
#include "support/error.h"
#include "support/interrupt.h"

namespace tsch::runtime {
namespace {

using Bindings = std::unordered_map<const ir::VarNode*, int64_t>;

// Evaluates an integer shape expression once its variables are bound.
bool eval_int(const ir::PrimExpr& e, const Bindings& b, int64_t& out) {
  using K = ir::ExprKind;
  if (auto* imm = ir::as<ir::IntImmNode>(e)) {
    out = imm->value;
    return true;
  }
  if (auto* v = ir::as<ir::VarNode>(e)) {
    auto it = b.find(v);
    if (it == b.end()) return false;
    out = it->second;
    return true;
  }
  if (auto* c = ir::as<ir::CastNode>(e)) return eval_int(c->value, b, out);
  if (!ir::is_binary(e->kind)) return false;
  int64_t x, y;
  if (!eval_int(ir::binary_a(e), b, x) || !eval_int(ir::binary_b(e), b, y)) return false;
  switch (e->kind) {
    case K::Add:
      out = x + y;
      return true;
    case K::Sub:
      out = x - y;
      return true;
    case K::Mul:
      out = x * y;
      return true;
    case K::FloorDiv:
      if (y == 0) return false;
      out = x / y - ((x % y != 0) && ((x < 0) != (y < 0)));
      return true;
    case K::FloorMod:
      if (y == 0) return false;
      out = ((x % y) + y) % y;
      return true;
    case K::Div:
      if (y == 0) return false;
      out = x / y;
      return true;
    case K::Min:
      out = std::min(x, y);
      return true;
    case K::Max:
      out = std::max(x, y);
      return true;
    default:
      return false;
  }
}

// The alignment generated code assumes of every buffer argument (LLVM's `align 64`).
constexpr uintptr_t kBufferAlignment = 64;

std::string dtype_text(ir::DataType t) { return t.is_bool() ? "bool" : t.to_string(); }

std::string shape_text(const std::vector<ir::PrimExpr>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + ir::script(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

}  // namespace

void call_compiled(const FunctionSignature& sig, EntryPoint fn, const std::vector<CallArg>& args) {
  size_t n = sig.param_names.size();
  if (args.size() != n)
    throw std::invalid_argument(sig.name + " expects " + std::to_string(n) + " argument" + (n == 1 ? "" : "s") +
                                " but " + std::to_string(args.size()) +
                                (args.size() == 1 ? " was given" : " were given"));
  Bindings bound;
  std::vector<void*> buffers;
  for (size_t i = 0; i < n; ++i) {
    const std::string where = "argument " + std::to_string(i + 1) + " ('" + sig.param_names[i] + "') of " + sig.name;
    if (!sig.buffers[i]) {
      if (args[i].array) throw std::invalid_argument(where + ": expected a scalar, got an array");
      const ir::Var& v = sig.scalar_params[i];
      ir::DataType t = v->dtype;
      if (!t.is_float()) {
        // An integer parameter takes an int that fits its dtype: never a float (truncated),
        // nor a value the kernel would see wrapped (2**31 for an int32).
        if (args[i].is_float)
          throw std::invalid_argument(where + ": expected an int (" + dtype_text(t) + "), got a float");
        int64_t x = args[i].i;
        bool fits = t.bits >= 64 ? (t.code != ir::DataType::Code::UInt || x >= 0)
                    : t.code == ir::DataType::Code::UInt
                        ? x >= 0 && x < (int64_t{1} << t.bits)
                        : x >= -(int64_t{1} << (t.bits - 1)) && x < (int64_t{1} << (t.bits - 1));
        if (t.is_bool()) fits = x == 0 || x == 1;
        if (!fits)
          throw std::invalid_argument(where + ": " + std::to_string(x) + " does not fit its dtype " + dtype_text(t));
      }
      bound[v.get()] = args[i].is_float ? static_cast<int64_t>(args[i].f) : args[i].i;
      continue;
    }
    const BufferParam& p = *sig.buffers[i];
    if (!args[i].array)
      throw std::invalid_argument(where + ": expected an array of shape " + shape_text(p.shape) + ", got a scalar");
    const NDArray& a = *args[i].array;
    if (a.dtype() != p.dtype)
      throw std::invalid_argument(where + ": expected dtype " + dtype_text(p.dtype) + ", got " + dtype_text(a.dtype()));
    if (a.ndim() != static_cast<int>(p.shape.size()))
      throw std::invalid_argument(where + ": expected " + std::to_string(p.shape.size()) + " dimensions, got " +
                                  std::to_string(a.ndim()) + " (shape " + shape_string(a.shape()) + ")");
    buffers.push_back(a.is_dense() ? const_cast<void*>(a.data()) : nullptr);
  }
  // Generated code takes buffers dense and 64-byte aligned (as TVM's; its vector loads rely
  // on it). A strided view (`a.T`, `a[:, 0]`) or one at another offset (`x[1:5]`) runs on a
  // dense, aligned copy, copied back into the view after the call.
  std::vector<std::pair<NDArrayRef, NDArray*>> copies;
  for (size_t i = 0, k = 0; i < n; ++i) {
    if (!sig.buffers[i]) continue;
    void*& data = buffers[k++];
    NDArray& a = *args[i].array;
    if ((data && reinterpret_cast<uintptr_t>(data) % kBufferAlignment == 0) || a.size() == 0) continue;
    NDArrayRef copy = make_array(a.dtype(), a.shape());
    assign(*copy, {}, a);
    copies.emplace_back(copy, &a);
    data = copy->data();
  }
  struct CopyBack {
    std::vector<std::pair<NDArrayRef, NDArray*>>& arrays;
    ~CopyBack() {
      for (auto& [copy, original] : arrays) assign(*original, {}, *copy);
    }
  } copy_back{copies};
  // Shapes: bind variables first, then check every dimension.
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t i = 0; i < n; ++i) {
      if (!sig.buffers[i]) continue;
      const BufferParam& p = *sig.buffers[i];
      const NDArray& a = *args[i].array;
      for (size_t d = 0; d < p.shape.size(); ++d) {
        auto* v = ir::as<ir::VarNode>(p.shape[d]);
        if (pass == 0) {
          if (v && !bound.count(v)) bound[v] = a.shape()[d];
          continue;
        }
        int64_t expected;
        if (!eval_int(p.shape[d], bound, expected))
          throw std::invalid_argument("argument " + std::to_string(i + 1) + " ('" + sig.param_names[i] + "') of " +
                                      sig.name + ": cannot evaluate its shape " + ir::script(p.shape[d]));
        if (expected != a.shape()[d]) {
          std::string what = v ? "dimension " + std::to_string(d) + " is " + v->name + " = " +
                                     std::to_string(expected) + " from an earlier argument"
                               : "expected shape " + shape_text(p.shape);
          throw std::invalid_argument("argument " + std::to_string(i + 1) + " ('" + sig.param_names[i] + "') of " +
                                      sig.name + ": " + what + ", got shape " + shape_string(a.shape()));
        }
      }
    }
  }
  std::vector<int64_t> scalars;
  for (const auto& v : sig.scalar_slots) {
    auto it = bound.find(v.get());
    if (it == bound.end()) throw std::invalid_argument(sig.name + ": no argument binds the variable " + v->name);
    int64_t value = it->second;
    if (v->dtype.is_float()) {
      // Scalar float parameters travel as double bits.
      double d = 0;
      for (size_t i = 0; i < n; ++i)
        if (sig.scalar_params[i] == v) d = args[i].is_float ? args[i].f : static_cast<double>(args[i].i);
      std::memcpy(&value, &d, sizeof d);
    }
    scalars.push_back(value);
  }
  int32_t status = fn(buffers.data(), scalars.data());
  if (status == kStatusPackedCallFailed) {
    if (std::exception_ptr e = take_packed_call_error()) std::rethrow_exception(e);
    throw std::logic_error(sig.name + ": a packed call failed without an error");
  }
  if (status == kStatusInterrupted) {
    clear_interrupt();
    throw Interrupted();
  }
  if (status == kStatusOutOfMemory) {
    int64_t bytes = take_failed_workspace_request();
    throw OutOfMemory("Unable to allocate " + (bytes < 0 ? std::string("more than 2^63") : std::to_string(bytes)) +
                      " bytes of workspace for " + sig.name +
                      " (the kernel stopped; its outputs may be partly written)");
  }
}

DeviceEntry CompiledModule::entry_on(const std::string& name, Device dev) const {
  TSCH_USER_ASSERT(dev.type == DeviceType::CPU, ValueError)
      << name << " is " << type_key() << " code for the cpu, but its arrays are on " << dev.str()
      << " (copy them to the host with tvm.nd.array(x.numpy(), tvm.cpu()))";
  return {entry(name), nullptr};
}

// The device a call's arrays are on (cpu when it has none); all must be on the same one.
static Device device_of_arrays(const FunctionSignature& sig, const std::vector<CallArg>& args) {
  std::optional<Device> dev;
  size_t first = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    if (!args[i].array) continue;
    Device d = args[i].array->device();
    if (!dev) {
      dev = d;
      first = i;
      continue;
    }
    auto name = [&](size_t k) {
      return "argument " + std::to_string(k + 1) +
             (k < sig.param_names.size() ? " ('" + sig.param_names[k] + "')" : std::string());
    };
    TSCH_USER_ASSERT(d == *dev, ValueError)
        << sig.name << ": " << name(i) << " is on " << d.str() << " but " << name(first) << " is on " << dev->str()
        << " (a function's arrays must all be on one device)";
  }
  return dev.value_or(cpu(0));
}

PackedFunc get_function(const CompiledModuleRef& m, const std::string& name) {
  const FunctionSignature* sig = nullptr;
  for (const auto& s : m->functions())
    if (s.name == name) sig = &s;
  if (!sig) return nullptr;
  EntryPoint entry = m->entry(name);
  if (std::string why = m->unavailable(); !why.empty()) {
    return make_packed_func(
        [why](const std::vector<Any>&) -> Any { throw UserError(UserErrorKind::RuntimeError, why); }, name);
  }
  return make_packed_func(
      [m, sig, entry](const std::vector<Any>& args) {
        std::vector<CallArg> converted;
        for (size_t i = 0; i < args.size(); ++i) {
          const Any& a = args[i];
          CallArg c;
          switch (a.kind()) {
            case Any::Kind::NDArray:
              c.array = a.as_ndarray().get();
              break;
            case Any::Kind::Float:
              c.is_float = true;
              c.f = a.as_float();
              break;
            case Any::Kind::Int:
            case Any::Kind::Bool:
              c.i = a.as_int();
              break;
            default:
              TSCH_USER_ASSERT(false, TypeError) << "argument " << i + 1 << " of " << sig->name
                                                 << ": expected a tvm.nd.NDArray or a number, got " << a.type_name();
          }
          converted.push_back(c);
        }
        Device dev = device_of_arrays(*sig, converted);
        DeviceEntry run =
            dev.type == DeviceType::CPU && entry ? DeviceEntry{entry, nullptr} : m->entry_on(sig->name, dev);
        ScopedKernelLauncher launcher(run.launcher.get());
        try {
          call_compiled(*sig, run.entry, converted);
        } catch (const std::invalid_argument& e) {
          if (args.size() != sig->param_names.size()) throw UserError(UserErrorKind::TypeError, e.what());
          throw UserError(UserErrorKind::ValueError, e.what());
        }
        return Any();
      },
      name);
}

}  // namespace tsch::runtime

namespace tsch::runtime {

PackedFunc get_function(const Module& m, const std::string& name, bool query_imports) {
  if (PackedFunc f = get_function(m->code, name)) return f;
  if (!query_imports) return nullptr;
  for (const Module& imported : m->imports) {
    if (PackedFunc f = get_function(imported, name, true)) return f;
  }
  return nullptr;
}

}  // namespace tsch::runtime
