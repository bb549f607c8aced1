#include "repl/completion.h"

#include <algorithm>
#include <regex>

#include "bindings/tvm/tir/schedule_session.h"
#include "script/exceptions.h"
#include "support/error.h"

namespace tsch::repl {

using script::Value;

namespace {

bool starts_with(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

// The value of a dotted name path (`tvm.tir`, `sch`) without calling anything; false when
// a part does not resolve.
bool resolve(script::Interpreter& interp, const script::NamespaceRef& globals, const std::string& path, Value& out) {
  size_t start = 0;
  bool first = true;
  while (start <= path.size()) {
    size_t dot = path.find('.', start);
    std::string part = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    Symbol name = intern(part);
    if (first) {
      Value* v = globals->find(name);
      if (!v) v = interp.builtins()->find(name);
      if (!v) return false;
      out = *v;
      first = false;
    } else {
      try {
        if (!interp.try_get_attr(out, name, out)) return false;
      } catch (const script::ScriptError&) {  // a property that raises: nothing to offer
        return false;
      } catch (const UserError&) {
        return false;
      }
    }
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return true;
}

std::vector<std::string> attributes(script::Interpreter& interp, const Value& obj) {
  std::vector<std::string> names;
  try {
    Value* dir = interp.builtins()->find(intern("dir"));
    Value list = interp.call(*dir, std::vector<Value>{obj});
    for (const Value& item : list.as<script::List>()->items) names.push_back(interp.str(item));
  } catch (const script::ScriptError&) {  // a __dir__ that raises: nothing to offer
  } catch (const UserError&) {
  }
  return names;
}

void keep_matching(std::vector<std::string>& names, const std::string& prefix, Completion& out) {
  for (auto& n : names) {
    if (!starts_with(n, prefix)) continue;
    if (starts_with(n, "_") && !starts_with(prefix, "_")) continue;  // private unless asked
    out.options.push_back(n);
  }
  std::sort(out.options.begin(), out.options.end());
  out.options.erase(std::unique(out.options.begin(), out.options.end()), out.options.end());
}

}  // namespace

Completion complete(script::Interpreter& interp, const script::NamespaceRef& globals, const std::string& line,
                    const std::vector<std::string>& commands) {
  Completion out;
  std::smatch m;
  if (!line.empty() && line[0] == ':' && line.find(' ') == std::string::npos) {
    std::vector<std::string> names = commands;
    keep_matching(names, line, out);
    return out;
  }
  static const std::regex block_arg(R"(([A-Za-z_][\w.]*)\.get_s?block\(\s*(?:name\s*=\s*)?["']([^"']*)$)");
  if (std::regex_search(line, m, block_arg)) {
    out.word_start = static_cast<size_t>(m.position(2));
    Value sch;
    if (resolve(interp, globals, m[1].str(), sch) && bindings::is_schedule(sch)) {
      std::vector<std::string> names = bindings::schedule_block_names(sch);
      keep_matching(names, m[2].str(), out);
    }
    return out;
  }
  static const std::regex attribute(R"(([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\.(\w*)$)");
  if (std::regex_search(line, m, attribute)) {
    out.word_start = static_cast<size_t>(m.position(2));
    Value obj;
    if (resolve(interp, globals, m[1].str(), obj)) {
      std::vector<std::string> names = attributes(interp, obj);
      keep_matching(names, m[2].str(), out);
    }
    return out;
  }
  static const std::regex word(R"([A-Za-z_]\w*$)");
  if (std::regex_search(line, m, word)) {
    out.word_start = static_cast<size_t>(m.position(0));
    std::vector<std::string> names;
    for (const auto& [k, v] : globals->values()) names.push_back(symbol_name(k));
    for (const auto& [k, v] : interp.builtins()->values()) names.push_back(symbol_name(k));
    for (const char* kw :
         {"False", "None",   "True", "and",    "as",      "assert", "break",  "class", "continue", "def",
          "del",   "elif",   "else", "except", "finally", "for",    "from",   "if",    "import",   "in",
          "is",    "lambda", "not",  "or",     "pass",    "raise",  "return", "try",   "while",    "with"}) {
      names.push_back(kw);
    }
    keep_matching(names, m[0].str(), out);
  } else {
    out.word_start = line.size();
  }
  return out;
}

}  // namespace tsch::repl
