#include "driver/differential.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>

#include "driver/build.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "runtime/call.h"
#include "support/checked_size.h"
#include "support/error.h"
#include "transform/pass.h"
#include "transform/pipeline.h"

namespace tsch::driver {
namespace {

// Every build of the check fills its allocations with NaN / -1 bytes when entered: a
// candidate that reads an intermediate before writing it differs from the reference instead
// of reading what the reference's run left in the same memory.
BuildOptions checking_options() {
  BuildOptions o;
  o.poison_allocations = true;
  return o;
}

// Random arrays for a function's buffer parameters; nullopt when a shape is neither constant
// nor a plain variable. A symbolic dimension (`n = T.int32()`, bound from the arguments at the
// call) gets a size from the seed, 1 to 23, the same wherever the variable appears, so that
// both sides run on the same odd, small and sometimes degenerate shapes.
std::optional<std::vector<runtime::NDArrayRef>> make_inputs(const ir::PrimFunc& f, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<runtime::NDArrayRef> out;
  std::vector<std::pair<const ir::VarNode*, int64_t>> symbolic;
  for (const auto& p : f->params) {
    ir::Buffer b = f->buffer_of(p);
    if (!b) return std::nullopt;
    runtime::Shape shape;
    for (const auto& d : b->shape) {
      int64_t v;
      if (auto* var = ir::as<ir::VarNode>(d)) {
        auto known = std::find_if(symbolic.begin(), symbolic.end(), [&](const auto& e) { return e.first == var; });
        if (known == symbolic.end()) {
          v = 1 + static_cast<int64_t>((seed * 7 + symbolic.size() * 5) % 23);
          symbolic.emplace_back(var, v);
        } else {
          v = known->second;
        }
      } else if (!ir::as_const_int(d, &v)) {
        return std::nullopt;
      }
      shape.push_back(v);
    }
    if (!runtime::is_array_dtype(b->dtype)) return std::nullopt;
    auto a = runtime::make_array(b->dtype, shape);
    for (int64_t i = 0; i < a->size(); ++i) {
      if (b->dtype.is_float())
        a->set_f(i, std::uniform_real_distribution<double>(-1, 1)(rng));
      else if (b->dtype.is_bool())
        a->set_i(i, rng() & 1);
      else
        a->set_i(i, static_cast<int64_t>(rng() % 7) - (b->dtype.is_int() ? 3 : 0));
    }
    out.push_back(a);
  }
  return out;
}

// The fewest mantissa bits of a floating-point value a function stores (52 when it stores
// none narrower than float64).
int narrowest_mantissa(const ir::PrimFunc& f) {
  struct Stores : ir::IRVisitor {
    int bits = 52;
    void visit_BufferStore(const ir::BufferStoreNode& store) override {
      if (store.buffer->dtype.is_float()) {
        const ir::DataType& t = store.buffer->dtype;
        int mantissa = t.code == ir::DataType::Code::Float8E4M3FN ? 3
                       : t.code == ir::DataType::Code::Float8E5M2 ? 2
                       : t.code == ir::DataType::Code::BFloat     ? 7
                       : t.bits == 16                             ? 10
                       : t.bits == 32                             ? 23
                                                                  : 52;
        bits = std::min(bits, mantissa);
      }
      ir::IRVisitor::visit_BufferStore(store);
    }
  } stores;
  stores.visit(f->body);
  return stores.bits;
}

void run(const runtime::CompiledModuleRef& m, const std::string& name, const std::vector<runtime::NDArrayRef>& arrays) {
  for (const auto& sig : m->functions()) {
    if (sig.name != name) continue;
    std::vector<runtime::CallArg> args;
    for (const auto& a : arrays) args.push_back(runtime::CallArg{a.get()});
    runtime::call_compiled(sig, m->entry(name), args);
  }
}

bool has_thread_binding(const ir::IRModule& m) {
  bool found = false;
  for (const auto& [name, f] : m->prim_funcs())
    ir::for_each_stmt(f->body, [&](const ir::Stmt& s) {
      if (auto* loop = ir::as<ir::ForNode>(s)) found |= loop->for_kind == ir::ForKind::ThreadBinding;
    });
  return found;
}

// The reference of a schedule stays the same across its primitives: build it once.
runtime::CompiledModuleRef build_cached(const ir::IRModule& m, const target::Target& target) {
  static std::vector<std::pair<std::weak_ptr<const ir::IRModuleNode>, runtime::CompiledModuleRef>> cache;
  for (auto& [key, built] : cache)
    if (auto live = key.lock(); live && live == m) return built;
  cache.erase(std::remove_if(cache.begin(), cache.end(), [](auto& e) { return e.first.expired(); }), cache.end());
  auto built = build(m, target, checking_options());
  cache.emplace_back(m, built);
  return built;
}

}  // namespace

DifferentialResult compare_execution(const ir::IRModule& reference, const ir::IRModule& candidate, uint32_t seed) {
  DifferentialResult result;
  // The check is about semantics; O0 keeps it quick. Notes are for tvm.build's user, not for
  // this check (BuildOptions drops them).
  static const target::Target target = target::parse_target("llvm -opt-level=0");
  // TSCH_CHECK_BUILD_TARGET=c builds the candidate as C instead: the C code generator then
  // answers to the LLVM one on every step of the schedule cases.
  static const target::Target candidate_target = [] {
    const char* kind = std::getenv("TSCH_CHECK_BUILD_TARGET");
    return kind && *kind ? target::parse_target(kind) : target;
  }();
  // TSCH_CHECK_BUILD_REFERENCE=c builds the reference as C: with the candidate built by LLVM
  // at full optimization (TSCH_CHECK_BUILD_TARGET=llvm), the llvm-vs-c mode, which finds what
  // LLVM's optimizations make of the alias and lifetime facts tsch gives it.
  static const target::Target reference_target = [] {
    const char* kind = std::getenv("TSCH_CHECK_BUILD_REFERENCE");
    return kind && *kind ? target::parse_target(kind) : target;
  }();
  // A module bound to GPU threads is built for CUDA and run on the CPU emulation; one the CUDA
  // build refuses (a step on the way to a complete GPU schedule) is not compared.
  runtime::CompiledModuleRef cand, cand_reversed;
  if (has_thread_binding(candidate)) {
    // Its CPU emulation at O0, as the other builds of this check.
    static const target::Target cuda = [] {
      auto t = std::make_shared<target::TargetNode>(*target::parse_target("cuda -arch=sm_80"));
      t->host = target;
      return target::Target(t);
    }();
    try {
      cand = build(candidate, cuda, checking_options());
      BuildOptions reversed = checking_options();
      reversed.reverse_thread_order = true;
      cand_reversed = build(candidate, cuda, reversed);
    } catch (const tsch::UserError& e) {
      result.note = std::string("the module binds loops to GPU threads and does not build for CUDA yet: ") + e.what();
      return result;
    } catch (const runtime::BuildError& e) {
      result.note = std::string("the module binds loops to GPU threads and does not build for CUDA yet: ") + e.what();
      return result;
    }
  } else {
    // A step whose module the target cannot build for a stated reason — a feature tsch does
    // not support yet (axis separators, LLVM intrinsics in C), or an instruction the target
    // CPU lacks — is not compared, as a GPU step that does not build yet; the user's
    // tvm.build reports the same refusal.
    auto stated = [](const std::string& what) {
      return what.find("not supported yet") != std::string::npos ||
             what.find("needs the CPU feature") != std::string::npos;
    };
    try {
      cand = build(candidate, candidate_target, checking_options());
    } catch (const tsch::UserError& e) {
      if (!stated(e.what())) throw;
      result.note = std::string("the module does not build for ") + candidate_target->str() + ": " + e.what();
      result.equal = true;
      return result;
    } catch (const runtime::BuildError& e) {
      if (!stated(e.what())) throw;
      result.note = std::string("the module does not build for ") + candidate_target->str() + ": " + e.what();
      result.equal = true;
      return result;
    }
  }
  // A reference built for another target than the default (TSCH_CHECK_BUILD_REFERENCE=c) may
  // be refused for a stated reason (float8 in C): then there is nothing to compare with.
  runtime::CompiledModuleRef ref;
  try {
    ref = build_cached(reference, reference_target);
  } catch (const std::exception& e) {
    bool stated = std::string(e.what()).find("not supported yet") != std::string::npos;
    if (reference_target == target || !stated ||
        (!dynamic_cast<const tsch::UserError*>(&e) && !dynamic_cast<const runtime::BuildError*>(&e)))
      throw;
    result.note = std::string("the reference does not build for ") + reference_target->str() + ": " + e.what();
    result.equal = true;
    return result;
  }
  auto candidates = candidate->prim_funcs();
  auto references = reference->prim_funcs();
  for (const auto& [name, f] : references) {
    ir::PrimFunc g = candidate->prim_func(name);
    std::string candidate_name = name;
    // One function on each side is compared whatever its name (a PrimFunc is "main" in a
    // schedule's module but keeps its own name in tvm.lower's).
    if (!g && references.size() == 1 && candidates.size() == 1) {
      candidate_name = candidates.front().first;
      g = candidates.front().second;
    }
    if (!g) continue;
    auto inputs = make_inputs(f, seed);
    auto other = make_inputs(g, seed);
    bool same_signature = inputs && other && inputs->size() == other->size();
    for (size_t i = 0; same_signature && i < inputs->size(); ++i)
      same_signature = (*inputs)[i]->shape() == (*other)[i]->shape() && (*inputs)[i]->dtype() == (*other)[i]->dtype();
    if (inputs && !same_signature) {
      result.note = name + " changed its parameters' shapes (transform_layout of a parameter)";
      continue;
    }
    if (!inputs) {
      result.note = name + " has a symbolic or unsupported parameter";
      continue;
    }
    // A schedule that keeps values in a narrower float type (unsafe_set_dtype) is compared
    // to the precision of that type: 8 units in its last place, relative and absolute.
    // Two code generators (llvm-vs-c) may round a narrow float type's arithmetic differently
    // (per operation, or once at the store): the same tolerance, for the narrowest type used.
    double tolerance = 1e-4;
    bool same_codegen = cand_reversed || candidate_target->kind == reference_target->kind;
    if (int bits = narrowest_mantissa(g); bits < narrowest_mantissa(f) || !same_codegen)
      tolerance = std::max(tolerance, std::ldexp(8.0, -std::min(bits, narrowest_mantissa(f))));
    std::vector<runtime::NDArrayRef> a;
    for (const auto& x : *inputs) a.push_back(x->copy());
    run(ref, name, a);
    // GPU code: the threads of each block in both orders.
    for (const auto& [built, order] :
         {std::pair{cand, ""}, std::pair{cand_reversed, " (the threads of each block in reverse order)"}}) {
      if (!built) continue;
      std::vector<runtime::NDArrayRef> b;
      for (const auto& x : *inputs) b.push_back(x->copy());
      run(built, candidate_name, b);
      result.compared = true;
      for (size_t p = 0; p < a.size(); ++p) {
        for (int64_t i = 0; i < a[p]->size(); ++i) {
          double x = a[p]->get_f(i), y = b[p]->get_f(i);
          if (std::fabs(x - y) <= tolerance * (1 + std::fabs(x)) || (std::isnan(x) && std::isnan(y))) continue;
          result.equal = false;
          result.note = name + ": parameter " + f->params[p]->name + " differs at flat index " + std::to_string(i) +
                        ": " + std::to_string(x) + " before, " + std::to_string(y) + " after" + order;
          return result;
        }
      }
    }
  }
  return result;
}

// With TSCH_CHECK_BUILT=1 (the llvm-vs-c mode over the build goldens), every module built for
// an llvm target is also built as the check's reference (C, TSCH_CHECK_BUILD_REFERENCE=c) and
// both run on the same random inputs: what LLVM's optimizations make of the alias facts tsch
// gives it shows as a difference. A module the random inputs make fail (an index out of
// range) is not compared.
void check_built(const ir::IRModule& mod, const target::Target& target) {
  static const bool enabled = std::getenv("TSCH_CHECK_BUILT") != nullptr;
  if (!enabled || target->kind->name != "llvm" || !mod->has_only_prim_funcs()) return;
  DifferentialResult r;
  // Built under a context of its own: the user's instruments (print_after_all, a pass
  // counter) do not see the check's builds.
  transform::PassContext::enter(std::make_shared<transform::PassContext>());
  try {
    r = compare_execution(mod, mod);
  } catch (const UserError&) {
  } catch (const runtime::BuildError&) {
  } catch (const tsch::OutOfMemory&) {
  } catch (...) {
    transform::PassContext::exit();
    throw;
  }
  transform::PassContext::exit();
  if (!r.equal)
    throw UserError(UserErrorKind::RuntimeError,
                    "TSCH_CHECK_BUILT: llvm and the reference compute different results: " + r.note);
}

}  // namespace tsch::driver
