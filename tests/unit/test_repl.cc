// REPL pieces that do not need a terminal: the IR line diff and tab completion.
#include <catch2/catch.hpp>

#include "bindings/builtin_modules.h"
#include "repl/completion.h"
#include "repl/highlight.h"
#include "repl/ir_diff.h"
#include "script/interpreter.h"
#include "syntax/parser.h"

using namespace tsch;

TEST_CASE("ir diff marks changed lines and folds unchanged stretches", "[repl]") {
  repl::DiffStyle style;
  CHECK(repl::render_diff("a\nb\n", "a\nb\n", style).empty());
  std::string before, after;
  for (int i = 0; i < 20; ++i) {
    before += "line " + std::to_string(i) + "\n";
    after += (i == 10 ? std::string("changed 10") : "line " + std::to_string(i)) + "\n";
  }
  std::string diff = repl::render_diff(before, after, style);
  CHECK(diff == "  ...\n  line 8\n  line 9\n- line 10\n+ changed 10\n  line 11\n  line 12\n  ...\n");
  style.fold = false;
  std::string full = repl::render_diff(before, after, style);
  CHECK(full.find("  line 0\n") == 0);
  CHECK(full.find("  line 19\n") != std::string::npos);
  // Pure insertions and removals.
  CHECK(repl::render_diff("a\nc\n", "a\nb\nc\n", style) == "  a\n+ b\n  c\n");
  CHECK(repl::render_diff("a\nb\nc\n", "a\nc\n", style) == "  a\n- b\n  c\n");
}

namespace {

struct Fixture {
  Fixture() {
    script::register_builtin_modules();
    globals = interp.make_main_globals("");
    std::string code =
        "import tvm\n"
        "from tvm.script import tir as T\n"
        "@T.prim_func\n"
        "def f(A: T.Buffer((8,), \"float32\"), B: T.Buffer((8,), \"float32\")):\n"
        "    for i in range(8):\n"
        "        with T.block(\"Bcopy\"):\n"
        "            vi = T.axis.spatial(8, i)\n"
        "            B[vi] = A[vi]\n"
        "sch = tvm.tir.Schedule(f)\n"
        "schedule_count = 1\n";
    interp.exec_source(SourceFile::make("t.tsch", code), globals);
  }
  repl::Completion complete(const std::string& line) {
    return repl::complete(interp, globals, line, {":help", ":show", ":save"});
  }
  script::Interpreter interp;
  script::NamespaceRef globals;
};

bool has(const std::vector<std::string>& xs, const std::string& x) {
  return std::find(xs.begin(), xs.end(), x) != xs.end();
}

}  // namespace

TEST_CASE("completion offers names, attributes, block names and commands", "[repl]") {
  Fixture f;
  repl::Completion c = f.complete("x = sche");
  CHECK(c.word_start == 4);
  CHECK(c.options == std::vector<std::string>{"schedule_count"});
  c = f.complete("sch.spl");
  CHECK(c.word_start == 4);
  CHECK(c.options == std::vector<std::string>{"split"});
  c = f.complete("sch.");
  CHECK(has(c.options, "decompose_reduction"));
  CHECK(!has(c.options, "__init__"));  // private names only when asked for
  c = f.complete("tvm.tir.Sch");
  CHECK(has(c.options, "Schedule"));
  c = f.complete("b = sch.get_block(\"B");
  CHECK(c.options == std::vector<std::string>{"Bcopy"});
  CHECK(c.word_start == 19);
  c = f.complete(":s");
  CHECK(c.options == std::vector<std::string>{":save", ":show"});
  CHECK(f.complete("nothing_here.x").options.empty());
  CHECK(f.complete("wh").options == std::vector<std::string>{"while"});
}

TEST_CASE("IR highlighting colours the editor categories", "[repl]") {
  std::string line = "        with T.block(\"Y\"):  # note";
  std::string out = repl::highlight_line(line);
  CHECK(out.find("\033[35mwith\033[0m") != std::string::npos);     // keyword
  CHECK(out.find("\033[36mT.block\033[0m") != std::string::npos);  // T. builtin
  CHECK(out.find("\033[1;33m\"Y\"\033[0m") != std::string::npos);  // block name
  CHECK(out.find("\033[2m# note\033[0m") != std::string::npos);    // comment
  std::string numbers = repl::highlight_line("x = T.float32(0.5) + \"s\"");
  CHECK(numbers.find("\033[34m0.5\033[0m") != std::string::npos);
  CHECK(numbers.find("\033[32m\"s\"\033[0m") != std::string::npos);  // an ordinary string
  // Removing the colour codes gives the line back.
  std::string plain;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == '\033') {
      while (out[i] != 'm') ++i;
      continue;
    }
    plain += out[i];
  }
  CHECK(plain == line);
}

TEST_CASE("dotted builtins colour as one name", "[repl]") {
  CHECK(repl::highlight_line("vi = T.axis.spatial(8, i)").find("\033[36mT.axis.spatial\033[0m") != std::string::npos);
}
