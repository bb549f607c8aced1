#include "codegen/signature.h"

#include <cctype>
#include <charconv>
#include <cstdio>
#include <optional>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "ir/functor.h"
#include "ir/op.h"
#include "ir/printer_base.h"
#include "support/error.h"

namespace tsch::codegen {

using runtime::BufferParam;

FunctionSignature collect_signature(const std::string& name, const ir::PrimFunc& f) {
  FunctionSignature sig;
  sig.name = name;
  std::unordered_set<const ir::VarNode*> seen;
  auto slot = [&](const ir::Var& v) {
    if (seen.insert(v.get()).second) sig.scalar_slots.push_back(v);
  };
  for (const auto& p : f->params) {
    sig.param_names.push_back(p->name);
    ir::Buffer buf = f->buffer_of(p);
    if (buf) {
      if (!runtime_dtype(buf->dtype))
        throw BuildError("not supported yet: buffer " + buf->name + " of dtype " + buf->dtype.to_string());
      sig.buffers.push_back(BufferParam{buf->name, buf->dtype, buf->shape});
      sig.scalar_params.push_back(nullptr);
    } else {
      sig.buffers.push_back(std::nullopt);
      sig.scalar_params.push_back(p);
    }
  }
  // Shape variables first (bound from arrays), then scalar parameters, then any other free
  // variable the body reads from a shape (e.g. strides): all become slots.
  for (const auto& [p, buf] : f->buffer_map)
    for (const auto& d : buf->shape)
      ir::for_each_expr(d, [&](const ir::PrimExpr& e) {
        if (ir::as<ir::VarNode>(e)) slot(std::static_pointer_cast<const ir::VarNode>(e));
      });
  for (const auto& p : f->params)
    if (!f->buffer_of(p)) slot(p);
  return sig;
}

bool runtime_dtype(ir::DataType t) {
  if (t.lanes != 1) return false;
  if (t.is_bool() || t.is_float8()) return true;
  if (t.is_float()) return t.bits == 16 || t.bits == 32 || t.bits == 64;
  return t.bits == 8 || t.bits == 16 || t.bits == 32 || t.bits == 64;
}

bool is_c_identifier(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name) {
    auto u = static_cast<unsigned char>(c);
    if (!(u < 0x80 && (std::isalnum(u) || c == '_'))) return false;
  }
  return true;
}

bool is_c_keyword(const std::string& name) {
  static const std::unordered_set<std::string> keywords = {
      "auto",       "break",     "case",           "char",          "const",      "continue",   "default",  "do",
      "double",     "else",      "enum",           "extern",        "float",      "for",        "goto",     "if",
      "inline",     "int",       "long",           "register",      "restrict",   "return",     "short",    "signed",
      "sizeof",     "static",    "struct",         "switch",        "typedef",    "union",      "unsigned", "void",
      "volatile",   "while",     "_Alignas",       "_Alignof",      "_Atomic",    "_Bool",      "_Complex", "_Generic",
      "_Imaginary", "_Noreturn", "_Static_assert", "_Thread_local", "asm",        "typeof",     "bool",     "true",
      "false",      "__asm__",   "__attribute__",  "__extension__", "__typeof__", "__restrict", "__inline"};
  return keywords.count(name) > 0;
}

void check_symbol_names(const ir::IRModule& mod) {
  for (const auto& [name, f] : mod->functions) {
    TSCH_USER_ASSERT(is_c_identifier(name), ValueError)
        << "cannot build function " << ir::quote(name)
        << ": its global_symbol must be a C identifier (letters, digits and '_', not starting with a digit), the "
           "name its library exports";
    // tsch_ names are the code generators' own (helpers, implementations).
    TSCH_USER_ASSERT(name.rfind("tsch_", 0) != 0 && name.rfind("__tsch", 0) != 0, ValueError)
        << "cannot build function " << ir::quote(name)
        << ": its global_symbol is reserved for tsch's generated code (the tsch_ prefix)";
  }
}

std::string signature_checksum(const std::string& table) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : table) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
  return text;
}

namespace {

// A name as one word of the table: bytes other than letters, digits, '_' and '.' as %XX.
std::string escape_name(const std::string& name) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (char c : name) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x80 && (std::isalnum(u) || c == '_' || c == '.')) {
      out += c;
    } else {
      out += '%';
      out += hex[u >> 4];
      out += hex[u & 15];
    }
  }
  return out.empty() ? "%" : out;  // a lone '%' is the empty name
}

// escape_name's inverse; nullopt for a malformed word.
std::optional<std::string> unescape_name(const std::string& word) {
  if (word == "%") return std::string();
  std::string out;
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (size_t i = 0; i < word.size(); ++i) {
    auto u = static_cast<unsigned char>(word[i]);
    if (word[i] == '%') {
      if (i + 2 >= word.size()) return std::nullopt;
      int hi = digit(word[i + 1]), lo = digit(word[i + 2]);
      if (hi < 0 || lo < 0) return std::nullopt;
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else if (u < 0x80 && (std::isalnum(u) || word[i] == '_' || word[i] == '.')) {
      out += word[i];
    } else {
      return std::nullopt;
    }
  }
  return out;
}

std::string expr_text(const ir::PrimExpr& e) {
  int64_t v;
  if (ir::as_const_int(e, &v)) return std::to_string(v);
  if (auto* var = ir::as<ir::VarNode>(e)) return "$" + escape_name(var->name);
  throw BuildError("not supported yet: exporting a function whose buffer shape is a compound expression");
}

}  // namespace

std::string encode_signatures(const std::vector<FunctionSignature>& sigs) {
  std::ostringstream os;
  for (const auto& s : sigs) {
    os << "func " << escape_name(s.name) << "\n";
    for (const auto& v : s.scalar_slots) os << "slot " << escape_name(v->name) << " " << v->dtype.to_string() << "\n";
    for (size_t i = 0; i < s.param_names.size(); ++i) {
      if (s.buffers[i]) {
        os << "buffer " << escape_name(s.param_names[i]) << " " << escape_name(s.buffers[i]->name) << " "
           << s.buffers[i]->dtype.to_string();
        for (const auto& d : s.buffers[i]->shape) os << " " << expr_text(d);
        os << "\n";
      } else {
        os << "scalar " << escape_name(s.param_names[i]) << " " << escape_name(s.scalar_params[i]->name) << "\n";
      }
    }
    os << "end\n";
  }
  return os.str();
}

// Reads the table encode_signatures wrote. A library can come from anywhere, so every line is
// checked; a defect throws BuildError naming it (the caller adds the path).
std::vector<FunctionSignature> decode_signatures(const std::string& text) {
  std::vector<FunctionSignature> out;
  std::istringstream lines(text);
  std::string line;
  std::unordered_map<std::string, ir::Var> slots;
  bool open = false;
  int number = 0;
  auto fail = [&](const std::string& why) -> void {
    throw BuildError("malformed function table, line " + std::to_string(number) + ": " + why);
  };
  auto parse_dtype = [&](const std::string& text) {
    auto t = ir::DataType::parse(text);
    if (!t) fail("unknown dtype '" + text + "'");
    return *t;
  };
  auto name = [&](const std::string& word) {
    std::optional<std::string> n = unescape_name(word);
    if (!n) fail("malformed name '" + word + "'");
    return *n;
  };
  std::unordered_set<std::string> functions;
  while (std::getline(lines, line)) {
    ++number;
    std::istringstream in(line);
    std::vector<std::string> w;
    for (std::string word; in >> word;) w.push_back(word);
    if (w.empty()) continue;
    if (w[0] == "func") {
      if (open || w.size() != 2) fail("expected 'func NAME' after the previous function's 'end'");
      std::string f = name(w[1]);
      if (!is_c_identifier(f)) fail("the function name " + ir::quote(f) + " is not a C identifier");
      if (!functions.insert(f).second) fail("the function " + f + " is named twice");
      out.emplace_back();
      out.back().name = f;
      slots.clear();
      open = true;
      continue;
    }
    if (!open) fail("'" + w[0] + "' outside a function");
    FunctionSignature& f = out.back();
    if (w[0] == "slot" && w.size() == 3) {
      std::string s = name(w[1]);
      if (slots.count(s)) fail("slot " + w[1] + " declared twice");
      ir::Var v = ir::make_var(s, parse_dtype(w[2]));
      slots[s] = v;
      f.scalar_slots.push_back(v);
    } else if (w[0] == "buffer" && w.size() >= 4) {
      BufferParam b{name(w[2]), parse_dtype(w[3]), {}};
      if (!runtime_dtype(b.dtype)) fail("buffer " + w[2] + " has the dtype " + w[3] + ", which arrays cannot have");
      for (size_t i = 4; i < w.size(); ++i) {
        const std::string& d = w[i];
        if (d[0] == '$') {
          auto it = slots.find(name(d.substr(1)));
          if (it == slots.end()) fail("shape names an undeclared slot " + d);
          b.shape.push_back(it->second);
          continue;
        }
        int64_t extent = -1;
        auto [end, ec] = std::from_chars(d.data(), d.data() + d.size(), extent);
        if (ec != std::errc() || end != d.data() + d.size() || extent < 0) fail("bad extent '" + d + "'");
        b.shape.push_back(ir::make_int(extent, ir::DataType::int64()));
      }
      f.param_names.push_back(name(w[1]));
      f.buffers.push_back(b);
      f.scalar_params.push_back(nullptr);
    } else if (w[0] == "scalar" && w.size() == 3) {
      auto it = slots.find(name(w[2]));
      if (it == slots.end()) fail("scalar parameter names an undeclared slot " + w[2]);
      f.param_names.push_back(name(w[1]));
      f.buffers.push_back(std::nullopt);
      f.scalar_params.push_back(it->second);
    } else if (w[0] == "end" && w.size() == 1) {
      open = false;
    } else {
      fail("unexpected " + ir::quote(line));
    }
  }
  if (open) throw BuildError("malformed function table: the last function has no 'end'");
  if (out.empty()) throw BuildError("malformed function table: no functions");
  return out;
}

}  // namespace tsch::codegen
