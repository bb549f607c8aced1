// tir.InjectSoftwarePipeline: a loop annotated "software_pipeline_stage" (one stage per
// statement of its body) runs statement j of iteration i at pipeline step i + stage[j], the
// statements of a step in "software_pipeline_order": a prologue fills the pipeline, the
// steady-state loop runs every statement, an epilogue drains it. A buffer written in stage s
// and read in stage s' > s gets s' - s + 1 versions (a leading dimension indexed by the
// iteration modulo the count), so a step's writers never overwrite what a later stage has
// still to read: double buffering.
//
// "software_pipeline_async_stages" (in a GPU kernel) makes the copies of those stages from
// global to shared memory asynchronous (TVM's async pipeline with InjectPTXAsyncCopy): each
// becomes T.ptx_cp_async, a step's copies of one stage are one commit group
// (T.ptx_commit_group()), and the first reader of their results waits until at most as many
// later groups as it may leave in flight are pending (T.ptx_wait_group(n)), then a barrier
// makes every thread's copies visible.
//
// Refused, as changing what the loop computes: dependences the schedule would reorder (a
// buffer written in a later stage than a reader, two writers in different stages, same-stage
// statements reordered across a dependence), a versioned buffer used outside the loop.
#include <algorithm>
#include <map>
#include <numeric>
#include <unordered_map>
#include <unordered_set>

#include "arith/simplify.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "support/error.h"
#include "transform/buffer_rewrite.h"
#include "transform/pass.h"
#include "transform/wmma_fragments.h"

namespace tsch::transform {
namespace {

using namespace ir;

struct Accesses {
  std::unordered_set<const BufferNode*> reads, writes;
};

// Loads and stores, and the buffers of `by_data` reached through their pointer: an access_ptr
// reads or writes as its mask says; another use of the pointer (a tensor-core fragment) both.
Accesses accesses_of(const Stmt& s, const std::unordered_map<const VarNode*, const BufferNode*>* by_data = nullptr) {
  Accesses a;
  for_each_expr(s, [&](const PrimExpr& e) {
    if (auto* l = as<BufferLoadNode>(e)) a.reads.insert(l->buffer.get());
    if (!by_data) return;
    int64_t mask = 0;
    if (auto* p = as<CallNode>(e);
        p && p->op == "tvm_access_ptr" && p->args.size() == 5 && as_const_int(p->args[4], &mask)) {
      auto it = by_data->find(as<VarNode>(p->args[1]));
      if (it == by_data->end()) return;
      if (mask & 1) a.reads.insert(it->second);
      if (mask & 2) a.writes.insert(it->second);
      return;
    }
    if (auto* c = as<CallNode>(e)) {
      // The tensor-core builtins write their first fragment (mma_sync: d) and read the others
      // (a store reads its fragment).
      bool wmma = is_wmma_call(*c);
      for (size_t k = 0; k < c->args.size(); ++k) {
        if (c->op == "tvm_access_ptr" && k == 1) continue;
        auto it = by_data->find(as<VarNode>(c->args[k]));
        if (it == by_data->end()) continue;
        bool written = !wmma || (k == 0 && c->op != "tvm_store_matrix_sync");
        bool read = !wmma || k > 0 || c->op == "tvm_store_matrix_sync";
        if (read) a.reads.insert(it->second);
        if (written) a.writes.insert(it->second);
      }
    }
  });
  for_each_stmt(s, [&](const Stmt& x) {
    if (auto* st = as<BufferStoreNode>(x)) a.writes.insert(st->buffer.get());
  });
  return a;
}

std::vector<int64_t> int_list(const AttrValue& v, const std::string& key, const std::string& loop) {
  std::vector<int64_t> out;
  bool ok = v.kind == AttrValue::Kind::Array;
  for (const AttrValue& x : v.array) {
    ok = ok && (x.kind == AttrValue::Kind::Int || (x.kind == AttrValue::Kind::Expr && as<IntImmNode>(x.expr)));
    if (ok) out.push_back(x.kind == AttrValue::Kind::Int ? x.i : as<IntImmNode>(x.expr)->value);
  }
  TSCH_USER_ASSERT(ok, TypeError) << "the annotation \"" << key << "\" of loop " << loop
                                  << " must be a list of integers";
  return out;
}

// The element offset of `indices` in the memory of `b` (its strides, else row-major).
PrimExpr flat_offset(const Buffer& b, const std::vector<PrimExpr>& indices) {
  DataType t = indices.empty() ? DataType::int32() : indices[0]->dtype;
  PrimExpr offset = b->elem_offset ? b->elem_offset : make_int(0, t);
  PrimExpr stride = make_int(1, t);
  for (size_t k = indices.size(); k-- > 0;) {
    PrimExpr s = b->strides.empty() ? stride : b->strides[k];
    offset = add(offset, mul(indices[k], s));
    if (b->strides.empty()) stride = mul(stride, b->shape[k]);
  }
  return arith::simplify(offset);
}

// Copies of global memory into shared memory in an asynchronous stage: T.ptx_cp_async of each
// element (VectorizeLoop merges a vectorized loop's into one copy of up to 16 bytes). Other
// statements of the stage stay synchronous; elements under 4 bytes too (cp.async's smallest).
class AsyncCopyRewriter : public IRMutator {
 public:
  // Elements of under 4 bytes (halves) are copied asynchronously only as the body of a
  // vectorized loop whose lanes make 8 or 16 bytes: VectorizeLoop merges them into one copy
  // (unmerged, CUDA C refuses the copy's size at build).
  Stmt mutate_For(const ForNode& loop, const Stmt& self) override {
    int64_t lanes = 0;
    if (loop.for_kind != ForKind::Vectorized || !as_const_int(loop.extent, &lanes))
      return IRMutator::mutate_For(loop, self);
    VectorBody outer = vector_body_;
    vector_body_ = {loop.body.get(), lanes};
    Stmt out = IRMutator::mutate_For(loop, self);
    vector_body_ = outer;
    return out;
  }

  Stmt mutate_BufferStore(const BufferStoreNode& n, const Stmt& self) override {
    int64_t lanes_here = self.get() == vector_body_.stmt ? vector_body_.lanes : 0;
    Stmt t = IRMutator::mutate_BufferStore(n, self);
    auto* st = as<BufferStoreNode>(t);
    if (st->buffer->scope.rfind("shared", 0) != 0) return t;
    auto* load = as<BufferLoadNode>(st->value);
    if (!load || load->buffer->scope != "global" || load->dtype != st->buffer->dtype || load->dtype.lanes != 1)
      return t;
    int bytes = load->dtype.bits / 8;
    bool merged = bytes < 4 && (lanes_here * bytes == 8 || lanes_here * bytes == 16);
    if (bytes != 4 && bytes != 8 && bytes != 16 && !merged) return t;
    ++copies;
    return std::make_shared<EvaluateNode>(
        call(load->dtype, "ptx_cp_async",
             {PrimExpr(st->buffer->data), flat_offset(st->buffer, st->indices), PrimExpr(load->buffer->data),
              flat_offset(load->buffer, load->indices), make_int(bytes)}));
  }
  int copies = 0;

 private:
  // The body of the innermost vectorized loop (only a store that is that body is merged).
  struct VectorBody {
    const StmtNode* stmt = nullptr;
    int64_t lanes = 0;
  } vector_body_;
};

Stmt evaluate(const std::string& op, std::vector<PrimExpr> args) {
  return std::make_shared<EvaluateNode>(call(DataType::int32(), op, std::move(args)));
}

class PipelineInjector : public IRMutator {
 public:
  Stmt mutate_For(const ForNode& f, const Stmt& self) override {
    if (f.for_kind == ForKind::ThreadBinding) {
      ++thread_depth_;
      Stmt out = IRMutator::mutate_For(f, self);
      --thread_depth_;
      return out;
    }
    Stmt t = IRMutator::mutate_For(f, self);
    auto* loop = as<ForNode>(t);
    if (!find_attr(loop->annotations, "software_pipeline_stage")) return t;
    return Pipeline(*this, *loop).run();
  }
  Stmt mutate_Allocate(const AllocateNode& n, const Stmt& self) override {
    Stmt t = IRMutator::mutate_Allocate(n, self);
    return reallocate(t, as<AllocateNode>(t));
  }

 private:
  struct Versioned {
    Buffer buffer;  // with the leading version dimension
    int64_t versions;
    std::string loop;
  };

  // An allocation of a buffer the pipeline versioned allocates the versioned buffer instead.
  Stmt reallocate(const Stmt& s, const AllocateNode* alloc) {
    auto it = versioned_.find(alloc->buffer.get());
    if (it == versioned_.end()) return s;
    Accesses left = accesses_of(alloc->body);
    TSCH_USER_ASSERT(!left.reads.count(alloc->buffer.get()) && !left.writes.count(alloc->buffer.get()),
                     NotImplementedError)
        << "not supported yet: the buffer " << alloc->buffer->name << " has " << it->second.versions
        << " versions in the software pipeline of loop " << it->second.loop << " and is used outside that loop too";
    return std::make_shared<AllocateNode>(it->second.buffer, alloc->body);
  }

  static void flatten(const Stmt& s, std::vector<Stmt>& stmts, std::vector<Buffer>& allocs) {
    if (auto* a = as<AllocateNode>(s)) {
      allocs.push_back(a->buffer);
      flatten(a->body, stmts, allocs);
    } else if (auto* seq = as<SeqStmtNode>(s)) {
      for (const Stmt& x : seq->seq) flatten(x, stmts, allocs);
    } else {
      stmts.push_back(s);
    }
  }

  // Pointers into a versioned buffer (an access_ptr) point into the iteration's version.
  class VersionedPointer : public IRMutator {
   public:
    VersionedPointer(const BufferNode* old, Buffer now, PrimExpr version)
        : old_(old), now_(std::move(now)), version_(std::move(version)) {
      const Buffer& b = now_;  // [versions, ...]
      size_ = b->strides.empty() ? make_int(1) : cast(DataType::int32(), b->strides[0]);
      if (b->strides.empty())
        for (size_t i = 1; i < b->shape.size(); ++i) size_ = mul(size_, cast(DataType::int32(), b->shape[i]));
      size_ = arith::simplify(size_);
    }
    PrimExpr mutate_Call(const CallNode& p, const PrimExpr& self) override {
      if (p.op != "tvm_access_ptr" || p.args.size() != 5 || p.args[1].get() != old_->data.get())
        return IRMutator::mutate_Call(p, self);
      std::vector<PrimExpr> args = p.args;
      args[1] = now_->data;
      args[2] = arith::simplify(add(mul(cast(args[2]->dtype, version_), cast(args[2]->dtype, size_)), mutate(args[2])));
      return std::make_shared<CallNode>(p.dtype, p.op, args);
    }
    PrimExpr mutate_Var(const VarNode& v, const PrimExpr& self) override {
      TSCH_USER_ASSERT(&v != old_->data.get(), NotImplementedError)
          << "not supported yet: software pipelining gives " << old_->name
          << " versions, and its pointer is used other than through access_ptr";
      return self;
    }

   private:
    const BufferNode* old_;
    Buffer now_;
    PrimExpr version_, size_;
  };

  static Buffer with_versions(const Buffer& b, int64_t versions) {
    std::vector<PrimExpr> shape = b->shape;
    DataType t = shape.empty() ? DataType::int32() : shape[0]->dtype;
    shape.insert(shape.begin(), make_int(versions, t));
    Buffer nb = buffer_with(b, b->name, shape, b->scope);
    if (!b->strides.empty()) {
      auto node = std::const_pointer_cast<BufferNode>(nb);
      PrimExpr size = arith::simplify(mul(b->shape[0], b->strides[0]));
      node->strides.insert(node->strides.begin(), size);
    }
    return nb;
  }

  // One pipelined loop. Step 1 checks the annotations and the dependences and plans the
  // buffers' versions and the asynchronous commit groups; Step 2 emits the prologue, the
  // steady-state loop and the epilogue.
  class Pipeline {
   public:
    Pipeline(PipelineInjector& injector, const ForNode& loop)
        : injector_(injector), loop_(loop), name_(loop.loop_var->name), it_(loop.loop_var->dtype) {}

    Stmt run() {
      // Step 1. Check.
      read_annotations();
      plan_versions();
      plan_async();
      // Step 2. Rewrite.
      return emit();
    }

   private:
    void refuse(const std::string& why) const {
      TSCH_USER_ASSERT(false, ValueError) << "cannot software-pipeline loop " << name_ << ": " << why;
    }

    // The statements and their stages, order and asynchronous stages; the loop's range.
    void read_annotations() {
      stage_ = int_list(*find_attr(loop_.annotations, "software_pipeline_stage"), "software_pipeline_stage", name_);
      flatten(loop_.body, stmts_, hoisted_);
      n_ = stmts_.size();
      TSCH_USER_ASSERT(stage_.size() == n_, ValueError)
          << "software_pipeline_stage of loop " << name_ << " gives " << stage_.size()
          << " stages, but the loop body has " << n_ << " statements (one stage per statement)";
      order_.resize(n_);
      std::iota(order_.begin(), order_.end(), 0);
      if (const AttrValue* o = find_attr(loop_.annotations, "software_pipeline_order"))
        order_ = int_list(*o, "software_pipeline_order", name_);
      std::vector<int64_t> sorted = order_;
      std::sort(sorted.begin(), sorted.end());
      bool permutation = sorted.size() == n_;
      for (size_t j = 0; permutation && j < n_; ++j) permutation = sorted[j] == static_cast<int64_t>(j);
      TSCH_USER_ASSERT(permutation, ValueError)
          << "software_pipeline_order of loop " << name_ << " must be a permutation of 0.." << n_ - 1;
      for (int64_t s : stage_)
        TSCH_USER_ASSERT(s >= 0, ValueError) << "software_pipeline_stage of loop " << name_ << " has a negative stage";
      if (const AttrValue* a = find_attr(loop_.annotations, "software_pipeline_async_stages")) {
        for (int64_t s : int_list(*a, "software_pipeline_async_stages", name_)) async_.insert(s);
      }
      if (injector_.thread_depth_ == 0) async_.clear();  // on a CPU the copies are plain stores anyway
      TSCH_USER_ASSERT(as_const_int(loop_.min, &min_) && as_const_int(loop_.extent, &extent_), NotImplementedError)
          << "not supported yet: software pipelining loop " << name_ << " of a symbolic range";
      TSCH_USER_ASSERT(loop_.for_kind == ForKind::Serial, ValueError)
          << "software pipelining needs a serial loop; loop " << name_ << " is not";
      max_stage_ = *std::max_element(stage_.begin(), stage_.end());
    }

    // Dependences: what the pipeline may reorder, and what needs versions. The versioned
    // buffers, and the body's own allocations, which move out of the loop (a versioned one
    // takes its versions).
    void plan_versions() {
      for (const Stmt& s : stmts_) acc_.push_back(accesses_of(s, &injector_.by_data_));
      std::unordered_map<const BufferNode*, Buffer> buffer_of;
      for (const Stmt& s : stmts_) {
        for_each_stmt(s, [&](const Stmt& x) {
          if (auto* st = as<BufferStoreNode>(x)) buffer_of[st->buffer.get()] = st->buffer;
        });
      }
      for (const Buffer& b : hoisted_) buffer_of.emplace(b.get(), b);
      for (const auto& [data, b] : injector_.buffers_) buffer_of.emplace(b.get(), b);
      for (size_t w = 0; w < n_; ++w) {
        for (const BufferNode* b : acc_[w].writes) {
          for (size_t r = 0; r < n_; ++r) {
            if (r == w || (!acc_[r].reads.count(b) && !acc_[r].writes.count(b))) continue;
            check_dependence(w, r, b);
            if (stage_[r] != stage_[w]) versions_[b] = std::max(versions_[b], stage_[r] - stage_[w] + 1);
          }
        }
      }
      for (const auto& [b, v] : versions_) {
        Buffer nb = with_versions(buffer_of.at(b), v);
        multi_[b] = nb;
        injector_.versioned_[b] = {nb, v, name_};
      }
      for (const Buffer& b : hoisted_) {
        if (multi_.count(b.get())) {
          allocs_.push_back(multi_.at(b.get()));
          injector_.versioned_.erase(b.get());
        } else {
          allocs_.push_back(b);
        }
      }
    }

    // Statement w writes b, which statement r uses: refused where the pipeline would reorder them.
    void check_dependence(size_t w, size_t r, const BufferNode* b) const {
      std::string what = "statement " + std::to_string(w) + " (stage " + std::to_string(stage_[w]) + ") writes " +
                         b->name + ", which statement " + std::to_string(r) + " (stage " + std::to_string(stage_[r]) +
                         ")";
      if (stage_[r] == stage_[w]) {
        if ((w < r) != (order_[w] < order_[r])) refuse(what + " also uses, but software_pipeline_order swaps them");
        return;
      }
      if (acc_[r].writes.count(b)) refuse(what + " writes too");
      if (stage_[r] < stage_[w]) refuse(what + " reads in an earlier stage");
      if (r < w) refuse(what + " reads before it in the loop body (a value of the previous iteration)");
      if (acc_[w].reads.count(b))
        refuse(what + " reads, but the writer also reads it (a value of the previous iteration)");
      if (!injector_.allocated_.count(b))
        refuse(what + " reads in a later stage, and " + b->name +
               " is not allocated by the function: it cannot be given versions");
    }

    // The statements in order; which async stage each statement reads results of (the first
    // reader of a step waits); one commit group per asynchronous stage and step.
    void plan_async() {
      by_order_.resize(n_);
      std::iota(by_order_.begin(), by_order_.end(), 0);
      std::sort(by_order_.begin(), by_order_.end(), [&](size_t a, size_t b) { return order_[a] < order_[b]; });
      consumes_.assign(n_, -1);
      for (size_t r = 0; r < n_; ++r) {
        for (size_t w = 0; w < n_; ++w) {
          if (w == r || !async_.count(stage_[w])) continue;
          for (const BufferNode* b : acc_[w].writes) {
            if (!acc_[r].reads.count(b)) continue;
            if (consumes_[r] >= 0 && consumes_[r] != stage_[w])
              refuse("statement " + std::to_string(r) + " reads the results of two asynchronous stages");
            consumes_[r] = stage_[w];
          }
        }
      }
      // Its statements adjacent in the order.
      for (int64_t p : async_) {
        int runs = 0;
        bool in = false;
        for (size_t j : by_order_) {
          bool mine = stage_[j] == p;
          if (mine && !in) ++runs;
          in = mine;
        }
        TSCH_USER_ASSERT(runs <= 1, NotImplementedError)
            << "not supported yet: the statements of asynchronous stage " << p << " of loop " << name_
            << " separated by others in software_pipeline_order (one commit group per step)";
      }
    }

    std::string sync_scope(size_t r) const {
      for (size_t w = 0; w < n_; ++w) {
        if (!async_.count(stage_[w])) continue;
        for (const BufferNode* b : acc_[w].writes)
          if (acc_[r].reads.count(b) && b->scope == "shared.dyn") return std::string("shared.dyn");
      }
      return std::string("shared");
    }

    // Statement j of iteration i (an expression), its versioned buffers indexed by i.
    Stmt instance(size_t j, const PrimExpr& i) const {
      std::unordered_map<const VarNode*, PrimExpr> vmap{{loop_.loop_var.get(), i}};
      Stmt s = fresh_allocations(substitute(stmts_[j], vmap));
      for (const auto& [b, nb] : multi_) {
        PrimExpr version = arith::simplify(floormod(sub(i, make_int(min_, it_)), make_int(versions_.at(b), it_)));
        s = redirect_buffer(s, b, nb, [version](const std::vector<PrimExpr>& idx) {
          std::vector<PrimExpr> out{version};
          out.insert(out.end(), idx.begin(), idx.end());
          return out;
        });
        s = VersionedPointer(b, nb, version).mutate(s);
      }
      if (async_.count(stage_[j])) {
        AsyncCopyRewriter rewrite;
        s = rewrite.mutate(s);
      }
      return s;
    }

    // One step t (a constant, or the steady-state loop's variable): the statements whose
    // iteration t - stage is in range, in order.
    std::vector<Stmt> step(const PrimExpr& t, bool steady) {
      std::vector<Stmt> out;
      // In the steady state the previous step committed each stage's iteration t - 1 - stage.
      if (steady) {
        for (int64_t p : async_) head_[p] = arith::simplify(sub(t, make_int(1 + p, it_)));
      }
      // The iteration each stage's results were last waited for in this step.
      std::map<int64_t, PrimExpr> waited;
      for (size_t k = 0; k < n_; ++k) {
        size_t j = by_order_[k];
        PrimExpr i = arith::simplify(sub(t, make_int(stage_[j], it_)));
        int64_t ic;
        if (!steady && as_const_int(i, &ic) && (ic < min_ || ic >= min_ + extent_)) continue;
        int64_t newer = 1;
        if (consumes_[j] >= 0 && waited.count(consumes_[j]) &&
            !as_const_int(arith::simplify(sub(i, waited.at(consumes_[j]))), &newer))
          newer = 1;
        if (consumes_[j] >= 0 && newer > 0 && head_.count(consumes_[j])) {
          waited[consumes_[j]] = i;
          int64_t in_flight = 0;
          PrimExpr diff = arith::simplify(sub(head_.at(consumes_[j]), i));
          if (!as_const_int(diff, &in_flight) || in_flight < 0) in_flight = 0;
          out.push_back(evaluate("ptx_wait_group", {make_int(in_flight)}));
          out.push_back(evaluate("tvm_storage_sync", {std::make_shared<StringImmNode>(sync_scope(j))}));
        }
        out.push_back(instance(j, i));
        bool last_of_group = async_.count(stage_[j]) && (k + 1 == n_ || stage_[by_order_[k + 1]] != stage_[j]);
        if (last_of_group) {
          out.push_back(evaluate("ptx_commit_group", {}));
          head_[stage_[j]] = i;
        }
      }
      return out;
    }

    // The prologue, the steady-state loop and the epilogue, under the hoisted allocations.
    Stmt emit() {
      std::vector<Stmt> body;
      int64_t steady_begin = min_ + max_stage_, steady_end = min_ + extent_;
      for (int64_t t = min_; t < std::min(steady_begin, min_ + extent_ + max_stage_); ++t) {
        if (t >= steady_begin && t < steady_end) break;
        for (Stmt& s : step(make_int(t, it_), false)) body.push_back(std::move(s));
      }
      if (steady_end > steady_begin) {
        Var t = make_var(name_, it_);
        std::vector<Stmt> steady = step(PrimExpr(t), true);
        auto f = std::make_shared<ForNode>(t, make_int(steady_begin, it_), make_int(steady_end - steady_begin, it_),
                                           ForKind::Serial, make_seq(std::move(steady)));
        f->annotations = loop_.annotations;
        for (const char* key : {"software_pipeline_stage", "software_pipeline_order", "software_pipeline_async_stages"})
          erase_attr(f->annotations, key);
        body.push_back(f);
        // After the loop, each stage's head is its last iteration.
        for (auto& [p, h] : head_) h = arith::simplify(substitute(h, {{t.get(), make_int(steady_end - 1, it_)}}));
      }
      for (int64_t t = std::max(steady_begin, steady_end); t < min_ + extent_ + max_stage_; ++t) {
        for (Stmt& s : step(make_int(t, it_), false)) body.push_back(std::move(s));
      }
      Stmt out = make_seq(std::move(body));
      for (size_t k = allocs_.size(); k-- > 0;) out = std::make_shared<AllocateNode>(allocs_[k], out);
      return out;
    }

    PipelineInjector& injector_;
    const ForNode& loop_;
    const std::string& name_;
    DataType it_;
    // Step 1: the annotations, the dependences, the plan.
    std::vector<int64_t> stage_, order_;
    std::vector<Stmt> stmts_;
    std::vector<Buffer> hoisted_;
    size_t n_ = 0;
    std::unordered_set<int64_t> async_;
    int64_t min_ = 0, extent_ = 0, max_stage_ = 0;
    std::vector<Accesses> acc_;
    std::unordered_map<const BufferNode*, int64_t> versions_;
    std::unordered_map<const BufferNode*, Buffer> multi_;
    std::vector<Buffer> allocs_;
    std::vector<size_t> by_order_;
    std::vector<int64_t> consumes_;
    // Step 2: the latest iteration each asynchronous stage committed, as the steps are emitted.
    std::map<int64_t, PrimExpr> head_;
  };

  std::unordered_map<const BufferNode*, Versioned> versioned_;
  int thread_depth_ = 0;

 public:
  std::unordered_set<const BufferNode*> allocated_;  // the function's allocations
  std::unordered_map<const VarNode*, const BufferNode*> by_data_;
  std::unordered_map<const VarNode*, Buffer> buffers_;
};

}  // namespace

Pass inject_software_pipeline() {
  return {"tir.InjectSoftwarePipeline", [](const PrimFunc& f) {
            PipelineInjector injector;
            for_each_stmt(f->body, [&](const Stmt& s) {
              if (auto* a = as<AllocateNode>(s)) {
                injector.allocated_.insert(a->buffer.get());
                injector.by_data_[a->buffer->data.get()] = a->buffer.get();
                injector.buffers_[a->buffer->data.get()] = a->buffer;
              }
            });
            return with_body(f, injector.mutate(f->body));
          }};
}

}  // namespace tsch::transform
