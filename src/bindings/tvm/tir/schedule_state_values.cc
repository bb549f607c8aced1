// TVM's ScheduleState API in scripts: tvm.tir.ScheduleState (a schedule's state, or a new one
// over a module: `.mod`, `get_sref`, `get_block_scope`, `_get_cached_flags`), StmtSRef,
// BlockScope with its Dependency values and DepKind, and tvm.tir.schedule.state.CachedFlags.
// The analysis is schedule/block_scope.h.
#include <fmt/format.h>

#include "bindings/tvm/tir/schedule_values.h"
#include "schedule/block_scope.h"
#include "script/exceptions.h"
#include "script/modules.h"
#include "values/ir_values.h"
#include "values/stmt_values.h"

namespace tsch::bindings {

using script::Args;
using script::ExcKind;
using script::raise;
using script::TypeObject;
using script::TypeRef;

// ---- StmtSRef

const ir::StmtNode* sref_stmt(const StmtSRefValue& r) {
  const schedule::NodeInfo* info = r.owner->sch.state().info(r.sid);
  return info ? info->node : nullptr;
}

TypeRef stmt_sref_type() {
  static TypeRef t = [] {
    auto t = std::make_shared<TypeObject>("StmtSRef");
    t->set_module("tvm.tir");
    t->def_property("stmt", [](Interpreter&, const Value& v) -> Value {
      auto* r = v.as<StmtSRefValue>();
      ir::Stmt node = r->owner->sch.state().stmt_ref(r->sid);
      if (!node) return Value();  // replaced: TVM's sref.stmt is None
      return wrap(node);
    });
    t->def_property("parent", [](Interpreter&, const Value& v) -> Value {
      auto* r = v.as<StmtSRefValue>();
      const schedule::NodeInfo* info = r->owner->sch.state().info(r->sid);
      if (!info || !info->parent) return Value();
      return Value(std::make_shared<StmtSRefValue>(r->owner, info->parent));
    });
    // One sref per loop or block of a state, as TVM's: srefs of the same node are equal and
    // hash alike, and a sref that replace() reused is the same sref.
    auto same = [](Args& a) {
      auto* x = a[0].as<StmtSRefValue>();
      auto* y = a[1].as<StmtSRefValue>();
      return y && x->owner->identity == y->owner->identity && x->sid == y->sid;
    };
    t->def("same_as", "self, other", [same](Interpreter&, Args& a) { return Value::boolean(same(a)); });
    t->def("__eq__", "self, other", [same](Interpreter&, Args& a) { return Value::boolean(same(a)); });
    t->def("__ne__", "self, other", [same](Interpreter&, Args& a) { return Value::boolean(!same(a)); });
    t->def("__hash__", "self", [](Interpreter&, Args& a) {
      auto* r = a[0].as<StmtSRefValue>();
      return Value::integer(static_cast<int64_t>((r->owner->identity * 0x9E3779B97F4A7C15ull ^ r->sid.value) >> 1));
    });
    t->hashes_by_value = true;
    return t;
  }();
  return t;
}

script::TypeObject* StmtSRefValue::type() const { return stmt_sref_type().get(); }

std::string StmtSRefValue::repr_hook(Interpreter&) {
  const ir::StmtNode* node = sref_stmt(*this);
  if (!node) return "StmtSRef(None)";
  if (node->kind == ir::StmtKind::For)
    return "StmtSRef(for " + static_cast<const ir::ForNode*>(node)->loop_var->name + ")";
  return "StmtSRef(block " + static_cast<const ir::BlockNode*>(node)->name + ")";
}

namespace {

// The block an sref argument names in `owner`'s state, else a TypeError/ValueError.
schedule::BlockSid block_of_sref(Args& a, size_t i, const std::shared_ptr<ScheduleValue>& owner) {
  auto* r = a[i].as<StmtSRefValue>();
  if (!r) a.type_error(i, "a StmtSRef");
  if (r->owner->identity != owner->identity) a.value_error(i, "the StmtSRef belongs to another schedule state");
  schedule::BlockSid block = owner->sch.state().as_block(r->sid);
  if (!block) a.value_error(i, "the StmtSRef does not name a block of this state");
  return block;
}

// ---- DepKind, Dependency, BlockScope

TypeRef dep_kind_type() {
  static TypeRef t = [] {
    auto t = std::make_shared<TypeObject>("DepKind");
    t->set_module("tvm.tir.schedule");
    t->dict().set(intern("RAW"), Value::integer(static_cast<int64_t>(schedule::DepKind::RAW)));
    t->dict().set(intern("WAW"), Value::integer(static_cast<int64_t>(schedule::DepKind::WAW)));
    t->dict().set(intern("WAR"), Value::integer(static_cast<int64_t>(schedule::DepKind::WAR)));
    t->dict().set(intern("OPAQUE"), Value::integer(static_cast<int64_t>(schedule::DepKind::Opaque)));
    return t;
  }();
  return t;
}

class DependencyValue : public script::Object {
 public:
  DependencyValue(std::shared_ptr<ScheduleValue> owner, schedule::Dependency dep) : owner(std::move(owner)), dep(dep) {}
  script::TypeObject* type() const override;
  std::string repr_hook(Interpreter&) override {
    static const char* names[] = {"RAW", "WAW", "WAR", "OPAQUE"};
    auto name = [&](schedule::BlockSid sid) {
      return static_cast<const ir::BlockNode*>(owner->sch.state().info(sid)->node)->name;
    };
    return fmt::format("Dependency({} -> {}, {})", name(dep.src), name(dep.dst), names[static_cast<int>(dep.kind)]);
  }
  std::shared_ptr<ScheduleValue> owner;
  schedule::Dependency dep;
};

TypeRef dependency_type() {
  static TypeRef t = [] {
    auto t = std::make_shared<TypeObject>("Dependency");
    t->set_module("tvm.tir.schedule");
    t->def_property("src", [](Interpreter&, const Value& v) {
      auto* d = v.as<DependencyValue>();
      return Value(std::make_shared<StmtSRefValue>(d->owner, d->dep.src));
    });
    t->def_property("dst", [](Interpreter&, const Value& v) {
      auto* d = v.as<DependencyValue>();
      return Value(std::make_shared<StmtSRefValue>(d->owner, d->dep.dst));
    });
    t->def_property("kind", [](Interpreter&, const Value& v) {
      return Value::integer(static_cast<int64_t>(v.as<DependencyValue>()->dep.kind));
    });
    return t;
  }();
  return t;
}

script::TypeObject* DependencyValue::type() const { return dependency_type().get(); }

// A scope's dependences as TVM's BlockScope, computed when asked for.
class BlockScopeValue : public script::Object {
 public:
  BlockScopeValue(std::shared_ptr<ScheduleValue> owner, schedule::BlockSid scope)
      : owner(std::move(owner)), scope(scope) {}
  script::TypeObject* type() const override;
  std::shared_ptr<ScheduleValue> owner;
  schedule::BlockSid scope;
};

Value deps_where(Args& a, bool by_src) {
  auto* self = a[0].as<BlockScopeValue>();
  schedule::BlockSid block = block_of_sref(a, 1, self->owner);
  std::vector<Value> out;
  for (const schedule::Dependency& d : schedule::block_dependencies(self->owner->sch.state(), self->scope)) {
    if ((by_src ? d.src : d.dst) == block) out.push_back(Value(std::make_shared<DependencyValue>(self->owner, d)));
  }
  return script::make_list(std::move(out));
}

TypeRef block_scope_type() {
  static TypeRef t = [] {
    auto t = std::make_shared<TypeObject>("BlockScope");
    t->set_module("tvm.tir.schedule");
    t->def(
        "get_deps_by_src", "self, block", [](Interpreter&, Args& a) { return deps_where(a, true); },
        "get_deps_by_src(block) -> [Dependency]: the dependences the block is the source of, in the scope's order.");
    t->def(
        "get_deps_by_dst", "self, block", [](Interpreter&, Args& a) { return deps_where(a, false); },
        "get_deps_by_dst(block) -> [Dependency]: the dependences the block is the destination of.");
    return t;
  }();
  return t;
}

script::TypeObject* BlockScopeValue::type() const { return block_scope_type().get(); }

// ---- ScheduleState

class ScheduleStateValue : public script::Object {
 public:
  explicit ScheduleStateValue(std::shared_ptr<ScheduleValue> owner) : owner(std::move(owner)) {}
  script::TypeObject* type() const override;
  std::shared_ptr<ScheduleValue> owner;
};

std::shared_ptr<ScheduleValue> state_owner(Args& a) { return a[0].as<ScheduleStateValue>()->owner; }

// ScheduleState.replace(src_sref, tgt_stmt, block_sref_reuse): the state's checks
// (ScheduleState::check_replacement), then its replace.
void replace_in_state(Interpreter& interp, Args& a) {
  auto owner = state_owner(a);
  auto* r = a[1].as<StmtSRefValue>();
  if (!r) a.type_error(1, "a StmtSRef");
  if (r->owner->identity != owner->identity) a.value_error(1, "the StmtSRef belongs to another schedule state");
  const schedule::NodeInfo* src = owner->sch.state().info(r->sid);
  if (!src) a.value_error(1, "the StmtSRef no longer names a statement of the state (it was replaced)");
  auto* tgt = a[2].as<StmtValue>();
  if (!tgt) a.type_error(2, "a tvm.tir.Stmt");
  schedule::ReplaceCheck check = owner->sch.state().check_replacement(r->sid, tgt->stmt);
  if (check.kind_mismatch) raise(ExcKind::TypeError, check.message);
  if (!check.message.empty()) a.value_error(2, check.message);
  std::vector<std::pair<const ir::BlockNode*, ir::Block>> reuse;
  if (!a[3].is_none()) {
    auto* d = a[3].as<script::Dict>();
    if (!d) a.type_error(3, "a dict of Block to Block");
    for (const auto& [k, v] : d->items()) {
      auto* old_block = k.as<StmtValue>();
      auto* new_block = v.as<StmtValue>();
      if (!old_block || !new_block || !ir::as<ir::BlockNode>(old_block->stmt) ||
          !ir::as<ir::BlockNode>(new_block->stmt)) {
        a.type_error(3, "a dict of Block to Block");
      }
      reuse.emplace_back(ir::as<ir::BlockNode>(old_block->stmt),
                         std::static_pointer_cast<const ir::BlockNode>(new_block->stmt));
    }
  }
  const ir::IRModule& original = owner->sch.original();
  try {
    owner->sch.state().replace_copy_on_write(r->sid, tgt->stmt, reuse,
                                             original && original == owner->sch.mod() ? 1 : 0);
  } catch (const UserError& e) {
    raise_user_error(e, "replace", {"src_sref", "tgt_stmt", "block_sref_reuse"});
  }
  owner->sch.mark_edited_outside_trace();
}

TypeRef schedule_state_type() {
  static TypeRef t = [] {
    auto t = std::make_shared<TypeObject>("ScheduleState");
    t->set_module("tvm.tir");
    // tir.ScheduleState(mod, *, debug_mask="none", enable_check=True): the state of a new
    // schedule of `mod` (a PrimFunc is the module's main).
    t->constructor = [](Interpreter& interp, TypeObject*, script::CallArgs& call) {
      static const script::Signature sig = script::Signature::parse("mod, *, debug_mask=\"none\", enable_check=True");
      Args a(interp, "ScheduleState", sig, std::move(call));
      int64_t mask = debug_mask_of(a, 1);
      try {
        auto owner = std::make_shared<ScheduleValue>(schedule::Schedule(
            to_module(interp, a[0], "ScheduleState"), -1, mask, schedule::parse_error_render_level("detail")));
        owner->sch.drop_original();
        return make_schedule_state(owner);
      } catch (const UserError& e) {
        raise_user_error(e, "ScheduleState", {"mod", "debug_mask", "enable_check"});
      }
    };
    t->def_property("mod", [](Interpreter&, const Value& v) {
      return Value(std::make_shared<IRModuleValue>(v.as<ScheduleStateValue>()->owner->sch.mod()));
    });
    t->def(
        "get_sref", "self, stmt",
        [](Interpreter&, Args& a) -> Value {
          auto owner = state_owner(a);
          schedule::StmtSid sid;
          auto* stmt = a[1].as<StmtValue>();
          if (auto* loop = stmt ? ir::as<ir::ForNode>(stmt->stmt) : nullptr)
            sid = schedule::sid_of(*loop);
          else if (auto* block = stmt ? ir::as<ir::BlockNode>(stmt->stmt) : nullptr)
            sid = schedule::sid_of(*block);
          else
            a.type_error(1, "a For or a Block");
          const schedule::NodeInfo* info = owner->sch.state().info(sid);
          if (!info || info->node != stmt->stmt.get()) return Value();
          return Value(std::make_shared<StmtSRefValue>(owner, sid));
        },
        "get_sref(stmt) -> StmtSRef or None: the sref of a loop or block of the state's module.");
    t->def(
        "replace", "self, src_sref, tgt_stmt, block_sref_reuse=None",
        [](Interpreter& interp, Args& a) -> Value {
          replace_in_state(interp, a);
          return Value();
        },
        "replace(src_sref, tgt_stmt, block_sref_reuse=None): TVM's copy-on-write replace of the loop or block src_sref "
        "by "
        "tgt_stmt (a For or BlockRealize for a loop, a Block for a block); nodes nobody else holds are written in "
        "place. "
        "block_sref_reuse: {old Block: new Block} whose srefs carry over.");
    t->def(
        "get_block_scope", "self, block_sref",
        [](Interpreter&, Args& a) -> Value {
          auto owner = state_owner(a);
          return Value(std::make_shared<BlockScopeValue>(owner, block_of_sref(a, 1, owner)));
        },
        "get_block_scope(block_sref) -> BlockScope: the dependences among the block's child blocks.");
    t->def(
        "_get_cached_flags", "self, block_sref",
        [](Interpreter& interp, Args& a) -> Value {
          auto owner = state_owner(a);
          schedule::CachedFlags f = schedule::cached_flags(owner->sch.state(), block_of_sref(a, 1, owner));
          Value cls =
              *interp.modules().import(interp, "tvm.tir.schedule.state", "")->globals->find(intern("CachedFlags"));
          return interp.call(cls, {Value::boolean(f.affine_binding), Value::boolean(f.region_cover),
                                   Value::boolean(f.stage_pipeline)});
        },
        "_get_cached_flags(block_sref) -> CachedFlags: affine_binding, region_cover, stage_pipeline, as TVM's state "
        "keeps them.");
    return t;
  }();
  return t;
}

script::TypeObject* ScheduleStateValue::type() const { return schedule_state_type().get(); }

}  // namespace

int64_t debug_mask_of(script::Args& a, size_t i) {
  if (a[i].is_integral()) return a[i].as_int();
  const std::string& s = a.get_str(i);
  if (s == "none") return 0;
  if (s == "all") return -1;
  a.value_error(i, "expected \"all\", \"none\" or an int, got \"" + s + "\"");
}

Value make_schedule_state(std::shared_ptr<ScheduleValue> owner) {
  return Value(std::make_shared<ScheduleStateValue>(std::move(owner)));
}

void install_schedule_state(script::Namespace& tir_ns, script::Namespace& schedule_ns) {
  for (script::Namespace* ns : {&tir_ns, &schedule_ns}) {
    ns->set(intern("ScheduleState"), Value(schedule_state_type()));
    ns->set(intern("StmtSRef"), Value(stmt_sref_type()));
    ns->set(intern("BlockScope"), Value(block_scope_type()));
    ns->set(intern("Dependency"), Value(dependency_type()));
  }
  schedule_ns.set(intern("DepKind"), Value(dep_kind_type()));
  // tvm.tir.schedule.state: ScheduleState and CachedFlags, TVM's NamedTuple of the flags.
  script::ModuleLoader::register_builtin("tvm.tir.schedule.state", [](Interpreter& interp, script::Module& m) {
    m.globals->set(intern("ScheduleState"), Value(schedule_state_type()));
    // TVM's ScheduleDebugMask: what a state with debug_mask verifies after each change (tsch
    // verifies the module's well-formedness for any non-zero mask).
    auto mask = std::make_shared<TypeObject>("ScheduleDebugMask");
    mask->set_module("tvm.tir.schedule.state");
    mask->dict().set(intern("VERIFY_SREF_TREE"), Value::integer(1));
    mask->dict().set(intern("VERIFY_CACHED_FLAGS"), Value::integer(2));
    m.globals->set(intern("ScheduleDebugMask"), Value(TypeRef(mask)));
    Value namedtuple = *interp.modules().import(interp, "collections", "")->globals->find(intern("namedtuple"));
    std::vector<Value> fields = {script::make_str("affine_binding"), script::make_str("region_cover"),
                                 script::make_str("stage_pipeline")};
    m.globals->set(intern("CachedFlags"),
                   interp.call(namedtuple, {script::make_str("CachedFlags"), script::make_list(std::move(fields))}));
  });
}

}  // namespace tsch::bindings
