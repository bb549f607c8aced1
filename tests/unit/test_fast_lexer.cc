// The fast scanner must produce exactly ANTLR's tokens (type, position, text) whenever it
// does not defer to ANTLR: checked on every golden script and on mutated variants.
#include <catch2/catch.hpp>

#include <filesystem>
#include <random>

#include "golden_scripts.h"

#include "support/diagnostics.h"
#include "syntax/parser.h"

namespace fs = std::filesystem;

namespace {

// "tokens..." or "error: message" for both scanners.
std::string dump_antlr(const std::string& text) {
  try {
    std::string out;
    for (const auto& t : tsch::antlr_token_dump(text)) out += t + "\n";
    return out;
  } catch (const tsch::SyntaxError& e) {
    return std::string("error: ") + e.what();
  }
}

bool dump_fast(const std::string& text, std::string& out) {
  try {
    std::vector<std::string> tokens;
    if (!tsch::fast_token_dump(text, tokens)) return false;
    out.clear();
    for (const auto& t : tokens) out += t + "\n";
  } catch (const tsch::SyntaxError& e) {
    out = std::string("error: ") + e.what();
  }
  return true;
}

// Well-formed UTF-8 as the decoder ANTLR uses checks it: no overlong forms, surrogates or
// code points past U+10FFFF (those are rejected before lexing).
bool valid_utf8(const std::string& s) {
  for (size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    size_t w = c < 0x80 ? 1 : (c >= 0xC2 && c <= 0xDF) ? 2 : (c >> 4) == 0xE ? 3 : (c >= 0xF0 && c <= 0xF4) ? 4 : 0;
    if (w == 0 || i + w > s.size()) return false;
    for (size_t k = 1; k < w; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    }
    unsigned char d = w > 1 ? static_cast<unsigned char>(s[i + 1]) : 0;
    if ((c == 0xE0 && d < 0xA0) || (c == 0xED && d >= 0xA0) || (c == 0xF0 && d < 0x90) || (c == 0xF4 && d >= 0x90)) return false;
    i += w;
  }
  return true;
}

}  // namespace

TEST_CASE("fast scanner agrees with the ANTLR lexer on golden scripts and mutations", "[lexer]") {
  std::vector<fs::path> files = tsch::testing::golden_scripts();
  REQUIRE(files.size() > 50);
  std::mt19937 rng(7);
  int compared = 0, deferred = 0;
  for (const auto& f : files) {
    std::string text = tsch::testing::read_file(f);
    for (int variant = 0; variant < 6; ++variant) {
      std::string t = text;
      if (variant > 0 && !t.empty()) {
        static const std::string alphabet = "()[]{}:,.=+-*/%\"'\\\n\t #@x0_9eE.!<>~^&|";
        for (int k = 0; k < variant; ++k) {
          size_t pos = std::uniform_int_distribution<size_t>(0, t.size() - 1)(rng);
          t.insert(pos, 1, alphabet[std::uniform_int_distribution<size_t>(0, alphabet.size() - 1)(rng)]);
        }
      }
      if (!valid_utf8(t)) continue;  // parse_module rejects these before lexing
      std::string fast;
      if (!dump_fast(t, fast)) {
        ++deferred;
        continue;
      }
      INFO(f.string() << " variant " << variant);
      CHECK(fast == dump_antlr(t));
      ++compared;
    }
  }
  CHECK(compared > deferred);
}

TEST_CASE("fast scanner covers numbers, strings and operators exactly", "[lexer]") {
  for (const char* text : {"x = 1.5e-3 + .5 - 10. * 0 / 0.0e0\n", "s = rb'\\x00' + f\"{a!r:>{w}}\" + '''a\nb'''\n",
                           "a //= b ** -c; d <<= 1; e >>= 2; f != g <= h >= i\n", "@T.prim_func\ndef f() -> None: ...\n",
                           "x = [1,\n  2]  # comment\ny = \\\n 3\n", "if x:\n\tpass\n"}) {
    std::string fast;
    REQUIRE(dump_fast(text, fast));
    CHECK(fast == dump_antlr(text));
  }
}
