// tir.ThreadSync("shared"): a barrier T.tvm_storage_sync("shared") before each statement of a
// kernel that reads shared memory another thread may have written since the last barrier, or
// writes shared memory another thread may still read (TVM's ThreadSyncPlanner: accesses are
// summarized per statement sequence, a loop is simulated twice for its loop-carried
// dependencies, and two accesses at the same single index that depends on the innermost
// thread index are assumed to be the same thread's).
#include <unordered_map>
#include <unordered_set>

#include "ir/expr_equal.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "support/error.h"
#include "transform/pass.h"
#include "transform/split_host_device.h"

namespace tsch::transform {
namespace {

using namespace ir;

enum class AccessKind { Read, Write, Sync };

struct Access {
  static Access sync() {
    Access a;
    a.kind = AccessKind::Sync;
    return a;
  }
  AccessKind kind = AccessKind::Read;
  const VarNode* data = nullptr;  // the buffer's data variable
  std::vector<PrimExpr> index;
  bool point = true;                // a single index (depends on no loop inside the statement)
  const VarNode* thread = nullptr;  // the innermost thread index at the access
};

struct Entry {
  const StmtNode* stmt;
  std::vector<Access> access;
};

bool uses(const PrimExpr& e, const VarNode* v) {
  return uses_var(e, [v](const VarNode* x) { return x == v; });
}

// Accesses of the same buffer conflict unless both are at the same single index, which depends
// on the innermost thread index (then they are taken to be the same thread's).
bool conflict(const Access& prev, const Access& curr) {
  if (prev.data != curr.data) return false;
  if (!prev.point || !curr.point || prev.index.size() != curr.index.size()) return true;
  for (size_t i = 0; i < prev.index.size(); ++i) {
    if (!expr_deep_equal(prev.index[i], curr.index[i])) return true;
    if (curr.thread && !(uses(prev.index[i], curr.thread) && uses(curr.index[i], curr.thread))) return true;
  }
  return false;
}

bool conflict(const std::vector<Access>& prev, const Access& curr) {
  for (const Access& p : prev)
    if (conflict(p, curr)) return true;
  return false;
}

bool is_sync(const PrimExpr& e, const std::string& scope) {
  auto* c = as<CallNode>(e);
  if (!c || c->op != "tvm_storage_sync" || c->args.size() != 1) return false;
  auto* s = as<StringImmNode>(c->args[0]);
  return s && s->value == scope;
}

class SyncPlanner {
 public:
  explicit SyncPlanner(std::string scope) : scope_(std::move(scope)) {}

  std::unordered_set<const StmtNode*> plan(const Stmt& kernel) {
    scopes_.push_back({});
    visit(kernel);
    summarize(pop(), nullptr);
    return std::move(syncs_);
  }

 private:
  std::vector<Entry> pop() {
    std::vector<Entry> top = std::move(scopes_.back());
    scopes_.pop_back();
    return top;
  }
  void add(const StmtNode* stmt, std::vector<Access> access) {
    if (!access.empty()) scopes_.back().push_back({stmt, std::move(access)});
  }

  // The reads of `e` (loads of buffers in the sync scope), in evaluation order.
  void reads(const PrimExpr& e, std::vector<Access>& out) {
    if (!e) return;
    for_each_expr(e, [&](const PrimExpr& x) {
      if (auto* l = as<BufferLoadNode>(x)) {
        if (l->buffer->scope == scope_)
          out.push_back({AccessKind::Read, l->buffer->data.get(), l->indices, true, thread()});
      }
    });
  }
  const VarNode* thread() const { return threads_.empty() ? nullptr : threads_.back(); }

  void visit(const Stmt& s) {
    if (!s) return;
    const StmtNode* node = s.get();
    switch (s->kind) {
      case StmtKind::SeqStmt:
        for (const auto& x : as<SeqStmtNode>(s)->seq) visit(x);
        return;
      case StmtKind::BufferStore: {
        auto* st = as<BufferStoreNode>(s);
        std::vector<Access> acc;
        reads(st->value, acc);
        for (const auto& i : st->indices) reads(i, acc);
        if (st->buffer->scope == scope_)
          acc.push_back({AccessKind::Write, st->buffer->data.get(), st->indices, true, thread()});
        add(node, std::move(acc));
        return;
      }
      case StmtKind::Evaluate: {
        auto* ev = as<EvaluateNode>(s);
        if (is_sync(ev->value, scope_)) {
          add(node, {Access::sync()});
          return;
        }
        std::vector<Access> acc;
        reads(ev->value, acc);
        // An asynchronous copy writes its shared destination (some elements from its offset).
        if (auto* c = as<CallNode>(ev->value); c && c->op == "ptx_cp_async" && c->args.size() == 5) {
          auto* dst = as<VarNode>(c->args[0]);
          auto scope = dst ? scope_of_.find(dst) : scope_of_.end();
          if (scope != scope_of_.end() && scope->second == scope_)
            acc.push_back({AccessKind::Write, dst, {c->args[1]}, false, thread()});
        }
        // T.ptx_ldmatrix given a shared buffer's data reads rows from its offset on.
        if (auto* c = as<CallNode>(ev->value); c && c->op == "ptx_ldmatrix" && c->args.size() == 7) {
          auto* src = as<VarNode>(c->args[5]);
          auto scope = src ? scope_of_.find(src) : scope_of_.end();
          if (scope != scope_of_.end() && scope->second == scope_)
            acc.push_back({AccessKind::Read, src, {c->args[6]}, false, thread()});
        }
        // A builtin given a buffer's access_ptr (the tensor-core loads and stores) reads or
        // writes it as the pointer's mask says (1 read, 2 write).
        for_each_expr(ev->value, [&](const PrimExpr& x) {
          auto* p = as<CallNode>(x);
          int64_t mask = 0;
          if (!p || p->op != "tvm_access_ptr" || p->args.size() != 5 || !as_const_int(p->args[4], &mask)) return;
          auto* data = as<VarNode>(p->args[1]);
          auto scope = data ? scope_of_.find(data) : scope_of_.end();
          if (scope == scope_of_.end() || scope->second != scope_) return;
          if (mask & 1) acc.push_back({AccessKind::Read, data, {p->args[2]}, false, thread()});
          if (mask & 2) acc.push_back({AccessKind::Write, data, {p->args[2]}, false, thread()});
        });
        add(node, std::move(acc));
        return;
      }
      case StmtKind::LetStmt: {
        auto* let = as<LetStmtNode>(s);
        std::vector<Access> acc;
        reads(let->value, acc);
        add(node, std::move(acc));
        visit(let->body);
        return;
      }
      case StmtKind::Allocate:
        scope_of_[as<AllocateNode>(s)->buffer->data.get()] = as<AllocateNode>(s)->buffer->scope;
        visit(as<AllocateNode>(s)->body);
        return;
      case StmtKind::DeclBuffer:
        visit(as<DeclBufferNode>(s)->body);
        return;
      case StmtKind::IfThenElse: {
        auto* branch = as<IfThenElseNode>(s);
        std::vector<Access> acc;
        reads(branch->condition, acc);
        ++condition_depth_;
        for (const Stmt& c : {branch->then_case, branch->else_case}) {
          if (!c) continue;
          scopes_.push_back({});
          visit(c);
          std::vector<Access> summary = summarize(pop(), nullptr);
          acc.insert(acc.end(), summary.begin(), summary.end());
        }
        --condition_depth_;
        add(node, std::move(acc));
        return;
      }
      case StmtKind::For: {
        auto* loop = as<ForNode>(s);
        if (loop->for_kind == ForKind::ThreadBinding) {
          // The threads run the body side by side: not a loop of the kernel's program.
          threads_.push_back(loop->loop_var.get());
          visit(loop->body);
          threads_.pop_back();
          return;
        }
        scopes_.push_back({});
        visit(loop->body);
        std::vector<Access> summary = summarize(pop(), loop);
        for (Access& a : summary) {
          for (const auto& i : a.index) a.point = a.point && !uses(i, loop->loop_var.get());
        }
        add(node, std::move(summary));
        return;
      }
      case StmtKind::Block:
      case StmtKind::BlockRealize:
      case StmtKind::AllocateConst:
      case StmtKind::AttrStmt:
        TSCH_INTERNAL_ASSERT(false) << "ThreadSync: a block statement in lowered code";
    }
  }

  void insert_before(const Entry& e) {
    TSCH_USER_ASSERT(condition_depth_ == 0, NotImplementedError)
        << "not supported yet: a shared-memory barrier (__syncthreads) needed inside a condition of a CUDA kernel "
        << "(every thread of the block must reach it)";
    syncs_.insert(e.stmt);
  }

  // Places the barriers one statement sequence needs and returns what it exposes: the accesses
  // before its first barrier, a barrier if it has one, and the accesses after its last.
  std::vector<Access> summarize(const std::vector<Entry>& seq, const ForNode* loop) {
    std::vector<Access> reads, writes;
    auto needs_sync = [&](const Entry& e) {
      for (const Access& a : e.access) {
        if (a.kind == AccessKind::Read && conflict(writes, a)) return true;
        if (a.kind == AccessKind::Write && conflict(reads, a)) return true;
        if (a.kind == AccessKind::Sync) {
          reads.clear();
          writes.clear();
        }
      }
      return false;
    };
    for (const Entry& e : seq) {
      bool sync = syncs_.count(e.stmt) > 0;
      if (sync) reads.clear(), writes.clear();
      if (!sync && needs_sync(e)) {
        insert_before(e);
        reads.clear();
        writes.clear();
      }
      for (const Access& a : e.access) {
        if (a.kind == AccessKind::Read) reads.push_back(a);
        if (a.kind == AccessKind::Write) writes.push_back(a);
        if (a.kind == AccessKind::Sync) reads.clear(), writes.clear();
      }
    }
    if (loop) {
      // The next iteration's first statements against what this one left unsynchronized.
      for (const Entry& e : seq) {
        if (syncs_.count(e.stmt) || (reads.empty() && writes.empty())) break;
        if (needs_sync(e)) {
          insert_before(e);
          break;
        }
      }
    }
    std::vector<Access> head, tail;
    int syncs = 0;
    auto barrier = [&] {
      if (syncs++ == 0) {
        head.push_back(Access::sync());
      } else {
        tail.clear();
      }
    };
    for (const Entry& e : seq) {
      if (syncs_.count(e.stmt)) barrier();
      for (const Access& a : e.access) {
        if (a.kind == AccessKind::Sync) {
          barrier();
        } else {
          (syncs ? tail : head).push_back(a);
        }
      }
    }
    head.insert(head.end(), tail.begin(), tail.end());
    return head;
  }

  std::string scope_;
  std::vector<std::vector<Entry>> scopes_;
  std::vector<const VarNode*> threads_;
  std::unordered_map<const VarNode*, std::string> scope_of_;  // allocated buffers' data
  std::unordered_set<const StmtNode*> syncs_;
  int condition_depth_ = 0;
};

class SyncInserter : public IRMutator {
 public:
  SyncInserter(std::string scope, std::unordered_set<const StmtNode*> syncs)
      : scope_(std::move(scope)), syncs_(std::move(syncs)) {}
  using IRMutator::mutate;
  // Whole-node on purpose: the planner names statements of any kind (by identity) to sync before.
  Stmt mutate(const Stmt& s) override {
    Stmt out = mutate_children(s);
    if (!syncs_.count(s.get())) return out;
    Stmt barrier = std::make_shared<EvaluateNode>(
        call(DataType::int32(), "tvm_storage_sync", {std::make_shared<StringImmNode>(scope_)}));
    return make_seq({barrier, out});
  }

 private:
  std::string scope_;
  std::unordered_set<const StmtNode*> syncs_;
};

// Plans each kernel (the nest under an outermost thread-bound loop) on its own.
class KernelSync : public IRMutator {
 public:
  explicit KernelSync(std::string scope) : scope_(std::move(scope)) {}
  Stmt mutate_For(const ForNode& f, const Stmt& self) override {
    if (f.for_kind != ForKind::ThreadBinding) return IRMutator::mutate_For(f, self);
    std::unordered_set<const StmtNode*> syncs = SyncPlanner(scope_).plan(self);
    return syncs.empty() ? self : SyncInserter(scope_, std::move(syncs)).mutate(self);
  }

 private:
  std::string scope_;
};

}  // namespace

Pass thread_sync(const std::string& scope) {
  return {"tir.ThreadSync", [scope](const PrimFunc& f) { return with_body(f, KernelSync(scope).mutate(f->body)); }};
}

}  // namespace tsch::transform
