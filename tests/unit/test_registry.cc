// The global function registry: C++ registration and lookup (override, errors, several
// threads), and calls across the script boundary in both directions.
#include <catch2/catch.hpp>
#include <thread>

#include "runtime/ndarray.h"
#include "runtime/registry.h"
#include "script/error_report.h"
#include "script/interpreter.h"
#include "support/error.h"
#include "syntax/parser.h"

using namespace tsch;
using runtime::Any;

namespace {

runtime::PackedFunc constant(int64_t v) {
  return runtime::make_packed_func([v](const std::vector<Any>&) { return Any::of_int(v); }, "constant");
}

std::string run(script::Interpreter& interp, const std::string& code) {
  std::string out;
  interp.write_stdout = [&](const std::string& s) { out += s; };
  auto globals = interp.make_main_globals("");
  try {
    interp.exec_source(SourceFile::make("t.tsch", code), globals);
  } catch (const script::ScriptError& e) {
    out += script::render_script_error(interp, e);
  }
  return out;
}

}  // namespace

TEST_CASE("Registry: register, look up, override, remove", "[runtime][registry]") {
  runtime::register_global_func("test.registry.f", constant(1));
  CHECK((*runtime::get_global_func("test.registry.f"))({}).as_int() == 1);
  try {
    runtime::register_global_func("test.registry.f", constant(2));
    FAIL("registered a name twice without override");
  } catch (const UserError& e) {
    CHECK(e.kind == UserErrorKind::RuntimeError);
    CHECK(std::string(e.what()).find("Global Function `test.registry.f` is already registered") == 0);
  }
  CHECK((*runtime::get_global_func("test.registry.f"))({}).as_int() == 1);  // unchanged
  runtime::register_global_func("test.registry.f", constant(2), true);
  CHECK((*runtime::get_global_func("test.registry.f"))({}).as_int() == 2);
  auto names = runtime::list_global_func_names();
  CHECK(std::find(names.begin(), names.end(), "test.registry.f") != names.end());
  CHECK(runtime::remove_global_func("test.registry.f"));
  CHECK_FALSE(runtime::remove_global_func("test.registry.f"));
  CHECK(runtime::find_global_func("test.registry.f") == nullptr);
  try {
    runtime::get_global_func("test.registry.f");
    FAIL("found a removed function");
  } catch (const UserError& e) {
    CHECK(e.kind == UserErrorKind::ValueError);
    CHECK(std::string(e.what()) == "Cannot find global function test.registry.f");
  }
  // Checked accessors name what they got.
  try {
    Any::of_str("x").as_int();
    FAIL("a str read as an int");
  } catch (const UserError& e) {
    CHECK(std::string(e.what()) == "expected an int, got str");
  }
}

TEST_CASE("Registry: safe from several threads", "[runtime][registry]") {
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t] {
      for (int i = 0; i < 200; ++i) {
        std::string name = "test.threads." + std::to_string(t) + "." + std::to_string(i % 10);
        runtime::register_global_func(name, constant(t), true);
        CHECK((*runtime::get_global_func(name))({}).as_int() == t);
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t)
    for (int i = 0; i < 10; ++i)
      CHECK(runtime::remove_global_func("test.threads." + std::to_string(t) + "." + std::to_string(i)));
}

TEST_CASE("Registry: C++ calls script functions and scripts call C++ functions", "[runtime][registry]") {
  // A C++ function that scales an array in place and returns its element count.
  runtime::register_global_func("test.cpp.scale",
                                runtime::make_packed_func(
                                    [](const std::vector<Any>& args) {
                                      const runtime::NDArrayRef& a = args.at(0).as_ndarray();
                                      double factor = args.at(1).as_float();
                                      for (int64_t i = 0; i < a->size(); ++i) a->set_f(i, a->get_f(i) * factor);
                                      return Any::of_int(a->size());
                                    },
                                    "test.cpp.scale"),
                                true);
  runtime::PackedFunc from_script;
  {
    script::Interpreter interp;
    std::string out =
        run(interp,
            "import tvm\nimport numpy as np\n"
            "a = tvm.nd.array(np.arange(4, dtype='float32'))\n"
            "print(tvm.get_global_func('test.cpp.scale')(a, 2.5), a.numpy())\n"
            "try:\n    tvm.get_global_func('test.cpp.scale')('x', 1)\nexcept TypeError as e:\n    print(e)\n"
            "@tvm.register_func('test.script.add', override=True)\n"
            "def add(x, y):\n    return x + y\n");
    CHECK(out == "4 [0.  2.5 5.  7.5]\nexpected an NDArray, got str\n");
    from_script = runtime::get_global_func("test.script.add");
    CHECK(from_script->name() == "test.script.add");
    CHECK((*from_script)({Any::of_int(2), Any::of_int(40)}).as_int() == 42);
    CHECK((*from_script)({Any::of_str("a"), Any::of_str("b")}).as_str() == "ab");
    // Another thread (a parallel loop's worker) may not run script code.
    std::string error;
    std::thread([&] {
      try {
        (*from_script)({Any::of_int(1), Any::of_int(2)});
      } catch (const UserError& e) {
        error = e.what();
      }
    }).join();
    CHECK(error ==
          "the script function `test.script.add` cannot be called from another thread (a packed call in a parallel "
          "loop)");
  }
  // The interpreter has ended: a clear error, never a call into freed memory.
  try {
    (*from_script)({Any::of_int(1), Any::of_int(2)});
    FAIL("called a script function after its interpreter ended");
  } catch (const UserError& e) {
    CHECK(e.kind == UserErrorKind::RuntimeError);
    CHECK(std::string(e.what()) ==
          "the script function `test.script.add` cannot be called: the script that defined it has ended");
  }
  runtime::remove_global_func("test.script.add");
  runtime::remove_global_func("test.cpp.scale");
}
