// get_block, get_loops, get_child_blocks, get_output_blocks: handles to blocks and loops by name and position.
#include <fmt/format.h>

#include "schedule/analysis.h"
#include "schedule/error.h"
#include "schedule/kind_registration.h"
#include "schedule/primitives.h"
#include "support/closest_name.h"

namespace tsch::schedule {

namespace {

TSCH_SCHEDULE_ERROR_KIND(kFunctionNotFoundError, "FunctionNotFoundError",
                         "Cannot find a function with the specified name",
                         "Cannot find a function with the specified name");
TSCH_SCHEDULE_ERROR_KIND(kMultipleBlocksError, "NotSingleResult.multiple",
                         "Found multiple blocks with the specified name",
                         "Found multiple blocks with the specified name");

// TVM's message, then what there is: the closest name and the function's blocks in order.
std::string block_not_found_message(const ScheduleState& s, const std::string& name, const std::string& func) {
  std::vector<std::string> names;
  if (BlockSid root = s.root_of(func)) names.push_back(s.block_at(root).name);
  for (BlockSid b : s.blocks_in(func)) names.push_back(s.block_at(b).name);
  std::string message = "Cannot find a block with the name: " + name + ".";
  if (names.empty()) return message + " Function \"" + func + "\" has no blocks";
  std::string best = closest_name(name, names);
  if (!best.empty()) message += " Did you mean: \"" + best + "\"?";
  std::string listed;
  for (size_t i = 0; i < names.size() && i < 20; ++i) listed += (i ? ", \"" : "\"") + names[i] + "\"";
  if (names.size() > 20) listed += fmt::format(", ... ({} in all)", names.size());
  return message + " The blocks of function \"" + func + "\": " + listed;
}

}  // namespace

BlockSid get_block(const ScheduleState& s, const std::string& name, const std::string& func) {
  if (!s.mod()->prim_func(func))
    fail(s, kFunctionNotFoundError, {}, fmt::format("Cannot find a function named \"{}\" in the module", func));
  std::vector<BlockSid> found;
  // The root block too, as TVM finds it (`sch.get_block("root")` to annotate the function).
  if (BlockSid root = s.root_of(func); root && s.block_at(root).name == name) found.push_back(root);
  for (BlockSid b : s.blocks_in(func)) {
    if (s.block_at(b).name == name) found.push_back(b);
  }
  if (found.empty()) fail(s, kBlockNotFoundError, {}, block_not_found_message(s, name, func));
  if (found.size() > 1)
    fail(s, kMultipleBlocksError, stmt_sids(found),
         fmt::format("Found {} blocks with the name: {}", found.size(), name));
  return found[0];
}

std::vector<LoopSid> get_loops(const ScheduleState& s, BlockSid block) { return s.enclosing_loops(block); }

std::vector<BlockSid> get_child_blocks(const ScheduleState& s, StmtSid block_or_loop) {
  return s.child_blocks(block_or_loop);
}

std::vector<BlockSid> get_output_blocks(const ScheduleState& s, BlockSid scope_block) {
  // Every block under the scope (nested ones too) that writes a buffer its own scope does not
  // allocate, in IR order — TVM's GetOutputBlocks.
  std::vector<BlockSid> out;
  std::vector<BlockSid> pending = s.child_blocks(scope_block);
  std::vector<BlockSid> order;
  while (!pending.empty()) {
    BlockSid b = pending.front();
    pending.erase(pending.begin());
    order.push_back(b);
    std::vector<BlockSid> inner = s.child_blocks(b);
    pending.insert(pending.begin(), inner.begin(), inner.end());
  }
  for (BlockSid b : order) {
    if (is_output_block(s, b)) out.push_back(b);
  }
  return out;
}

}  // namespace tsch::schedule

// ---- instruction kinds

namespace tsch::schedule {

void register_get_block_kinds(KindList& kinds) {
  kinds.push_back(define_kind(
      "GetBlock", "get_block", {attr("name", ParamType::Str), attr("func_name", ParamType::Str, "None")},
      OutputForm::Single,
      [](Schedule& sch, InstructionCall& c) {
        // The function worked on is filled in, so the trace replays on a module with several.
        std::string func = c.attrs[1].is_none() ? sch.func_working_on() : c.attrs[1].s;
        TSCH_USER_ASSERT(!func.empty(), ValueError)
            << "the schedule does not know which function to be working on: the module has several functions; pass "
               "func_name= or call sch.work_on(name)";
        c.attrs[1] = TraceArg::of_str(func);
        output_blocks(c, {get_block(sch.state(), c.attrs[0].s, func)});
      },
      "get_block(name, func_name=None) -> BlockRV",
      "a block with that name exists in the function (func_name=, needed when the module has several)",
      "sch.get_block(\"Y\", func_name=\"mm_relu\")  ->  BlockRV"));
  kinds.back()->is_pure = true;
  kinds.back()->aliases = {"GetSBlock"};
  kinds.push_back(define_kind(
      "GetLoops", "get_loops", {input("block", ParamType::Block)}, OutputForm::List,
      [](Schedule& sch, InstructionCall& c) { output_loops(c, get_loops(sch.state(), sch.block_sid(c.inputs[0]))); },
      "get_loops(block) -> list of LoopRV, outermost first", "the block exists",
      "sch.get_loops(block)  ->  [LoopRV i, LoopRV j, LoopRV k], outermost first"));
  kinds.back()->is_pure = true;
  ParamSpec target = input("block_or_loop", ParamType::BlockOrLoop);
  target.positional_only = true;
  kinds.push_back(define_kind(
      "GetChildBlocks", "get_child_blocks", {target}, OutputForm::List,
      [](Schedule& sch, InstructionCall& c) {
        output_blocks(c, get_child_blocks(sch.state(), sch.block_or_loop_sid(c.inputs[0])));
      },
      "get_child_blocks(block_or_loop) -> list of BlockRV directly under it"));
  kinds.back()->is_pure = true;
  kinds.push_back(define_kind(
      "GetOutputBlocks", "get_output_blocks", {input("scope_block", ParamType::Block)}, OutputForm::List,
      [](Schedule& sch, InstructionCall& c) {
        output_blocks(c, get_output_blocks(sch.state(), sch.block_sid(c.inputs[0])));
      },
      "get_output_blocks(scope_block) -> list of BlockRV under the scope that write a buffer it does not allocate",
      "scope_block is a block (get_block(\"root\") for the whole function)",
      "sch.get_output_blocks(sch.get_block(\"root\"))  ->  [BlockRV C]"));
  kinds.back()->is_pure = true;
  kinds.push_back(define_kind(
      "GetProducers", "get_producers", {input("block", ParamType::Block)}, OutputForm::List,
      [](Schedule& sch, InstructionCall& c) {
        output_blocks(c, get_producers(sch.state(), sch.block_sid(c.inputs[0])));
      },
      "get_producers(block) -> list of BlockRV writing what the block reads"));
  kinds.back()->is_pure = true;
  kinds.push_back(define_kind(
      "GetConsumers", "get_consumers", {input("block", ParamType::Block)}, OutputForm::List,
      [](Schedule& sch, InstructionCall& c) {
        output_blocks(c, get_consumers(sch.state(), sch.block_sid(c.inputs[0])));
      },
      "get_consumers(block) -> list of BlockRV reading what the block writes"));
  kinds.back()->is_pure = true;
}

}  // namespace tsch::schedule
