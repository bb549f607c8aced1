// The hand-written parser must build exactly the AST that the ANTLR parser + AstBuilder
// build (every node, field and location), and may only accept what ANTLR accepts: checked
// on every golden script, on mutated variants of them, and on hand-picked corner cases.
#include <catch2/catch.hpp>

#include <filesystem>
#include <random>

#include "golden_scripts.h"

#include "support/diagnostics.h"
#include "syntax/ast_dump.h"
#include "syntax/parser.h"

namespace fs = std::filesystem;

namespace {

// The ANTLR path's AST dump, or "error: ..." when it rejects the text.
std::string antlr_result(const tsch::SourceFile* source) {
  try {
    return tsch::ast::dump(*tsch::antlr_parse_module(source));
  } catch (const tsch::SyntaxError& e) {
    return std::string("error: ") + e.what();
  }
}

enum class Outcome { Agreed, GaveUp };

// Compares the fast parser with ANTLR on `text`: equal trees whenever the fast one accepts.
Outcome compare(const std::string& text, const std::string& what) {
  const tsch::SourceFile* source = tsch::SourceFile::make("<test>", text);
  std::shared_ptr<tsch::ast::Module> fast;
  try {
    fast = tsch::fast_only_parse_module(source);
  } catch (const tsch::SyntaxError&) {
    // f-string fields parse through the full path and may report their own errors.
  }
  if (!fast) return Outcome::GaveUp;
  INFO(what);
  CHECK(tsch::ast::dump(*fast) == antlr_result(source));
  return Outcome::Agreed;
}

}  // namespace

TEST_CASE("fast parser builds ANTLR's AST on golden scripts and mutations", "[parser]") {
  std::vector<fs::path> files = tsch::testing::golden_scripts();
  REQUIRE(files.size() > 50);
  std::mt19937 rng(11);
  int agreed_original = 0, original = 0, agreed_mutated = 0;
  for (const auto& f : files) {
    std::string text = tsch::testing::read_file(f);
    for (int variant = 0; variant < 8; ++variant) {
      std::string t = text;
      if (variant > 0 && !t.empty()) {
        // Token-level damage: delete, duplicate or insert punctuation and keywords.
        static const char* pieces[] = {"(", ")", "[", "]", ":", ",", "=", "*", "**", "not ", " in ", "lambda ", "if ",
                                       " else ", "\n", "    ", "@", ".", "{", "}", "-", "for x in y", "=="};
        for (int k = 0; k < (variant + 1) / 2; ++k) {
          size_t pos = std::uniform_int_distribution<size_t>(0, t.size() - 1)(rng);
          if (variant % 2) {
            t.erase(pos, std::uniform_int_distribution<size_t>(1, 3)(rng));
          } else {
            t.insert(pos, pieces[std::uniform_int_distribution<size_t>(0, std::size(pieces) - 1)(rng)]);
          }
        }
      }
      bool is_original = variant == 0;
      Outcome o = compare(t, f.string() + " variant " + std::to_string(variant));
      if (is_original) {
        ++original;
        agreed_original += o == Outcome::Agreed;
      } else {
        agreed_mutated += o == Outcome::Agreed;
      }
    }
  }
  // The fast path must take nearly every valid script (only ones that ANTLR rejects or
  // that need the ANTLR lexer may fall back).
  WARN("fast parser took " << agreed_original << " of " << original << " golden scripts, " << agreed_mutated << " mutated ones");
  CHECK(agreed_original * 10 >= original * 8);
  CHECK(agreed_mutated > 0);
}

TEST_CASE("fast parser matches ANTLR on precedence, lists and statements", "[parser]") {
  const char* cases[] = {
      "x = -2 ** -1 * 3 + ~a ** b // c % d @ e\n",
      "y = a | b ^ c & d << 2 >> 1 - -5 + +6\n",
      "z = not a < b <= c and d or e and not f or g is not h\n",
      "w = a not in b in c == d != e > f >= g\n",
      "(a and b) and c or (d or e)\n",
      "v = x if y else z if w else lambda q, *r, s=1, **t: q\n",
      "f(a, *b, c=1, **d)\nf(x for x in y if x if not z)\ng(*a, b)\n",
      "a[1:2, ::3, :, 4:, b, c:d:e]\na[1,]\na[:]\n",
      "t = 1,\nu = (1,)\nv = ()\nw = (1)\nx, *y = z\n[a, b] = c = d, e\n",
      "d = {}\nd = {1: 2, **e, 3: 4,}\nd = {k: v for k, v in items if k}\n",
      "l = [x * y for x in range(3) for y in range(x) if y]\nl = [1, *a, 2,]\n",
      "x += 1\ny **= 2\nz //= 3\nq @= r\nm[i] >>= 1\na.b -= c\n",
      "x: int = 5\ny: T.int32\n",
      "import a.b.c as d, e\nfrom . import f\nfrom ..g.h import (i as j, k,)\nfrom ... import *\nfrom m import n, o as p\n",
      "def f(a, b: int = 1, /, *args, c, d=2, **kw) -> None:\n    global g, h\n    def inner():\n        nonlocal a\n        return a\n    return\n",
      "class C(B, metaclass=M):\n    x = 1\n    def m(self): pass\n",
      "@dec\n@dec2(1)\ndef f(): ...\n@T.prim_func\nclass K: pass\n",
      "try:\n    pass\nexcept E as e:\n    raise X from e\nexcept:\n    raise\nelse:\n    pass\nfinally:\n    del a, b[1], c.d\n",
      "try:\n    x\nfinally:\n    y\n",
      "with a as b, c, d as (e, f):\n    pass\n",
      "while x:\n    break\nelse:\n    continue\nfor i, j in a, b:\n    pass\nelse:\n    pass\n",
      "if a:\n    b\nelif c:\n    d\nelif e: f\nelse:\n    g\n",
      "assert x, 'msg'\nassert y\nx = 1; y = 2;\n",
      "s = 'a' \"b\" '''c\nd'''\nb = b'x' rb'\\y'\nf = f'{a!r:>{w}} {b=} {c + 1:.2f}' 'lit'\n",
      "n = 15 + 1.5e-3\n", "n = .5 - 9223372036854775808\n", "n = -9223372036854775808\n",
      "print(*[1], sep='')\nx = None, True, False, ...\n",
      "x = a.b.c(d)[e](f).g\n",
      "for x, in y: pass\nfor (a, b), c in d: pass\n",
      "lambda: 0\nlambda *, a: a\nlambda *a, **k: 0\n",
  };
  for (const char* text : cases) {
    INFO(text);
    CHECK(compare(text, text) == Outcome::Agreed);
  }
}

TEST_CASE("fast parser gives up on what ANTLR or the builder rejects", "[parser]") {
  const char* cases[] = {
      "x = (1 +\n",          "f(a=1, a=2)\n",         "f(a=1, b)\n",        "f(x for x in y, 1)\n",
      "1 = x\n",             "f() = 1\n",             "a, b += 1\n",        "(a, b): int = 1\n",
      "*a\n",                "x = (*a)\n",            "def f(a=1, b): pass\n", "def f(a, a): pass\n",
      "def f(**k, a): pass\n", "def f(*a, *b): pass\n", "nonlocal x\n",       "s = {1, 2}\n",
      "d = {**a for a in b}\n", "try:\n    x\nexcept:\n    y\nexcept E:\n    z\n",
      "x = a < not b\n",     "lambda a=1, b: 0\n",    "del f()\n",          "for f() in x: pass\n",
      "x = [a, b for a in c]\n", "from import x\n",   "import a.\n",        "  x = 1\n",
      "if x:\npass\n",       "x = yield\n",           "f'{}'\n",            "a if b\n",
  };
  for (const char* text : cases) {
    INFO(text);
    const tsch::SourceFile* source = tsch::SourceFile::make("<test>", text);
    std::shared_ptr<tsch::ast::Module> fast;
    try {
      fast = tsch::fast_only_parse_module(source);
    } catch (const tsch::SyntaxError&) {
    }
    CHECK_FALSE(fast);
    CHECK_THROWS_AS(tsch::antlr_parse_module(source), tsch::SyntaxError);
  }
}
