// "Did you mean": the choice CPython's Python/suggestions.c makes (cases checked against
// CPython 3.11's own output for the same names).
#include <catch2/catch.hpp>

#include "script/suggestions.h"
#include "support/closest_name.h"

using tsch::closest_name;
using tsch::script::unexpected_keyword_message;

TEST_CASE("closest_name picks CPython's suggestion", "[suggestions]") {
  // A letter dropped, swapped or doubled is close; a third of the characters changed is not.
  CHECK(closest_name("blkk", {"blk", "sch", "print"}) == "blk");
  CHECK(closest_name("splt", {"fuse", "split", "reorder"}) == "split");
  CHECK(closest_name("vectorise", {"parallel", "vectorize", "unroll"}) == "vectorize");
  CHECK(closest_name("xyz", {"split", "fuse"}).empty());
  // A change of case costs half of another letter: "Schedule" beats "Scheduler".
  CHECK(closest_name("schedule", {"Scheduler", "Schedule"}) == "Schedule");
  // CPython's answer for `count` among Python's builtins is `round` (first of the closest).
  CHECK(closest_name("count", {"abs", "round", "print", "compile"}) == "round");
  // The name itself is never suggested; ties go to the first candidate.
  CHECK(closest_name("ab", {"ab"}).empty());
  CHECK(closest_name("abc", {"abd", "abe"}) == "abd");
  // Over 750 candidates, or names over 40 characters, give no suggestion.
  std::vector<std::string> many(751, "other");
  many.push_back("split");
  CHECK(closest_name("splt", many).empty());
  // (after the common prefix and suffix are set aside, as CPython does).
  CHECK(closest_name("x" + std::string(40, 'a') + "y", {"z" + std::string(40, 'a') + "w"}).empty());
  CHECK(closest_name(std::string(41, 'a') + "b", {std::string(41, 'a') + "c"}) == std::string(41, 'a') + "c");
}

TEST_CASE("an unexpected keyword names the closest parameter as CPython 3.13 does", "[suggestions]") {
  CHECK(unexpected_keyword_message("split", "factor", {"loop", "factors", "preserve_unit_iters"}) ==
        "split() got an unexpected keyword argument 'factor'. Did you mean 'factors'?");
  CHECK(unexpected_keyword_message("f", "zzz", {"loop"}) == "f() got an unexpected keyword argument 'zzz'");
}
