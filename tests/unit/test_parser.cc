// Parser and AST builder: node kinds, locations and syntax errors.
#include <catch2/catch.hpp>
#include <random>

#include "golden_scripts.h"
#include "syntax/parser.h"

using namespace tsch;

static std::shared_ptr<ast::Module> parse(const std::string& text) {
  return parse_module(SourceFile::make("test.tsch", text));
}

static std::string syntax_error(const std::string& text) {
  try {
    parse(text);
  } catch (const SyntaxError& e) {
    return std::to_string(e.loc.line) + ":" + std::to_string(e.loc.col) + ": " + e.what();
  }
  return "no error";
}

TEST_CASE("assignment targets and operators", "[parser]") {
  auto m = parse("a, (b, c) = 1, (2, 3)\nx += 2 ** -1\n");
  REQUIRE(m->body.size() == 2);
  CHECK(m->body[0]->kind == ast::StmtKind::Assign);
  auto& aug = static_cast<ast::AugAssign&>(*m->body[1]);
  CHECK(aug.op == ast::BinOpKind::Add);
  CHECK(aug.value->kind == ast::ExprKind::BinOp);
}

TEST_CASE("binary operators are left associative with precedence", "[parser]") {
  auto m = parse("1 - 2 - 3 * 4\n");
  auto& e = static_cast<ast::ExprStmt&>(*m->body[0]);
  auto& top = static_cast<ast::BinOp&>(*e.value);
  CHECK(top.op == ast::BinOpKind::Sub);
  CHECK(static_cast<ast::BinOp&>(*top.left).op == ast::BinOpKind::Sub);
  CHECK(static_cast<ast::BinOp&>(*top.right).op == ast::BinOpKind::Mul);
}

TEST_CASE("power is right associative and binds tighter than unary minus", "[parser]") {
  auto m = parse("-2 ** 3 ** 2\n");
  auto& e = static_cast<ast::ExprStmt&>(*m->body[0]);
  REQUIRE(e.value->kind == ast::ExprKind::UnaryOp);
  auto& pow = static_cast<ast::BinOp&>(*static_cast<ast::UnaryOp&>(*e.value).operand);
  CHECK(pow.op == ast::BinOpKind::Pow);
  CHECK(pow.right->kind == ast::ExprKind::BinOp);
}

TEST_CASE("decorated function with annotations and defaults", "[parser]") {
  auto m =
      parse("@T.prim_func\ndef f(A: T.Buffer((4,), 'float32'), n: int = 3, *args, k=1, **kw) -> None:\n    pass\n");
  auto& f = static_cast<ast::FunctionDef&>(*m->body[0]);
  CHECK(f.decorators.size() == 1);
  REQUIRE(f.params.size() == 5);
  CHECK(f.params[0].annotation != nullptr);
  CHECK(f.params[1].default_value != nullptr);
  CHECK(f.params[2].kind == ast::Param::Kind::VarArgs);
  CHECK(f.params[4].kind == ast::Param::Kind::VarKw);
  CHECK(f.returns != nullptr);
}

TEST_CASE("elif chains nest in orelse", "[parser]") {
  auto m = parse("if a:\n  x\nelif b:\n  y\nelse:\n  z\n");
  auto& i = static_cast<ast::If&>(*m->body[0]);
  REQUIRE(i.orelse.size() == 1);
  auto& inner = static_cast<ast::If&>(*i.orelse[0]);
  CHECK(inner.orelse.size() == 1);
}

TEST_CASE("f-string fields are parsed as expressions", "[parser]") {
  auto m = parse("f'a{x + 1:>{w}}b{y!r}'\n");
  auto& e = static_cast<ast::ExprStmt&>(*m->body[0]);
  auto& f = static_cast<ast::FString&>(*e.value);
  REQUIRE(f.parts.size() == 4);
  CHECK(f.parts[1].value->kind == ast::ExprKind::BinOp);
  CHECK(f.parts[1].spec != nullptr);
  CHECK(f.parts[3].conversion == 'r');
}

TEST_CASE("locations are 1-based line and column", "[parser]") {
  auto m = parse("x = 1\nfoo(bar)\n");
  auto& call = static_cast<ast::ExprStmt&>(*m->body[1]);
  CHECK(call.loc.line == 2);
  auto& args = static_cast<ast::Call&>(*call.value).args;
  CHECK(args[0].value->loc.col == 5);
}

TEST_CASE("syntax errors carry location and a Python-like message", "[parser]") {
  CHECK(syntax_error("if x\n  pass\n") == "1:5: invalid syntax: expected ':', found end of line");
  CHECK(syntax_error("def f():\nreturn 1\n") == "2:1: expected an indented block");
  CHECK(syntax_error("f(x=1, 2)\n") == "1:8: positional argument follows keyword argument");
  CHECK(syntax_error("1 = x\n") == "1:1: cannot assign to literal");
  CHECK(syntax_error("def f(a=1, b):\n  pass\n") == "1:12: non-default argument follows default argument");
}

TEST_CASE("incomplete input is detected for the REPL", "[parser]") {
  CHECK(is_incomplete_input("def f():\n"));
  CHECK(is_incomplete_input("x = (1,\n"));
  CHECK(is_incomplete_input("for i in range(3):\n    print(i)\n"));
  CHECK_FALSE(is_incomplete_input("for i in range(3):\n    print(i)\n\n"));
  CHECK_FALSE(is_incomplete_input("x = 1\n"));
  CHECK_FALSE(is_incomplete_input("x = )\n"));
}

TEST_CASE("invalid input is a SyntaxError from the grammar or the AST builder", "[parser]") {
  const char* cases[] = {
      "x = (1 +\n",
      "f(a=1, a=2)\n",
      "f(a=1, b)\n",
      "f(x for x in y, 1)\n",
      "1 = x\n",
      "f() = 1\n",
      "a, b += 1\n",
      "(a, b): int = 1\n",
      "*a\n",
      "x = (*a)\n",
      "def f(a=1, b): pass\n",
      "def f(a, a): pass\n",
      "def f(**k, a): pass\n",
      "def f(*a, *b): pass\n",
      "nonlocal x\n",
      "d = {**a for a in b}\n",
      "try:\n    x\nexcept:\n    y\nexcept E:\n    z\n",
      "x = a < not b\n",
      "lambda a=1, b: 0\n",
      "del f()\n",
      "for f() in x: pass\n",
      "x = [a, b for a in c]\n",
      "from import x\n",
      "import a.\n",
      "  x = 1\n",
      "if x:\npass\n",
      "x = yield\n",
      "f'{}'\n",
      "a if b\n",
      "x = $\n",
      "s = 'abc\n",
  };
  for (const char* text : cases) {
    INFO(text);
    CHECK_THROWS_AS(parse(text), SyntaxError);
  }
}

// Every golden script parses (but the syntax-error ones); damaged copies (tokens deleted, duplicated or inserted)
// either parse or raise SyntaxError — never another exception or a crash.
TEST_CASE("golden scripts parse, and damaged copies fail only with SyntaxError", "[parser]") {
  std::vector<std::filesystem::path> files = tsch::testing::golden_scripts();
  REQUIRE(files.size() > 50);
  std::mt19937 rng(11);
  static const char* pieces[] = {"(",    ")",    "[",       "]",          ":",      ",",  "=",    "*", "**",
                                 "not ", " in ", "lambda ", "if ",        " else ", "\n", "    ", "@", ".",
                                 "{",    "}",    "-",       "for x in y", "==",     "'",  "f'{"};
  int parsed = 0, rejected = 0;
  for (const auto& f : files) {
    std::string text = tsch::testing::read_file(f);
    INFO(f.string());
    // The syntax-error goldens (errors/syntax_*.tsch) are the only ones meant to be rejected.
    bool expect_error = f.parent_path().filename() == "errors" && f.filename().string().rfind("syntax_", 0) == 0;
    if (expect_error) {
      CHECK_THROWS_AS(parse_module(SourceFile::make(f.string(), text)), SyntaxError);
    } else {
      CHECK_NOTHROW(parse_module(SourceFile::make(f.string(), text)));
    }
    for (int variant = 1; variant < 8 && !text.empty(); ++variant) {
      std::string t = text;
      for (int k = 0; k < (variant + 1) / 2; ++k) {
        size_t pos = std::uniform_int_distribution<size_t>(0, t.size() - 1)(rng);
        if (variant % 2) {
          t.erase(pos, std::uniform_int_distribution<size_t>(1, 3)(rng));
        } else {
          t.insert(pos, pieces[std::uniform_int_distribution<size_t>(0, std::size(pieces) - 1)(rng)]);
        }
      }
      try {
        parse_module(SourceFile::make("<damaged>", t));
        ++parsed;
      } catch (const SyntaxError&) {
        ++rejected;
      }
    }
  }
  CHECK(parsed > 0);
  CHECK(rejected > 0);
}
