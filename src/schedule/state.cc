#include "schedule/state.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <unordered_set>

#include "ir/functor.h"
#include "ir/printer.h"
#include "support/diagnostics.h"
#include "support/error.h"

namespace tsch::schedule {

using namespace ir;

namespace {

// Gives loops and blocks without a sid a fresh one, in place (the sid is not part of a node's
// value); a node met a second time in the module (the same object used twice) is copied with
// a fresh sid, and so are the nodes above it.
class Identify : public IRMutator {
 public:
  Stmt mutate(const Stmt& s) override {
    Stmt out = mutate_children(s);
    if (auto* f = as<ForNode>(out)) return identified(f, out);
    if (auto* b = as<BlockNode>(out)) return identified(b, out);
    return out;
  }
  using IRMutator::mutate;

 private:
  template <typename Node>
  Stmt identified(const Node* n, const Stmt& out) {
    if (n->sid == 0) n->sid = ScheduleState::fresh_sid();
    if (seen_.insert(n->sid).second) return out;
    auto copy = std::make_shared<Node>(*n);
    copy->sid = ScheduleState::fresh_sid();
    seen_.insert(copy->sid);
    return copy;
  }
  std::unordered_set<uint64_t> seen_;
};

class Replacer : public IRMutator {
 public:
  Replacer(uint64_t sid, const Stmt& replacement) : sid_(sid), replacement_(replacement) {}
  bool done = false;
  Stmt mutate(const Stmt& s) override { return done ? s : IRMutator::mutate(s); }
  using IRMutator::mutate;

 protected:
  Stmt mutate_For(const ForNode& f, const Stmt& self) override {
    return f.sid == sid_ ? replace() : IRMutator::mutate_For(f, self);
  }
  Stmt mutate_BlockRealize(const BlockRealizeNode& r, const Stmt& self) override {
    return r.block->sid == sid_ ? replace() : IRMutator::mutate_BlockRealize(r, self);
  }

 private:
  Stmt replace() {
    done = true;
    return replacement_;
  }
  uint64_t sid_;
  const Stmt& replacement_;
};

}  // namespace

uint64_t ScheduleState::fresh_sid() {
  static std::atomic<uint64_t> next{0};
  return ++next;
}

ScheduleState::ScheduleState(IRModule mod) {
  // Functions of other kinds stay as they are; primitives see only the PrimFuncs. One
  // Identify for the module: a sid must name one node across all its functions.
  auto copy = std::make_shared<IRModuleNode>(*mod);
  Identify id;
  for (auto& [name, base] : copy->functions) {
    PrimFunc f = as_prim_func(base);
    if (!f) continue;
    // TVM's primitives take every loop to run min, min + 1, ...: a stepped loop would be
    // split, fused or bound as if it did (TVM leaves them unadapted); refuse it instead.
    for_each_stmt(f->body, [&](const Stmt& s) {
      auto* loop = as<ForNode>(s);
      TSCH_USER_ASSERT(!loop || loop->has_trivial_step(), NotImplementedError)
          << "not supported yet: a schedule of " << name << ", whose loop " << loop->loop_var->name << " has a step ("
          << script(loop->step) << "): the schedule primitives assume unit steps";
      // The block tree and the primitives' rewrites do not look through attribute statements.
      auto* attr = as<AttrStmtNode>(s);
      TSCH_USER_ASSERT(!attr, NotImplementedError) << "not supported yet: a schedule of " << name
                                                   << ", which holds T.attr(..., \"" << attr->attr_key << "\", ...)";
    });
    Stmt body = id.mutate(f->body);
    if (body == f->body) continue;
    auto func = std::make_shared<PrimFuncNode>(*f);
    func->body = body;
    base = func;
  }
  mod_ = copy;
  auto prim_funcs = mod_->prim_funcs();
  if (prim_funcs.size() == 1) func_name_ = prim_funcs[0].first;
  rebuild_index();
}

void ScheduleState::rebuild_index() {
  index_.clear();
  roots_.clear();
  for (const auto& [name, f] : mod_->prim_funcs()) {
    const std::string& func = name;
    std::vector<uint64_t> stack;
    std::function<void(const Stmt&, const BlockRealizeNode*)> walk = [&](const Stmt& s,
                                                                         const BlockRealizeNode* realize) {
      if (!s) return;
      switch (s->kind) {
        case StmtKind::For: {
          auto* f = as<ForNode>(s);
          index_[f->sid] = NodeInfo{f, stack.empty() ? 0 : stack.back(), nullptr, func, s};
          stack.push_back(f->sid);
          walk(f->body, nullptr);
          stack.pop_back();
          return;
        }
        case StmtKind::BlockRealize: {
          auto* r = as<BlockRealizeNode>(s);
          walk(Stmt(r->block), r);
          return;
        }
        case StmtKind::Block: {
          auto* b = as<BlockNode>(s);
          index_[b->sid] = NodeInfo{b, stack.empty() ? 0 : stack.back(), realize, func, s};
          if (stack.empty()) roots_[func] = b->sid;
          stack.push_back(b->sid);
          if (b->init) walk(b->init, nullptr);
          walk(b->body, nullptr);
          stack.pop_back();
          return;
        }
        case StmtKind::SeqStmt:
          for (const auto& c : as<SeqStmtNode>(s)->seq) walk(c, nullptr);
          return;
        case StmtKind::IfThenElse:
          walk(as<IfThenElseNode>(s)->then_case, nullptr);
          walk(as<IfThenElseNode>(s)->else_case, nullptr);
          return;
        case StmtKind::LetStmt:
          walk(as<LetStmtNode>(s)->body, nullptr);
          return;
        case StmtKind::Allocate:
          walk(as<AllocateNode>(s)->body, nullptr);
          return;
        case StmtKind::DeclBuffer:
          walk(as<DeclBufferNode>(s)->body, nullptr);
          return;
        case StmtKind::AllocateConst:
          walk(as<AllocateConstNode>(s)->body, nullptr);
          return;
        case StmtKind::BufferStore:
        case StmtKind::Evaluate:
        case StmtKind::AttrStmt:
          return;
      }
    };
    walk(f->body, nullptr);
  }
}

const NodeInfo* ScheduleState::info(uint64_t sid) const {
  auto it = index_.find(sid);
  return it == index_.end() ? nullptr : &it->second;
}

Stmt ScheduleState::stmt_ref(uint64_t sid) const {
  const NodeInfo* i = info(sid);
  return i ? i->ref.lock() : nullptr;
}

const ForNode* ScheduleState::loop(uint64_t sid) const {
  const NodeInfo* i = info(sid);
  return i && i->node->kind == StmtKind::For ? static_cast<const ForNode*>(i->node) : nullptr;
}

const BlockNode* ScheduleState::block(uint64_t sid) const {
  const NodeInfo* i = info(sid);
  return i && i->node->kind == StmtKind::Block ? static_cast<const BlockNode*>(i->node) : nullptr;
}

const ForNode& ScheduleState::loop_at(uint64_t sid) const {
  const ForNode* f = loop(sid);
  TSCH_INTERNAL_ASSERT(f) << "sid " << sid << " is not a loop of the schedule";
  return *f;
}

const BlockNode& ScheduleState::block_at(uint64_t sid) const {
  const BlockNode* b = block(sid);
  TSCH_INTERNAL_ASSERT(b) << "sid " << sid << " is not a block of the schedule";
  return *b;
}

uint64_t ScheduleState::root_of(const std::string& func) const {
  auto it = roots_.find(func);
  return it == roots_.end() ? 0 : it->second;
}

std::vector<uint64_t> ScheduleState::enclosing_loops(uint64_t sid) const {
  std::vector<uint64_t> loops;
  const NodeInfo* i = info(sid);
  for (uint64_t p = i ? i->parent : 0; p != 0;) {
    const NodeInfo* pi = info(p);
    if (pi->node->kind != StmtKind::For) break;
    loops.push_back(p);
    p = pi->parent;
  }
  std::reverse(loops.begin(), loops.end());
  return loops;
}

uint64_t ScheduleState::scope_block(uint64_t sid) const {
  const NodeInfo* i = info(sid);
  for (uint64_t p = i ? i->parent : 0; p != 0; p = info(p)->parent) {
    if (info(p)->node->kind == StmtKind::Block) return p;
  }
  return 0;
}

std::vector<uint64_t> ScheduleState::child_blocks(uint64_t sid) const {
  std::vector<uint64_t> out;
  const NodeInfo* target = info(sid);
  if (!target) return out;
  // A block is a child when walking up from it reaches `sid` before any other block.
  for (const auto& [id, i] : index_) {
    if (i.node->kind != StmtKind::Block) continue;
    for (uint64_t p = i.parent; p != 0; p = info(p)->parent) {
      if (p == sid) {
        out.push_back(id);
        break;
      }
      if (info(p)->node->kind == StmtKind::Block) break;
    }
  }
  // IR order: sids of the original IR follow a post-order walk, so order by a fresh walk.
  std::vector<uint64_t> ordered;
  for (uint64_t b : blocks_in(target->func)) {
    if (std::find(out.begin(), out.end(), b) != out.end()) ordered.push_back(b);
  }
  return ordered;
}

std::vector<uint64_t> ScheduleState::blocks_in(const std::string& func) const {
  std::vector<uint64_t> out;
  PrimFunc f = mod_->prim_func(func);
  if (!f) return out;
  for_each_stmt(f->body, [&](const Stmt& s) {
    if (auto* b = as<BlockNode>(s); b && index_.at(b->sid).parent != 0) out.push_back(b->sid);
  });
  return out;
}

void ScheduleState::replace(uint64_t sid, const Stmt& replacement) {
  const NodeInfo* i = info(sid);
  TSCH_INTERNAL_CHECK(i != nullptr, "replace of a node that is not in the schedule");
  auto copy = std::make_shared<IRModuleNode>(*mod_);
  for (auto& [name, base] : copy->functions) {
    if (name != i->func) continue;
    PrimFunc f = as_prim_func(base);
    Replacer r(sid, replacement);
    auto func = std::make_shared<PrimFuncNode>(*f);
    func->body = r.mutate(f->body);
    TSCH_INTERNAL_CHECK(r.done, "replace did not find its target");
    base = func;
  }
  mod_ = copy;
  rebuild_index();
}

void ScheduleState::replace_param_buffer(const std::string& func, const Buffer& from, const Buffer& to) {
  auto copy = std::make_shared<IRModuleNode>(*mod_);
  bool found = false;
  for (auto& [name, base] : copy->functions) {
    if (name != func) continue;
    auto changed = std::make_shared<PrimFuncNode>(*as_prim_func(base));
    for (auto& [param, buffer] : changed->buffer_map) {
      if (buffer == from) {
        buffer = to;
        found = true;
      }
    }
    base = changed;
  }
  TSCH_INTERNAL_CHECK(found, "replace_param_buffer did not find the parameter");
  mod_ = copy;
  rebuild_index();
}

}  // namespace tsch::schedule
