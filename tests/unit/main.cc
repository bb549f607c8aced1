#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include "bindings/builtin_modules.h"

// Built-in modules are registered once for all tests.
static const bool registered = [] {
  tsch::script::register_builtin_modules();
  return true;
}();
