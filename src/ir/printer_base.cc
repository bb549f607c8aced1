#include "ir/printer_base.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

namespace tsch::ir {

void PrintContext::line(int indent, const std::string& text) {
  out.append(static_cast<size_t>(indent) * 4, ' ');
  out += text;
  out += '\n';
}

void PrintContext::mark(int indent, const std::string& text, const StmtNode* node) {
  const auto& h = options.highlight;
  if (std::find(h.begin(), h.end(), node) == h.end()) return;
  out.append(static_cast<size_t>(indent) * 4, ' ');
  out.append(text.size(), '^');
  out += '\n';
}

void PrintContext::annotation(int indent, const StmtNode* node) {
  for (const auto& [n, name] : options.annotate) {
    if (n == node) line(indent, "# " + name);
  }
}

void PrintContext::pop_frame() {
  for (const void* key : frames_.back()) {
    used_.erase(names_.at(key));
    names_.erase(key);
  }
  frames_.pop_back();
}

std::string PrintContext::define(const void* key, const std::string& hint) {
  std::string base = sanitize(hint);
  std::string name = base;
  for (int k = 1; used_.count(name); ++k) name = base + "_" + std::to_string(k);
  used_.insert(name);
  names_[key] = name;
  frames_.back().push_back(key);
  return name;
}

std::string PrintContext::define_outermost(const void* key, const std::string& hint) {
  std::string name = define(key, hint);
  frames_.back().pop_back();
  frames_.front().push_back(key);
  return name;
}

std::string PrintContext::name_of(const void* key, const std::string& hint) const {
  auto it = names_.find(key);
  return it != names_.end() ? it->second : sanitize(hint);
}

std::string PrintContext::header() const {
  std::string h;
  if (dialects_.count(Dialect::IR)) h += "# from tvm.script import ir as I\n";
  if (dialects_.count(Dialect::TIR)) h += "# from tvm.script import tir as T\n";
  if (dialects_.count(Dialect::Relax)) h += "# from tvm.script import relax as R\n";
  return h.empty() ? h : h + "\n";
}

std::string quote(const std::string& s) {
  std::string out = "\"";
  // Control characters escaped as Python writes them, so a name never breaks a line.
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n')
      out += "\\n";
    else if (c == '\r')
      out += "\\r";
    else if (c == '\t')
      out += "\\t";
    else if (u < 0x20 || u == 0x7f)
      out += fmt::format("\\x{:02x}", u);
    else
      out += c;
  }
  return out + "\"";
}

std::string float_text(double v) {
  if (std::isinf(v)) return v > 0 ? "T.float32(\"inf\")" : "T.float32(\"-inf\")";
  if (std::isnan(v)) return "nan";
  if (v == std::floor(v) && std::fabs(v) < 1e16) return fmt::format("{:.1f}", v);
  std::string s = fmt::format("{:.17g}", v);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

std::string sanitize(const std::string& name) {
  std::string out;
  for (char c : name) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out = "v" + out;
  return out;
}

size_t PrintContext::metadata_index(const std::string& type_key, const std::shared_ptr<const void>& object) {
  size_t index = 0;
  for (const auto& [key, o] : metadata) {
    if (key != type_key) continue;
    if (o == object) return index;
    ++index;
  }
  metadata.emplace_back(type_key, object);
  return index;
}

MetadataWriter& metadata_writer() {
  static MetadataWriter writer;
  return writer;
}

std::string metadata_prefix(const PrintContext& ctx) {
  if (ctx.metadata.empty() || !ctx.options.show_meta || !metadata_writer()) return "";
  std::string json = metadata_writer()(ctx.metadata);
  std::string escaped;
  for (char c : json) {
    if (c == '\\' || c == '"') escaped += '\\';
    escaped += c;
  }
  return "metadata = tvm.ir.load_json(\"\"\"" + escaped + "\"\"\")\n";
}

std::string metadata_suffix(const PrintContext& ctx) {
  if (ctx.metadata.empty() || (ctx.options.show_meta && metadata_writer())) return "";
  return "\n# Metadata omitted. Use show_meta=True in script() method to show it.\n";
}

std::map<FuncKind, FunctionPrinter>& function_printer_table() {
  static std::map<FuncKind, FunctionPrinter> table;
  return table;
}

}  // namespace tsch::ir
