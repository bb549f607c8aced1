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
  using IRMutator::mutate;

 protected:
  Stmt mutate_For(const ForNode& f, const Stmt& self) override {
    Stmt out = IRMutator::mutate_For(f, self);
    return identified(as<ForNode>(out), out);
  }
  Stmt mutate_Block(const BlockNode& b, const Stmt& self) override {
    Stmt out = IRMutator::mutate_Block(b, self);
    return identified(as<BlockNode>(out), out);
  }

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
  Replacer(StmtSid sid, const Stmt& replacement) : sid_(sid), replacement_(replacement) {}
  bool done = false;
  // Whole-node on purpose: once replaced, every node of whatever kind is left as it is.
  Stmt mutate(const Stmt& s) override { return done ? s : IRMutator::mutate(s); }
  using IRMutator::mutate;

 protected:
  Stmt mutate_For(const ForNode& f, const Stmt& self) override {
    return f.sid == sid_.value ? replace() : IRMutator::mutate_For(f, self);
  }
  Stmt mutate_BlockRealize(const BlockRealizeNode& r, const Stmt& self) override {
    return r.block->sid == sid_.value ? replace() : IRMutator::mutate_BlockRealize(r, self);
  }

 private:
  Stmt replace() {
    done = true;
    return replacement_;
  }
  StmtSid sid_;
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
    std::vector<StmtSid> stack;
    std::function<void(const Stmt&, const BlockRealizeNode*)> walk = [&](const Stmt& s,
                                                                         const BlockRealizeNode* realize) {
      if (!s) return;
      switch (s->kind) {
        case StmtKind::For: {
          auto* f = as<ForNode>(s);
          index_[sid_of(*f)] = NodeInfo{f, stack.empty() ? StmtSid() : stack.back(), nullptr, func, s};
          stack.push_back(sid_of(*f));
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
          index_[sid_of(*b)] = NodeInfo{b, stack.empty() ? StmtSid() : stack.back(), realize, func, s};
          if (stack.empty()) roots_[func] = sid_of(*b);
          stack.push_back(sid_of(*b));
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

const NodeInfo* ScheduleState::info(StmtSid sid) const {
  auto it = index_.find(sid);
  return it == index_.end() ? nullptr : &it->second;
}

Stmt ScheduleState::stmt_ref(StmtSid sid) const {
  const NodeInfo* i = info(sid);
  return i ? i->ref.lock() : nullptr;
}

const ForNode* ScheduleState::loop(StmtSid sid) const {
  const NodeInfo* i = info(sid);
  return i && i->node->kind == StmtKind::For ? static_cast<const ForNode*>(i->node) : nullptr;
}

const BlockNode* ScheduleState::block(StmtSid sid) const {
  const NodeInfo* i = info(sid);
  return i && i->node->kind == StmtKind::Block ? static_cast<const BlockNode*>(i->node) : nullptr;
}

const ForNode& ScheduleState::loop_at(LoopSid sid) const {
  const ForNode* f = loop(sid);
  TSCH_INTERNAL_ASSERT(f) << "sid " << sid << " is not a loop of the schedule";
  return *f;
}

const BlockNode& ScheduleState::block_at(BlockSid sid) const {
  const BlockNode* b = block(sid);
  TSCH_INTERNAL_ASSERT(b) << "sid " << sid << " is not a block of the schedule";
  return *b;
}

BlockSid ScheduleState::root_of(const std::string& func) const {
  auto it = roots_.find(func);
  return it == roots_.end() ? BlockSid() : it->second;
}

std::vector<LoopSid> ScheduleState::enclosing_loops(StmtSid sid) const {
  std::vector<LoopSid> loops;
  const NodeInfo* i = info(sid);
  for (StmtSid p = i ? i->parent : StmtSid(); p;) {
    const NodeInfo* pi = info(p);
    if (pi->node->kind != StmtKind::For) break;
    loops.push_back(LoopSid(p.value));
    p = pi->parent;
  }
  std::reverse(loops.begin(), loops.end());
  return loops;
}

BlockSid ScheduleState::scope_block(StmtSid sid) const {
  const NodeInfo* i = info(sid);
  for (StmtSid p = i ? i->parent : StmtSid(); p; p = info(p)->parent) {
    if (info(p)->node->kind == StmtKind::Block) return BlockSid(p.value);
  }
  return BlockSid();
}

std::vector<BlockSid> ScheduleState::child_blocks(StmtSid sid) const {
  std::vector<BlockSid> out;
  const NodeInfo* target = info(sid);
  if (!target) return out;
  // A block is a child when walking up from it reaches `sid` before any other block.
  for (const auto& [id, i] : index_) {
    if (i.node->kind != StmtKind::Block) continue;
    for (StmtSid p = i.parent; p; p = info(p)->parent) {
      if (p == sid) {
        out.push_back(BlockSid(id.value));
        break;
      }
      if (info(p)->node->kind == StmtKind::Block) break;
    }
  }
  // IR order: sids of the original IR follow a post-order walk, so order by a fresh walk.
  std::vector<BlockSid> ordered;
  for (BlockSid b : blocks_in(target->func)) {
    if (std::find(out.begin(), out.end(), b) != out.end()) ordered.push_back(b);
  }
  return ordered;
}

std::vector<BlockSid> ScheduleState::blocks_in(const std::string& func) const {
  std::vector<BlockSid> out;
  PrimFunc f = mod_->prim_func(func);
  if (!f) return out;
  for_each_stmt(f->body, [&](const Stmt& s) {
    if (auto* b = as<BlockNode>(s); b && index_.at(sid_of(*b)).parent) out.push_back(sid_of(*b));
  });
  return out;
}

void ScheduleState::replace(StmtSid sid, const Stmt& replacement) {
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
