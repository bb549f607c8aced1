// target::Target: TVM's string, config and tag forms, the canonical string, and the errors.
#include <catch2/catch.hpp>
#include <thread>

#include "driver/build.h"
#include "driver/differential.h"
#include "ir/op.h"
#include "ir/printer.h"
#include "support/error.h"
#include "target/target.h"
#include "transform/pass.h"
#include "transform/split_host_device.h"

using namespace tsch;

namespace {

std::string error_of(const std::string& text) {
  try {
    target::parse_target(text);
  } catch (const UserError& e) {
    CHECK(e.kind == UserErrorKind::ValueError);
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("target strings print in TVM's canonical form", "[target]") {
  CHECK(target::parse_target("llvm -mcpu=skylake-avx512")->str() == "llvm -keys=cpu -mcpu=skylake-avx512");
  // Without -mcpu or -mtriple, llvm gets the host's triple (TVM's cpu parser).
  CHECK(target::parse_target("llvm")->str() == "llvm -keys=cpu -mtriple=" + target::host_triple());
  // Attributes sorted by name, "--key value" and "-key=value" alike, lists joined by commas.
  CHECK(target::parse_target("llvm --num-cores 4 -mcpu=znver4 -mattr=+avx2,+fma")->str() ==
        "llvm -keys=cpu -mattr=+avx2,+fma -mcpu=znver4 -num-cores=4");
  CHECK(target::parse_target("cuda -arch=sm_90")->str() ==
        "cuda -keys=cuda,gpu -arch=sm_90 -max_num_threads=1024 -thread_warp_size=32");
  // -device joins the keys in front of the kind's.
  CHECK(target::parse_target("llvm -device=arm_cpu -mcpu=cortex-a72")->keys ==
        std::vector<std::string>{"arm_cpu", "cpu"});
  // User keys replace the defaults.
  CHECK(target::parse_target("cuda -keys=cuda -arch=sm_80")->keys == std::vector<std::string>{"cuda"});
  // Quoted values keep their spaces.
  CHECK(*target::parse_target("llvm -mcpu=generic -model='my model'")->get_str("model") == "my model");
  CHECK(target::parse_target("llvm -mcpu=generic -model='my model'")->str() ==
        "llvm -keys=cpu -mcpu=generic -model='my model'");
}

TEST_CASE("target options have types", "[target]") {
  auto t = target::parse_target("llvm -mcpu=znver4 -num-cores=8 -opt-level=2 -mattr=+avx2");
  CHECK(t->get_int("num-cores") == 8);
  CHECK(t->get_int("opt-level") == 2);
  CHECK(t->get_str_array("mattr") == std::vector<std::string>{"+avx2"});
  CHECK(t->device_type() == target::kDLCPU);
  CHECK(target::parse_target("cuda -arch=sm_80")->device_type() == target::kDLCUDA);
  CHECK(target::parse_target("llvm -mcpu=x -fast-math")->get_bool("fast-math"));
  CHECK(target::parse_target("llvm -mcpu=x -fast-math=false")->get_bool("fast-math", true) == false);
}

TEST_CASE("targets from configs, JSON text and tags", "[target]") {
  auto a = target::target_from_config({{"kind", "cuda"}, {"arch", "sm_80"}, {"host", "llvm -mcpu=znver4"}});
  CHECK(a->str() == "cuda -keys=cuda,gpu -arch=sm_80 -max_num_threads=1024 -thread_warp_size=32");
  REQUIRE(a->host);
  CHECK(a->host->str() == "llvm -keys=cpu -mcpu=znver4");
  auto b = target::parse_target(R"({"kind": "llvm", "mcpu": "znver4", "num-cores": 2})");
  CHECK(b->str() == "llvm -keys=cpu -mcpu=znver4 -num-cores=2");
  // The exported config builds the same target again.
  CHECK(target::target_from_config(a->export_config())->str() == a->str());
  CHECK(target::target_from_config(a->export_config())->host->str() == a->host->str());
  auto tag = target::parse_target("nvidia/nvidia-a100");
  CHECK(tag->kind->name == "cuda");
  CHECK(*tag->get_str("arch") == "sm_80");
  CHECK(tag->get_int("l2_cache_size_bytes") == 41943040);
}

TEST_CASE("target errors are TVM's ValueErrors", "[target]") {
  CHECK(error_of("llvmx") == "Target kind \"llvmx\" is not defined. Target creation from string failed: llvmx");
  CHECK(error_of("llvm -bogus=1").rfind("Cannot recognize 'bogus'. Candidates are: cl-opt, device, fast-math", 0) == 0);
  CHECK(error_of("llvm -bogus=1")
            .find(", during parsing target[\"bogus\"]. Target creation from string failed: llvm -bogus=1") !=
        std::string::npos);
  CHECK(error_of("llvm -num-cores=four") ==
        "Cannot parse integer from string: four, during parsing target[\"num-cores\"]. Target creation from string "
        "failed: llvm -num-cores=four");
  CHECK(error_of("llvm -mcpu=a -mcpu=b").find("The key \"mcpu\" appears more than once") == 0);
  CHECK(error_of("cuda -arch=80").find("CUDA target gets an invalid CUDA arch: -arch=80") == 0);
  CHECK(error_of("").find("Cannot parse empty target string") == 0);
  CHECK(error_of("llvm -model='open").find("Mismatched quotes") == 0);
  CHECK(error_of("{\"arch\": \"sm_80\"}").find("Field \"kind\" is not found") == 0);
  CHECK_THROWS_AS(target::target_from_config({{"kind", "llvm"}, {"num-cores", "four"}}), UserError);
}

TEST_CASE("the target scope is per thread", "[target]") {
  auto t = target::parse_target("llvm -mcpu=znver4");
  CHECK(target::current_target() == nullptr);
  target::enter_target_scope(t);
  CHECK(target::current_target() == t);
  target::Target seen_elsewhere = t;
  std::thread([&] { seen_elsewhere = target::current_target(); }).join();
  CHECK(seen_elsewhere == nullptr);
  target::exit_target_scope(t);
  CHECK(target::current_target() == nullptr);
  CHECK_THROWS_AS(target::exit_target_scope(t), UserError);
}

TEST_CASE("driver::build refuses targets it has no code generator for", "[target][driver]") {
  auto mod = std::make_shared<ir::IRModuleNode>();
  try {
    driver::build(mod, target::parse_target("rocm"));
    FAIL("rocm built");
  } catch (const UserError& e) {
    CHECK(std::string(e.what()).find("not supported yet: target \"rocm\"") == 0);
  }
  // nvptx builds (PTX from LLVM): its device module is a CUDA module, as TVM's.
  runtime::CompiledModuleRef nvptx = driver::build(mod, target::parse_target("nvptx -mcpu=sm_80"));
  REQUIRE(nvptx->device_modules().size() == 1);
  CHECK(nvptx->device_modules()[0]->type_key() == "cuda");
  // CUDA builds: the host module imports the device module and runs (on the CPU emulation).
  runtime::CompiledModuleRef cuda = driver::build(mod, target::parse_target("cuda -arch=sm_80"));
  CHECK(cuda->device_modules().size() == 1);
  CHECK(cuda->device_modules()[0]->type_key() == "cuda");
  CHECK(cuda->unavailable().empty());
  CHECK_THROWS_AS(driver::build(mod, target::parse_target("llvm -mcpu=x -fast-math")), UserError);
}

TEST_CASE("SplitHostDevice: a bound loop nest becomes a kernel the host launches", "[target][cuda]") {
  // for bx in blockIdx.x(n / 64): for tx in threadIdx.x(64): B[bx * 64 + tx] = A[...] * x
  ir::Var n = ir::make_var("n"), x = ir::make_var("x", ir::DataType::float32());
  ir::Buffer a = ir::make_buffer("A", ir::DataType::float32(), {n});
  ir::Buffer b = ir::make_buffer("B", ir::DataType::float32(), {n});
  ir::Var bx = ir::make_var("bx"), tx = ir::make_var("tx");
  ir::PrimExpr i = ir::add(ir::mul(bx, ir::make_int(64)), tx);
  ir::Stmt store =
      std::make_shared<ir::BufferStoreNode>(b, ir::mul(ir::buffer_load(a, {i}), x), std::vector<ir::PrimExpr>{i});
  auto inner = std::make_shared<ir::ForNode>(tx, ir::make_int(0), ir::make_int(64), ir::ForKind::ThreadBinding, store);
  inner->thread_tag = "threadIdx.x";
  auto outer = std::make_shared<ir::ForNode>(bx, ir::make_int(0), ir::floordiv(n, ir::make_int(64)),
                                             ir::ForKind::ThreadBinding, inner);
  outer->thread_tag = "blockIdx.x";
  auto f = std::make_shared<ir::PrimFuncNode>();
  ir::Var ha = ir::make_var("A", ir::DataType::handle()), hb = ir::make_var("B", ir::DataType::handle());
  f->params = {ha, hb, x};
  f->buffer_map = {{ha, a}, {hb, b}};
  f->body = outer;
  ir::IRModule split = transform::split_host_device(ir::module_of("f", f), "cuda");
  REQUIRE(split->functions.size() == 2);
  ir::PrimFunc kernel = ir::as_prim_func(split->functions[1].second);
  CHECK(split->functions[1].first == "f_kernel");
  // Pointers first, then scalars by name; the launch passes them and the grid and block.
  REQUIRE(kernel->params.size() == 4);
  CHECK(kernel->params[0] == a->data);
  CHECK(kernel->params[1] == b->data);
  CHECK(kernel->params[2] == n);
  CHECK(kernel->params[3] == x);
  std::string host = ir::script(ir::as_prim_func(split->functions[0].second), "f");
  INFO(host);
  CHECK(host.find("T.call_packed(\"f_kernel\", A") != std::string::npos);
  CHECK(host.find(".data, n, x, n // 64, 64)") != std::string::npos);
  // An access outside any binding is TVM's "did you forget to bind?".
  auto unbound = std::make_shared<ir::PrimFuncNode>(*f);
  unbound->body = std::make_shared<ir::ForNode>(bx, ir::make_int(0), n, ir::ForKind::Serial, store);
  CHECK_THROWS_WITH(transform::split_host_device(ir::module_of("g", unbound), "cuda"),
                    Catch::Contains("Did you forget to bind?"));
}

TEST_CASE("ThreadSync places the barrier a shared-memory exchange needs, the emulation shows the race without it",
          "[target][cuda]") {
  // for bx in blockIdx.x(1): S = shared[4]; for tx in threadIdx.x(4): S[tx] = A[tx]; B[tx] = S[3 - tx]; S[tx] = 0
  ir::Buffer a = ir::make_buffer("A", ir::DataType::float32(), {ir::make_int(4)});
  ir::Buffer b = ir::make_buffer("B", ir::DataType::float32(), {ir::make_int(4)});
  ir::Buffer s = ir::make_buffer("S", ir::DataType::float32(), {ir::make_int(4)}, "shared");
  ir::Var bx = ir::make_var("bx"), tx = ir::make_var("tx"), i = ir::make_var("i");
  auto exchange = [&](const ir::Var& t) {
    return ir::make_seq(
        {std::make_shared<ir::BufferStoreNode>(s, ir::buffer_load(a, {t}), std::vector<ir::PrimExpr>{t}),
         std::make_shared<ir::BufferStoreNode>(b, ir::buffer_load(s, {ir::sub(ir::make_int(3), t)}),
                                               std::vector<ir::PrimExpr>{t}),
         // Cleared after use: a later run cannot find the values there by chance.
         std::make_shared<ir::BufferStoreNode>(s, ir::make_float(0, ir::DataType::float32()),
                                               std::vector<ir::PrimExpr>{t})});
  };
  auto threads =
      std::make_shared<ir::ForNode>(tx, ir::make_int(0), ir::make_int(4), ir::ForKind::ThreadBinding, exchange(tx));
  threads->thread_tag = "threadIdx.x";
  auto blocks = std::make_shared<ir::ForNode>(bx, ir::make_int(0), ir::make_int(1), ir::ForKind::ThreadBinding,
                                              std::make_shared<ir::AllocateNode>(s, threads));
  blocks->thread_tag = "blockIdx.x";
  ir::Var ha = ir::make_var("A", ir::DataType::handle()), hb = ir::make_var("B", ir::DataType::handle());
  auto gpu = std::make_shared<ir::PrimFuncNode>();
  gpu->params = {ha, hb};
  gpu->buffer_map = {{ha, a}, {hb, b}};
  gpu->body = blocks;
  // The same exchange in one thread: B[i] = A[3 - i].
  auto cpu = std::make_shared<ir::PrimFuncNode>(*gpu);
  cpu->body = std::make_shared<ir::ForNode>(
      i, ir::make_int(0), ir::make_int(4), ir::ForKind::Serial,
      std::make_shared<ir::BufferStoreNode>(b, ir::buffer_load(a, {ir::sub(ir::make_int(3), i)}),
                                            std::vector<ir::PrimExpr>{i}));
  ir::IRModule reference = ir::module_of("main", cpu), candidate = ir::module_of("main", gpu);

  std::vector<std::string> kernels;
  driver::BuildOptions options;
  options.after_pass = [&](const std::string& pass, const std::string&, const ir::PrimFunc& f) {
    if (pass == "tir.ThreadSync") kernels.push_back(ir::script(f, "main"));
  };
  driver::build(candidate, target::parse_target("cuda -arch=sm_80"), options);
  // One ThreadSync per storage scope ("shared", then "shared.dyn"); the second sees the first's barriers.
  REQUIRE(kernels.size() == 2);
  INFO(kernels[0]);
  // The barrier sits between the write of S and the read of another thread's element.
  size_t store = kernels[0].find("S[tx] = A[tx]"), sync = kernels[0].find("T.tvm_storage_sync(\"shared\")"),
         load = kernels[0].find("B[tx] = S[");
  REQUIRE(sync != std::string::npos);
  CHECK(store < sync);
  CHECK(sync < load);
  // ... and another between that read and the write that clears S.
  size_t second = kernels[0].find("T.tvm_storage_sync(\"shared\")", sync + 1);
  CHECK(second > load);
  CHECK(second < kernels[0].find("S[tx] = T.float32(0"));
  driver::DifferentialResult synced = driver::compare_execution(reference, candidate);
  CHECK(synced.compared);
  CHECK(synced.equal);

  auto ctx = std::make_shared<transform::PassContext>(transform::PassContext::current());
  ctx->disabled_pass.push_back("tir.ThreadSync");
  transform::PassContext::enter(ctx);
  driver::DifferentialResult racy = driver::compare_execution(reference, candidate);
  transform::PassContext::exit();
  CHECK(racy.compared);
  CHECK_FALSE(racy.equal);
}

TEST_CASE("scalable-vector targets and vscale's values", "[target]") {
  using target::parse_target;
  CHECK(target::target_has_vla(parse_target("llvm -mtriple=aarch64-linux-gnu -mattr=+sve")));
  CHECK(target::target_has_vla(parse_target("llvm -mtriple=aarch64-linux-gnu -mattr=+neon,+sve2")));
  CHECK(target::target_has_vla(parse_target("llvm -mtriple=riscv64-linux-gnu -mattr=+v")));
  CHECK_FALSE(target::target_has_vla(parse_target("llvm -mtriple=aarch64-linux-gnu -mattr=+neon")));
  CHECK_FALSE(target::target_has_vla(parse_target("llvm -mtriple=x86_64-linux-gnu -mattr=+sve")));
  CHECK_FALSE(target::target_has_vla(nullptr));
  CHECK(target::vscale_values(parse_target("llvm -mtriple=aarch64-linux-gnu -mattr=+sve")) ==
        std::vector<int64_t>{1, 2, 4, 8, 16});
  CHECK(target::vscale_values(parse_target("llvm -mtriple=aarch64-linux-gnu -mattr=+sve -vector-width=256")) ==
        std::vector<int64_t>{1, 2, 4, 8, 16, 32});
}
