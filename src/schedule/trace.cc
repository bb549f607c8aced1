#include "schedule/trace.h"

#include <fmt/format.h>

#include <unordered_map>

#include "ir/printer.h"

namespace tsch::schedule {

namespace {

std::string quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string arg_text(const TraceArg& a, const std::unordered_map<const RVNode*, std::string>& names) {
  switch (a.kind) {
    case TraceArg::Kind::None: return "None";
    case TraceArg::Kind::Int: return std::to_string(a.i);
    case TraceArg::Kind::Float: return fmt::format("{}", a.f);
    case TraceArg::Kind::Bool: return a.b ? "True" : "False";
    case TraceArg::Kind::Str: return quote(a.s);
    case TraceArg::Kind::Ref: {
      auto it = names.find(a.ref.get());
      return it == names.end() ? "None" : it->second;
    }
    case TraceArg::Kind::List: {
      std::string s = "[";
      for (size_t i = 0; i < a.list.size(); ++i) s += (i ? ", " : "") + arg_text(a.list[i], names);
      return s + "]";
    }
    case TraceArg::Kind::Tuple: {
      std::string s = "(";
      for (size_t i = 0; i < a.list.size(); ++i) s += (i ? ", " : "") + arg_text(a.list[i], names);
      return s + (a.list.size() == 1 ? ",)" : ")");
    }
    case TraceArg::Kind::IndexMap: return a.lambda_text();
  }
  return "None";
}

}  // namespace

std::string TraceArg::lambda_text() const {
  std::string s = "lambda ";
  for (size_t i = 0; i < map_params.size(); ++i) s += (i ? ", " : "") + map_params[i]->name;
  s += ": (";
  for (size_t i = 0; i < map_outputs.size(); ++i) s += (i ? ", " : "") + ir::script(map_outputs[i]);
  return s + (map_outputs.size() == 1 ? ",)" : ")");
}

std::string Trace::str() const {
  std::string out = "# from tvm import tir\ndef apply_trace(sch: tir.Schedule) -> None:\n";
  if (insts.empty()) return out + "  pass";
  std::unordered_map<const RVNode*, std::string> names;
  int counter = 0;
  for (const Instruction& inst : insts) {
    std::string args;
    for (const auto& p : inst.positional) args += (args.empty() ? "" : ", ") + arg_text(p, names);
    for (const auto& [k, v] : inst.keywords) args += (args.empty() ? "" : ", ") + k + "=" + arg_text(v, names);
    std::string lhs;
    for (size_t i = 0; i < inst.outputs.size(); ++i) {
      const RV& rv = inst.outputs[i];
      char prefix = rv->kind == RVNode::Kind::Block ? 'b' : rv->kind == RVNode::Kind::Loop ? 'l' : 'v';
      std::string name = prefix + std::to_string(counter++);
      names[rv.get()] = name;
      lhs += (i ? ", " : "") + name;
    }
    if (inst.list_output && inst.outputs.size() == 1) lhs += ",";
    out += "  " + (lhs.empty() ? "" : lhs + " = ") + "sch." + inst.method + "(" + args + ")\n";
  }
  out.pop_back();
  return out;
}

}  // namespace tsch::schedule
