// The lexer's INDENT/DEDENT/NEWLINE synthesis (TschLexerBase).
#include <catch2/catch.hpp>

#include "syntax/parser.h"

using tsch::token_names;
using V = std::vector<std::string>;

TEST_CASE("simple statement ends with NEWLINE", "[lexer]") {
  CHECK(token_names("x = 1") == V{"NAME", "ASSIGN", "NUMBER", "NEWLINE"});
}

TEST_CASE("block produces INDENT and DEDENT", "[lexer]") {
  CHECK(token_names("if x:\n    y\nz\n") ==
        V{"IF", "NAME", "COLON", "NEWLINE", "INDENT", "NAME", "NEWLINE", "DEDENT", "NAME", "NEWLINE"});
}

TEST_CASE("several DEDENTs close nested blocks at once", "[lexer]") {
  auto t = token_names("for i in r:\n  for j in r:\n    x\ny\n");
  CHECK(std::count(t.begin(), t.end(), "INDENT") == 2);
  CHECK(std::count(t.begin(), t.end(), "DEDENT") == 2);
  CHECK(t[t.size() - 2] == "NAME");
}

TEST_CASE("DEDENTs are emitted at end of input", "[lexer]") {
  auto t = token_names("def f():\n    return 1");
  CHECK(t.back() == "DEDENT");
  CHECK(t[t.size() - 2] == "NEWLINE");
}

TEST_CASE("newlines inside brackets are ignored", "[lexer]") {
  CHECK(token_names("f(1,\n      2)\n") ==
        V{"NAME", "OPEN_PAREN", "NUMBER", "COMMA", "NUMBER", "CLOSE_PAREN", "NEWLINE"});
}

TEST_CASE("blank and comment-only lines do not change indentation", "[lexer]") {
  auto t = token_names("if x:\n    a\n\n  # comment\n    b\n");
  CHECK(std::count(t.begin(), t.end(), "INDENT") == 1);
  CHECK(std::count(t.begin(), t.end(), "DEDENT") == 1);
}

TEST_CASE("backslash continuation joins lines", "[lexer]") {
  CHECK(token_names("x = 1 + \\\n    2\n") == V{"NAME", "ASSIGN", "NUMBER", "ADD", "NUMBER", "NEWLINE"});
}

TEST_CASE("tabs count to the next multiple of 8, and mixing them with spaces ambiguously is a TabError", "[lexer]") {
  auto t = token_names("if x:\n\ty\n\tz\nif w:\n  \tv\n  \tu\n");
  CHECK(std::count(t.begin(), t.end(), "INDENT") == 2);
  // A tab and 8 spaces are one level only when a tab is 8 columns: Python 3 refuses it.
  try {
    token_names("if x:\n\ty\n        z\n");
    FAIL("no TabError");
  } catch (const tsch::SyntaxError& e) {
    CHECK(std::string(e.what()) == "inconsistent use of tabs and spaces in indentation");
  }
}

TEST_CASE("inconsistent dedent is a syntax error", "[lexer]") {
  CHECK_THROWS_AS(token_names("if x:\n    a\n  b\n"), tsch::SyntaxError);
}

TEST_CASE("strings with prefixes and triple quotes are single tokens", "[lexer]") {
  CHECK(token_names("f'{x}' r'\\d' '''a\nb''' \"#\"") == V{"STRING", "STRING", "STRING", "STRING", "NEWLINE"});
}

TEST_CASE("invalid character is reported with its column", "[lexer]") {
  try {
    token_names("x = $");
    FAIL("expected a syntax error");
  } catch (const tsch::SyntaxError& e) {
    CHECK(e.loc.col == 5);
    CHECK(std::string(e.what()).find("invalid character") != std::string::npos);
  }
}
