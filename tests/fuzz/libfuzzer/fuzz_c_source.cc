// libFuzzer target: hostile names -> target "c" code generation. The input gives the names of
// a small function (its global_symbol, its buffers, a loop variable, an intermediate buffer
// and a loop annotation), separated by NUL bytes; an even first byte reduces the symbol to a
// C identifier, so the other names reach the compiler. driver::build either refuses the module (a
// user error: a symbol that is not a C identifier) or compiles it with the system compiler;
// then the generated source must hold exactly one entry point, named by the symbol, and no
// preprocessor line but the generator's own includes. A source the compiler rejects, or any
// other exception, is a finding.
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "codegen/signature.h"
#include "driver/build.h"
#include "ir/op.h"
#include "support/error.h"
#include "target/target.h"

using namespace tsch;

namespace {

[[noreturn]] void finding(const std::string& what, const std::vector<std::string>& names, const std::string& source) {
  std::fprintf(stderr, "\n==== fuzz_c_source finding: %s\nnames:", what.c_str());
  for (const auto& n : names) std::fprintf(stderr, " [%s]", n.c_str());
  std::fprintf(stderr, "\n---- source:\n%s\n----\n", source.c_str());
  std::abort();
}

// B[i] = tmp[0] where tmp[0] = A[i] + 1, for i in [0, 16): every kind of name a C source holds.
ir::IRModule make_module(const std::vector<std::string>& names) {
  ir::DataType f32 = ir::DataType::float32();
  auto shape = std::vector<ir::PrimExpr>{ir::make_int(16)};
  ir::Buffer a = ir::make_buffer(names[1], f32, shape), b = ir::make_buffer(names[2], f32, shape);
  ir::Buffer tmp = ir::make_buffer(names[4], f32, {ir::make_int(1)});
  ir::Var i = ir::make_var(names[3]);
  ir::PrimExpr zero = ir::make_int(0);
  ir::Stmt fill = std::make_shared<ir::BufferStoreNode>(
      tmp, ir::make_binary(ir::ExprKind::Add, ir::buffer_load(a, {i}), ir::make_float(1.0, f32)),
      std::vector<ir::PrimExpr>{zero});
  ir::Stmt copy = std::make_shared<ir::BufferStoreNode>(b, ir::buffer_load(tmp, {zero}), std::vector<ir::PrimExpr>{i});
  ir::Stmt body = std::make_shared<ir::SeqStmtNode>(std::vector<ir::Stmt>{fill, copy});
  body = std::make_shared<ir::AllocateNode>(tmp, body);
  auto loop = std::make_shared<ir::ForNode>(i, ir::make_int(0), ir::make_int(16), ir::ForKind::Serial, body);
  loop->annotations.emplace_back(names[5], ir::AttrValue::of_str(names[6]));
  auto f = std::make_shared<ir::PrimFuncNode>();
  for (const auto& buf : {a, b}) {
    ir::Var p = ir::make_var(buf->name, ir::DataType::handle());
    f->params.push_back(p);
    f->buffer_map.emplace_back(p, buf);
  }
  f->body = loop;
  auto m = std::make_shared<ir::IRModuleNode>();
  m->functions.emplace_back(names[0], f);
  return m;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) { return 0; }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> names(7);
  const char* defaults[] = {"f", "A", "B", "i", "tmp", "pragma_hint", "x"};
  size_t k = 0;
  std::string current;
  for (size_t p = 0; p <= size && k < names.size(); ++p) {
    if (p == size || data[p] == 0) {
      names[k++] = current;
      current.clear();
    } else {
      current += static_cast<char>(data[p]);
    }
  }
  for (size_t j = 0; j < names.size(); ++j)
    if (names[j].empty()) names[j] = defaults[j];
  // Half the inputs keep their symbol as it is (mostly refused); the other half reduce it to a
  // C identifier, so the hostile names of the rest reach the compiler.
  if (size > 0 && (data[0] & 1) == 0) {
    std::string id;
    for (char ch : names[0])
      if (std::isalnum(static_cast<unsigned char>(ch)) && static_cast<unsigned char>(ch) < 0x80) id += ch;
    names[0] = "f" + id;
  }
  static const target::Target c = target::parse_target("c");
  runtime::CompiledModuleRef m;
  try {
    m = driver::build(make_module(names), c);
  } catch (const UserError&) {
    return 0;  // refused: a symbol that is not a C identifier
  } catch (const runtime::BuildError& e) {
    std::string why = e.what();
    // A symbol that names a function the C library declares (exit, free, sinf) clashes with
    // its prototype: the compiler's refusal reaches the user as a RuntimeError, as it should.
    bool clashes = false;
    for (const char* what : {"conflicting types for ", "redeclared as different kind of symbol", "redefinition of "})
      clashes = clashes || (why.find(what) != std::string::npos && why.find(names[0]) != std::string::npos);
    if (why.find("system C compiler") != std::string::npos && !clashes)
      finding("the generated C source does not compile: " + why, names, "");
    return 0;
  }
  std::string source = m->source("c");
  static const std::set<std::string> includes = {"#include <math.h>", "#include <stdbool.h>", "#include <stdint.h>",
                                                 "#include <stdlib.h>", "#include <string.h>"};
  std::istringstream lines(source);
  std::string line;
  int entries = 0;
  std::string entry = codegen::is_c_keyword(names[0])
                          ? "int32_t tsch_entry_" + names[0] + "(void** buffers, int64_t* scalars) {"
                          : "int32_t " + names[0] + "(void** buffers, int64_t* scalars) {";
  while (std::getline(lines, line)) {
    size_t first = line.find_first_not_of(" \t");
    if (first != std::string::npos && line[first] == '#' && !includes.count(line))
      finding("a preprocessor line", names, source);
    // (A keyword's entry point is declared first with its assembler label.)
    std::string label =
        "int32_t tsch_entry_" + names[0] + "(void** buffers, int64_t* scalars) __asm__(\"" + names[0] + "\");";
    if (line.rfind("int32_t ", 0) == 0 && line != label) {
      if (line != entry) finding("an entry point other than the symbol's", names, source);
      ++entries;
    }
  }
  if (entries != 1) finding("not exactly one entry point", names, source);
  return 0;
}
