// schedule::Schedule driven from C++ (as TE and a tuner will): instructions applied and
// recorded, the trace in TVM's Python and JSON forms, replay from JSON, rollback on refusal,
// the render levels, and the instruction registry.
#include <catch2/catch.hpp>
#include <set>
#include <type_traits>
#include <unordered_set>

#include "golden_scripts.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "ir/structural_equal.h"
#include "schedule/error.h"
#include "schedule/primitives.h"
#include "schedule/schedule.h"

using namespace tsch;
using namespace tsch::ir;
using namespace tsch::schedule;

namespace {

// for i, j in T.grid(64, 32): block "B": OUT[vi, vj] = IN[vi, vj] + 1
IRModule copy_module() {
  Buffer in = make_buffer("A", DataType::float32(), {make_int(64), make_int(32)});
  Buffer out = make_buffer("B", DataType::float32(), {make_int(64), make_int(32)});
  Var i = make_var("i"), j = make_var("j"), vi = make_var("vi"), vj = make_var("vj");
  auto block = std::make_shared<BlockNode>();
  block->name = "B";
  block->iter_vars = {IterVar{vi, Range{make_int(0), make_int(64)}, IterType::DataPar},
                      IterVar{vj, Range{make_int(0), make_int(32)}, IterType::DataPar}};
  block->reads = {BufferRegion{in, {Range{vi, make_int(1)}, Range{vj, make_int(1)}}}};
  block->writes = {BufferRegion{out, {Range{vi, make_int(1)}, Range{vj, make_int(1)}}}};
  block->body = std::make_shared<BufferStoreNode>(
      out, add(buffer_load(in, {vi, vj}), make_float(1, DataType::float32())), std::vector<PrimExpr>{vi, vj});
  Stmt realize = std::make_shared<BlockRealizeNode>(std::vector<PrimExpr>{i, j}, make_bool(true), block);
  Stmt inner = std::make_shared<ForNode>(j, make_int(0), make_int(32), ForKind::Serial, realize);
  Stmt outer = std::make_shared<ForNode>(i, make_int(0), make_int(64), ForKind::Serial, inner);
  auto root = std::make_shared<BlockNode>();
  root->name = "root";
  root->body = outer;
  auto func = std::make_shared<PrimFuncNode>();
  for (const Buffer& b : {in, out}) {
    Var handle = make_var(b->name + "_handle", DataType::handle());
    func->params.push_back(handle);
    func->buffer_map.emplace_back(handle, b);
  }
  func->body = std::make_shared<BlockRealizeNode>(std::vector<PrimExpr>{}, make_bool(true), root);
  auto mod = std::make_shared<IRModuleNode>();
  mod->functions.emplace_back("main", func);
  return mod;
}

}  // namespace

TEST_CASE("Schedule: instructions are applied, recorded and printed as TVM prints them", "[schedule]") {
  Schedule sch(copy_module(), 7);
  RV b = sch.get_block("B", "main");
  std::vector<RV> loops = sch.get_loops(b);
  std::vector<RV> tiles = sch.sample_perfect_tile(loops[1], 2, 8);
  std::vector<RV> parts = sch.split(loops[0], {std::nullopt, 8});
  RV fused = sch.fuse({parts[1], loops[1]});
  sch.parallel(parts[0]);
  sch.annotate(b, "meta_schedule.tiling_structure", TraceArg::of_str("SS"));
  std::vector<std::string> lines = sch.trace().as_python();
  REQUIRE(lines.size() == 7);
  CHECK(lines[0] == "b0 = sch.get_block(name=\"B\", func_name=\"main\")");
  CHECK(lines[1] == "l1, l2 = sch.get_loops(block=b0)");
  CHECK(lines[2].rfind("v3, v4 = sch.sample_perfect_tile(loop=l2, n=2, max_innermost_factor=8, decision=[", 0) == 0);
  CHECK(lines[3] ==
        "l5, l6 = sch.split(loop=l1, factors=[None, 8], preserve_unit_iters=True, disable_predication=False)");
  CHECK(lines[4] == "l7 = sch.fuse(l6, l2, preserve_unit_iters=True)");
  CHECK(lines[5] == "sch.parallel(loop=l5)");
  CHECK(lines[6] == "sch.annotate(block_or_loop=b0, ann_key=\"meta_schedule.tiling_structure\", ann_val=\"SS\")");

  nlohmann::json json = sch.trace().as_json();
  CHECK(json[0][0].dump() == R"(["GetBlock",[],["B","main"],["b0"]])");
  CHECK(json[0][3].dump() == R"(["Split",["l1","None",8],[1,0],["l5","l6"]])");
  CHECK(json[0][4].dump() == R"(["Fuse",["l6","l2"],[1],["l7"]])");
  CHECK(json[0][6].dump() == R"(["Annotate",["b0","\"SS\""],["meta_schedule.tiling_structure"],[]])");
  REQUIRE(json[1].size() == 1);
  CHECK(json[1][0][0] == 2);

  // Replayed from its JSON text on a fresh schedule: the same module and the same trace.
  Schedule fresh(copy_module(), 1);
  Trace::apply_json_to_schedule(nlohmann::json::parse(json.dump()), fresh, nullptr);
  CHECK(structural_equal(fresh.mod(), sch.mod()));
  CHECK(fresh.trace().as_json() == json);
  (void)fused;
}

TEST_CASE("Schedule: a refusal or a user error leaves state and trace as they were", "[schedule]") {
  Schedule sch(copy_module(), 1, 0, ErrorRenderLevel::Fast);
  RV b = sch.get_block("B", "main");
  std::vector<RV> loops = sch.get_loops(b);
  const IRModule before = sch.mod();
  size_t steps = sch.trace().size();
  try {
    sch.fuse({loops[1], loops[0]});
    FAIL("fuse of loops in the wrong order was accepted");
  } catch (const RenderedScheduleError& e) {
    CHECK(std::string(e.what()) == "ScheduleError: The outer loop is not the parent of the inner loop");
    CHECK(e.kind == "OuterNotInnerParent");
  }
  CHECK(sch.mod() == before);
  CHECK(sch.trace().size() == steps);

  sch.split(loops[0], {4, std::nullopt});
  try {
    sch.parallel(loops[0]);  // replaced by the split
    FAIL("a stale loop handle was accepted");
  } catch (const UserError& e) {
    CHECK(e.kind == UserErrorKind::ValueError);
    CHECK(std::string(e.what()).rfind("parallel: the loop no longer exists in the IRModule", 0) == 0);
  }
  CHECK_THROWS_AS(sch.sample_perfect_tile(loops[1], 0), UserError);
  CHECK(sch.trace().size() == steps + 1);
}

TEST_CASE("Trace: simplified drops unused queries, remove_postproc stops at EnterPostproc", "[schedule]") {
  Schedule sch(copy_module(), 1);
  RV b = sch.get_block("B", "main");
  sch.get_loops(b);  // unused
  sch.apply("EnterPostproc", {}, {});
  sch.parallel(sch.get_loops(b)[0]);
  CHECK(sch.trace().simplified(false).as_python() ==
        std::vector<std::string>{"b0 = sch.get_block(name=\"B\", func_name=\"main\")", "sch.enter_postproc()",
                                 "l1, l2 = sch.get_loops(block=b0)", "sch.parallel(loop=l1)"});
  CHECK(sch.trace().simplified(true).as_python().empty());
  CHECK(sch.trace().as_json(true)[0].size() == 2);
}

TEST_CASE("InstructionKind: every primitive registers one kind under TVM's name", "[schedule]") {
  for (const char* name : {"GetBlock",
                           "GetLoops",
                           "Split",
                           "Fuse",
                           "Reorder",
                           "Parallel",
                           "Vectorize",
                           "Unroll",
                           "Bind",
                           "ComputeAt",
                           "ReverseComputeAt",
                           "ComputeInline",
                           "ReverseComputeInline",
                           "DecomposeReduction",
                           "RFactor",
                           "Blockize",
                           "CacheRead",
                           "CacheWrite",
                           "SetScope",
                           "StorageAlign",
                           "TransformLayout",
                           "Annotate",
                           "Unannotate",
                           "AddUnitLoop",
                           "SamplePerfectTile",
                           "SampleCategorical",
                           "SampleComputeLocation",
                           "EnterPostproc",
                           "GetChildBlocks",
                           "GetProducers",
                           "GetConsumers"}) {
    INFO(name);
    const InstructionKind* k = InstructionKind::find(name);
    REQUIRE(k != nullptr);
    CHECK(InstructionKind::find_method(k->method) == k);
  }
  CHECK(InstructionKind::find("GetSBlock") == InstructionKind::find("GetBlock"));
  CHECK(InstructionKind::find("Split")->signature() ==
        "loop, factors, preserve_unit_iters=True, disable_predication=False");
  CHECK(InstructionKind::find("Fuse")->signature() == "*loops, preserve_unit_iters=True");
  CHECK(InstructionKind::find("TransformLayout")->signature() ==
        "block, buffer, index_map, pad_value=None, *, assume_injective_transform=False");
}

// Every condition a primitive refuses is exercised by a golden script that prints the
// refusal's kind ("NotOnlyChildError: The loops can't be fused ..."), so the coverage of
// refusals is visible and a new kind without a golden case fails here.
TEST_CASE("ScheduleError: every error kind has a golden case", "[schedule]") {
  std::string expected;
  for (const auto& e : std::filesystem::recursive_directory_iterator(TSCH_GOLDEN_DIR)) {
    if (e.path().extension() == ".expected") expected += tsch::testing::read_file(e.path());
  }
  std::set<std::string> names;
  for (const ScheduleErrorKind* kind : all_schedule_error_kinds()) {
    INFO(kind->name);
    CHECK(names.insert(kind->name).second);  // each name declared once
    CHECK(expected.find(std::string(kind->name) + ": ") != std::string::npos);
  }
  CHECK(names.size() > 60);
}

TEST_CASE("ExprRV: an expression over sampled values is evaluated, printed, written to JSON and replayed",
          "[schedule]") {
  Schedule sch(copy_module(), 7);
  RV b = sch.get_block("B", "main");
  std::vector<RV> loops = sch.get_loops(b);
  std::vector<RV> tiles =
      sch.apply("SamplePerfectTile", {TraceArg::of_ref(loops[1])}, {TraceArg::of_int(2), TraceArg::of_int(16)},
                TraceArg::of_list({TraceArg::of_int(4), TraceArg::of_int(8)}));
  REQUIRE(tiles.size() == 2);
  // The ExprRV is a variable this schedule evaluates: v * 2 + v' = 4 * 2 + 8.
  PrimExpr e = add(mul(tiles[0]->var, make_int(2)), tiles[1]->var);
  int64_t value = 0;
  REQUIRE(as_const_int(sch.evaluate(e), &value));
  CHECK(value == 16);
  CHECK(rv_of_var(tiles[0]->var.get()) == tiles[0]);

  // A split factor computed from them: the primitive gets 16, the trace keeps the expression.
  TraceArg factor = TraceArg::of_expr(e);
  REQUIRE(factor.list.size() == 2);
  std::vector<RV> parts = sch.apply("Split", {TraceArg::of_ref(loops[0]), TraceArg::none(), factor},
                                    {TraceArg::of_bool(true), TraceArg::of_bool(false)});
  CHECK(sch.loop(parts[1]->loop_sid()).extent->kind == ExprKind::IntImm);
  CHECK(as<IntImmNode>(sch.loop(parts[1]->loop_sid()).extent)->value == 16);
  std::vector<std::string> lines = sch.trace().as_python();
  CHECK(
      lines.back() ==
      "l5, l6 = sch.split(loop=l1, factors=[None, v3 * 2 + v4], preserve_unit_iters=True, disable_predication=False)");

  // JSON: read back on a fresh schedule, the same module and the same JSON.
  Schedule fresh(copy_module(), 1);
  Trace::apply_json_to_schedule(sch.trace().as_json(), fresh, nullptr);
  CHECK(structural_equal(fresh.mod(), sch.mod()));
  CHECK(fresh.trace().as_json() == sch.trace().as_json());

  // Another decision recomputes the factor: 2 * 2 + 16 = 20.
  Trace other = sch.trace().with_decision(sch.trace().insts()[2],
                                          TraceArg::of_list({TraceArg::of_int(2), TraceArg::of_int(16)}), false);
  Schedule replayed(copy_module(), 1);
  other.apply_to_schedule(replayed, false);
  std::vector<RV> new_loops = replayed.get_loops(replayed.get_block("B", "main"));
  CHECK(as<IntImmNode>(replayed.loop(new_loops[1]->loop_sid()).extent)->value == 20);

  // Another schedule does not know these ExprRVs.
  CHECK_THROWS_AS(replayed.evaluate(e), UserError);
}

TEST_CASE("ScheduleState: the copy-on-write replace writes what nothing else holds and copies the rest", "[schedule]") {
  ScheduleState st(copy_module());
  auto renamed = [&](const std::string& name) {
    auto b = std::make_shared<BlockNode>(st.block_at(st.blocks_in("main")[0]));
    b->sid = 0;
    b->name = name;
    return b;
  };
  BlockSid block = st.blocks_in("main")[0];
  std::vector<LoopSid> loops = st.enclosing_loops(block);
  REQUIRE(loops.size() == 2);
  const PrimFuncNode* func = st.mod()->prim_func("main").get();
  const ForNode* outer = st.loop(loops[0]);
  const ForNode* inner = st.loop(loops[1]);

  // Nothing else holds the path: the parent loop is written in place, nothing above it changes.
  st.replace_copy_on_write(block, renamed("B2"), {}, 0);
  CHECK(st.block(block) == nullptr);  // the replaced block's sid is gone
  BlockSid b2 = st.blocks_in("main")[0];
  CHECK(st.block_at(b2).name == "B2");
  CHECK(st.loop(loops[1]) == inner);
  CHECK(st.loop(loops[0]) == outer);
  CHECK(st.mod()->prim_func("main").get() == func);

  // A holder of the outer loop: it and the inner loop are copied, the root block written in
  // place; the held loop still shows the old block.
  Stmt held = st.stmt_ref(loops[0]);
  st.replace_copy_on_write(b2, renamed("B3"), {}, 0);
  CHECK(st.loop(loops[0]) != held.get());
  CHECK(st.loop(loops[0]) != nullptr);  // the copy keeps the loop's sid
  auto* held_inner = as<ForNode>(as<ForNode>(held)->body);
  CHECK(as<BlockRealizeNode>(held_inner->body)->block->name == "B2");
  CHECK(st.mod()->prim_func("main").get() == func);

  // A holder of the module: module and function are copied; the held module is unchanged.
  IRModule mod = st.mod();
  BlockSid b3 = st.blocks_in("main")[0];
  Block reused = renamed("B4");
  st.replace_copy_on_write(b3, reused, {{&st.block_at(b3), reused}}, 0);
  CHECK(st.mod() != mod);
  CHECK(st.mod()->prim_func("main").get() != func);
  CHECK(st.block_at(b3).name == "B4");  // block_sref_reuse: the new block took the old sid
  CHECK(st.block(b3) == reused.get());
  bool old_has_b3 = false;
  for_each_stmt(mod->prim_func("main")->body, [&](const Stmt& s) {
    if (auto* b = as<BlockNode>(s)) old_has_b3 |= b->name == "B3";
  });
  CHECK(old_has_b3);
}

// Typed sids: a block where a loop is expected does not compile; either converts to a
// statement, and the way back is explicit and checked.
static_assert(std::is_trivially_copyable_v<LoopSid> && std::is_trivially_copyable_v<BlockSid> &&
              std::is_trivially_copyable_v<StmtSid>);
static_assert(!std::is_convertible_v<uint64_t, LoopSid> && !std::is_convertible_v<uint64_t, BlockSid> &&
              !std::is_convertible_v<uint64_t, StmtSid>);
static_assert(!std::is_convertible_v<BlockSid, LoopSid> && !std::is_convertible_v<LoopSid, BlockSid>);
static_assert(!std::is_convertible_v<StmtSid, LoopSid> && !std::is_convertible_v<StmtSid, BlockSid>);
static_assert(std::is_convertible_v<LoopSid, StmtSid> && std::is_convertible_v<BlockSid, StmtSid>);
static_assert(std::is_invocable_v<decltype(&parallel), ScheduleState&, LoopSid>);
static_assert(!std::is_invocable_v<decltype(&parallel), ScheduleState&, BlockSid>);
static_assert(!std::is_invocable_v<decltype(&compute_inline), ScheduleState&, LoopSid>);

TEST_CASE("ScheduleState: typed sids convert back to loops and blocks only where they name one", "[schedule]") {
  ScheduleState st(copy_module());
  BlockSid block = st.blocks_in("main")[0];
  LoopSid loop = st.enclosing_loops(block)[0];
  StmtSid any_block = block, any_loop = loop;
  CHECK(st.as_block(any_block) == block);
  CHECK(st.as_loop(any_loop) == loop);
  CHECK(!st.as_loop(any_block));
  CHECK(!st.as_block(any_loop));
  CHECK(!st.as_block(StmtSid()));
  CHECK(any_loop == loop);
  CHECK(any_block != any_loop);
  CHECK(st.scope_block(block) == st.root_of("main"));
  std::unordered_set<StmtSid> seen{block, loop};
  CHECK(seen.count(any_loop) == 1);
}
