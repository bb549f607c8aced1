#include "script/signature.h"

#include <fmt/format.h>

#include <cstdlib>

#include "script/exceptions.h"
#include "script/interpreter.h"
#include "script/object.h"
#include "script/suggestions.h"
#include "support/diagnostics.h"

namespace tsch::script {
namespace {

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t");
  size_t e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

Value parse_default(const std::string& text) {
  if (text == "None") return Value();
  if (text == "True") return Value::boolean(true);
  if (text == "False") return Value::boolean(false);
  if (text.size() >= 2 && (text[0] == '"' || text[0] == '\'')) {
    return make_str(text.substr(1, text.size() - 2));
  }
  char* end = nullptr;
  long long i = std::strtoll(text.c_str(), &end, 10);
  if (*end == '\0') return Value::integer(i);
  double d = std::strtod(text.c_str(), &end);
  if (*end == '\0') return Value::real(d);
  internal_fail(__FILE__, __LINE__, "bad default in native signature: " + text);
}

std::string ordinal_list(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += (i + 1 == names.size()) ? (names.size() > 2 ? ", and " : " and ") : ", ";
    out += "'" + names[i] + "'";
  }
  return out;
}

}  // namespace

Signature Signature::parse(const std::string& text) {
  Signature sig;
  bool keyword_only = false;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    // Commas inside quoted defaults are not used by any signature; keep the split simple.
    std::string item = trim(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    start = comma == std::string::npos ? text.size() + 1 : comma + 1;
    if (item.empty()) continue;
    Parameter p;
    if (item == "*") {
      keyword_only = true;
      continue;
    }
    if (item.rfind("**", 0) == 0) {
      p.kind = Parameter::Kind::VarKeywords;
      p.name = item.substr(2);
    } else if (item[0] == '*') {
      p.kind = Parameter::Kind::VarArgs;
      p.name = item.substr(1);
      keyword_only = true;
    } else {
      p.kind = keyword_only ? Parameter::Kind::KeywordOnly : Parameter::Kind::Positional;
      size_t eq = item.find('=');
      p.name = trim(item.substr(0, eq));
      if (eq != std::string::npos) {
        p.has_default = true;
        p.default_value = parse_default(trim(item.substr(eq + 1)));
      }
    }
    sig.params_.push_back(std::move(p));
  }
  return sig;
}

std::string Signature::to_string() const {
  std::string out;
  bool star_written = false;
  for (const auto& p : params_) {
    if (!out.empty()) out += ", ";
    switch (p.kind) {
      case Parameter::Kind::VarArgs:
        out += "*" + p.name;
        star_written = true;
        break;
      case Parameter::Kind::VarKeywords:
        out += "**" + p.name;
        break;
      case Parameter::Kind::KeywordOnly:
        if (!star_written) {
          out += "*, ";
          star_written = true;
        }
        [[fallthrough]];
      case Parameter::Kind::Positional:
        out += p.name;
        if (p.has_default) {
          out += "=";
          const Value& d = p.default_value;
          if (d.is_none())
            out += "None";
          else if (d.is_bool())
            out += d.as_bool() ? "True" : "False";
          else if (d.is_int())
            out += std::to_string(d.as_int());
          else if (d.is_float())
            out += fmt::format("{}", d.as_float());
          else if (auto* s = d.as<Str>())
            out += "\"" + s->value + "\"";
        }
        break;
    }
  }
  return out;
}

Args::Args(Interpreter& interp, const std::string& function, const Signature& sig, CallArgs&& call)
    : interp_(interp), function_(function), sig_(sig) {
  const auto& params = sig.params();
  values_.resize(params.size());
  std::vector<bool> filled(params.size(), false);
  size_t npos_params = 0;
  bool has_varargs = false, has_varkw = false;
  for (const auto& p : params) {
    if (p.kind == Parameter::Kind::Positional) ++npos_params;
    if (p.kind == Parameter::Kind::VarArgs) has_varargs = true;
    if (p.kind == Parameter::Kind::VarKeywords) has_varkw = true;
  }
  // Positional arguments fill positional parameters in order, the rest go to *args.
  size_t given = call.positional.size();
  for (size_t i = 0; i < given; ++i) {
    if (i < npos_params) {
      values_[i] = std::move(call.positional[i]);
      filled[i] = true;
    } else if (has_varargs) {
      varargs_.push_back(std::move(call.positional[i]));
    } else {
      raise_type_error(fmt::format("{}() takes {} positional argument{} but {} {} given", function, npos_params,
                                   npos_params == 1 ? "" : "s", given, given == 1 ? "was" : "were"));
    }
  }
  for (auto& [name_sym, value] : call.keywords) {
    const std::string& name = symbol_name(name_sym);
    bool matched = false;
    for (size_t i = 0; i < params.size(); ++i) {
      const auto& p = params[i];
      if (p.name != name || p.kind == Parameter::Kind::VarArgs || p.kind == Parameter::Kind::VarKeywords) continue;
      if (filled[i]) raise_type_error(fmt::format("{}() got multiple values for argument '{}'", function, name));
      values_[i] = std::move(value);
      filled[i] = true;
      matched = true;
      break;
    }
    if (matched) continue;
    if (!has_varkw) {
      std::vector<std::string> names;
      for (const auto& p : params) {
        if (p.kind != Parameter::Kind::VarArgs && p.kind != Parameter::Kind::VarKeywords) names.push_back(p.name);
      }
      raise_type_error(unexpected_keyword_message(function, name, names));
    }
    kwargs_.emplace_back(name_sym, std::move(value));
  }
  std::vector<std::string> missing_pos, missing_kw;
  for (size_t i = 0; i < params.size(); ++i) {
    const auto& p = params[i];
    if (filled[i] || p.kind == Parameter::Kind::VarArgs || p.kind == Parameter::Kind::VarKeywords) continue;
    if (p.has_default) {
      values_[i] = p.default_value;
    } else {
      (p.kind == Parameter::Kind::Positional ? missing_pos : missing_kw).push_back(p.name);
    }
  }
  if (!missing_pos.empty()) {
    raise_type_error(fmt::format("{}() missing {} required positional argument{}: {}", function, missing_pos.size(),
                                 missing_pos.size() == 1 ? "" : "s", ordinal_list(missing_pos)));
  }
  if (!missing_kw.empty()) {
    raise_type_error(fmt::format("{}() missing {} required keyword-only argument{}: {}", function, missing_kw.size(),
                                 missing_kw.size() == 1 ? "" : "s", ordinal_list(missing_kw)));
  }
}

// Argument numbers as the caller sees them: a method's `self` is not counted.
static size_t user_position(const Signature& sig, size_t i) {
  bool method = !sig.params().empty() && sig.params()[0].name == "self";
  return method ? i : i + 1;
}

void Args::type_error(size_t i, const std::string& expected) const {
  raise_type_error(fmt::format("argument {}, '{}' to {}: expected {}, got {}", user_position(sig_, i),
                               sig_.params()[i].name, function_, expected, Interpreter::type_name(values_[i])));
}

void Args::value_error(size_t i, const std::string& message) const {
  raise(ExcKind::ValueError,
        fmt::format("argument {}, '{}' to {}: {}", user_position(sig_, i), sig_.params()[i].name, function_, message));
}

int64_t Args::get_int(size_t i) const {
  if (!values_[i].is_integral()) type_error(i, "int");
  return values_[i].as_int();
}

double Args::get_float(size_t i) const {
  if (!values_[i].is_number()) type_error(i, "float");
  return values_[i].as_float();
}

bool Args::get_bool(size_t i) const {
  if (!values_[i].is_integral()) type_error(i, "bool");
  return values_[i].as_int() != 0;
}

const std::string& Args::get_str(size_t i) const {
  auto* s = values_[i].as<Str>();
  if (s == nullptr) type_error(i, "str");
  return s->value;
}

const std::string& Args::get_path(size_t i) const {
  const std::string& path = get_str(i);
  if (path.find('\0') != std::string::npos) raise(ExcKind::ValueError, "embedded null byte");
  return path;
}

}  // namespace tsch::script
