// Interpreter semantics: values, scoping, calls, exceptions.
#include <catch2/catch.hpp>

#include "script/error_report.h"
#include "script/interpreter.h"
#include "syntax/parser.h"

using namespace tsch;
using namespace tsch::script;

namespace {

// Runs `code` and returns what it printed, or the rendered error.
std::string run(const std::string& code) {
  Interpreter interp;
  std::string out;
  interp.write_stdout = [&](const std::string& s) { out += s; };
  auto globals = interp.make_main_globals("");
  try {
    interp.exec_source(SourceFile::make("t.tsch", code), globals);
  } catch (const ScriptError& e) {
    out += render_script_error(interp, e);
  } catch (const SyntaxError& e) {
    out += render_syntax_error(e);
  }
  return out;
}

}  // namespace

TEST_CASE("integer arithmetic follows Python", "[interp]") {
  CHECK(run("print(-7 // 2, -7 % 2, 7 // -2, 7 % -2, 2 ** 62)") == "-4 1 -4 -1 4611686018427387904\n");
  CHECK(run("print(7 / 2, 1 / 4, 6 / 3)") == "3.5 0.25 2.0\n");
  CHECK(run("print(True + 1, 3 * 1.5, -7.5 // 2, -7.5 % 2)") == "2 4.5 -4.0 0.5\n");
}

TEST_CASE("integer overflow raises instead of wrapping", "[interp]") {
  CHECK(run("x = 2 ** 63").find("OverflowError") != std::string::npos);
  CHECK(run("x = 9223372036854775807 * 2").find("OverflowError") != std::string::npos);
  CHECK(run("x = -9223372036854775807 - 1\nprint(x)") == "-9223372036854775808\n");
}

TEST_CASE("float repr is the shortest round trip", "[interp]") {
  CHECK(run("print(0.1, 1e-05, 1e16, 1e15, 1.5e-7, 2.0, 0.1 + 0.2)") ==
        "0.1 1e-05 1e+16 1000000000000000.0 1.5e-07 2.0 0.30000000000000004\n");
}

TEST_CASE("closures see later assignments, nonlocal and global write through", "[interp]") {
  CHECK(run("def f():\n  x = 1\n  g = lambda: x\n  x = 2\n  return g()\nprint(f())") == "2\n");
  CHECK(run("n = 0\ndef inc():\n  global n\n  n += 1\ninc(); inc()\nprint(n)") == "2\n");
  CHECK(
      run("def c():\n  k = 0\n  def i():\n    nonlocal k\n    k += 1\n    return k\n  i()\n  return i()\nprint(c())") ==
      "2\n");
}

TEST_CASE("argument binding errors name the function", "[interp]") {
  CHECK(run("def f(a, b): pass\nf(1)").find("TypeError: f() missing 1 required positional argument: 'b'") !=
        std::string::npos);
  CHECK(run("def f(a, b, c, *, d): pass\nf()")
            .find("TypeError: f() missing 3 required positional arguments: 'a', 'b', and 'c'") != std::string::npos);
  CHECK(run("def f(a, *, d, e): pass\nf(1)")
            .find("TypeError: f() missing 2 required keyword-only arguments: 'd' and 'e'") != std::string::npos);
  CHECK(run("def f(a): pass\nf(1, 2)").find("TypeError: f() takes 1 positional argument but 2 were given") !=
        std::string::npos);
  CHECK(run("def f(a): pass\nf(b=1)").find("unexpected keyword argument 'b'") != std::string::npos);
}

TEST_CASE("exceptions: hierarchy, finally, re-raise", "[interp]") {
  CHECK(run("try:\n  [][1]\nexcept LookupError as e:\n  print(type(e).__name__, e)") ==
        "IndexError list index out of range\n");
  CHECK(run("def f():\n  try:\n    return 1\n  finally:\n    print('fin')\nprint(f())") == "fin\n1\n");
  CHECK(run("class E(ValueError): pass\ntry:\n  raise E('boom')\nexcept ValueError as e:\n  print(repr(e))") ==
        "E('boom')\n");
  CHECK(run("try:\n  try:\n    1/0\n  except ZeroDivisionError:\n    raise\nexcept Exception as e:\n  print('outer', "
            "e)") == "outer division by zero\n");
}

TEST_CASE("dict keeps insertion order and Python key equality", "[interp]") {
  CHECK(run("d = {}\nd[1] = 'a'\nd[1.0] = 'b'\nd['x'] = 3\ndel d[1]\nd[2] = 4\nprint(d, len(d))") ==
        "{'x': 3, 2: 4} 2\n");
}

TEST_CASE("recursion is bounded", "[interp]") {
  CHECK(run("def r(n): return r(n + 1)\nr(0)").find("RecursionError") != std::string::npos);
}

TEST_CASE("errors point at the offending token", "[interp]") {
  std::string out = run("x = 1\ny = x / 0\n");
  CHECK(out.rfind("t.tsch:2:7: error: ZeroDivisionError: division by zero\n", 0) == 0);
  CHECK(out.find("      ^") != std::string::npos);
}

TEST_CASE("classmethod binds the class it is looked up through, staticmethod nothing", "[interp]") {
  const std::string classes =
      "class A:\n"
      "    @classmethod\n"
      "    def who(cls, x=0):\n"
      "        return cls.__name__ + str(x)\n"
      "    @staticmethod\n"
      "    def add(a, b):\n"
      "        return a + b\n"
      "class B(A):\n"
      "    pass\n";
  CHECK(run(classes + "print(A.who(), B.who(1), B().who(2), A().add(1, 2), B.add(3, 4))") == "A0 B1 B2 3 7\n");
  CHECK(run(classes + "B.who(1, 2)").find("TypeError: A.who() takes") != std::string::npos);
  CHECK(run(classes + "A.add(1)").find("TypeError: A.add() missing 1 required positional argument: 'b'") !=
        std::string::npos);
  CHECK(run("classmethod(len)()").find("TypeError: 'classmethod' object is not callable") != std::string::npos);
}

TEST_CASE("__init_subclass__ runs on the base after the subclass body, with the class keywords", "[interp]") {
  const std::string base =
      "class Base:\n"
      "    def __init_subclass__(cls, tag='none', **kw):\n"
      "        print('hook', cls.__name__, tag, kw, cls.x)\n";
  CHECK(run(base + "class C(Base, tag='t', n=1):\n    x = 5\n    print('body')\n") == "body\nhook C t {'n': 1} 5\n");
  CHECK(run(base + "class C(Base):\n    x = 1\nclass D(C):\n    x = 2\n") == "hook C none {} 1\nhook D none {} 2\n");
  CHECK(run("class A:\n    pass\nclass B(A, k=1):\n    pass\n")
            .find("TypeError: B.__init_subclass__() takes no keyword arguments") != std::string::npos);
}
