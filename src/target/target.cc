#include "target/target.h"

#include <llvm/ADT/StringRef.h>
#include <llvm/TargetParser/Host.h>

#include <algorithm>
#include <charconv>

#include "support/error.h"

namespace tsch::target {

namespace {

constexpr char kQuote = '\'';
constexpr char kEscape = '\\';

bool is_quoted(const std::string& s) { return s.size() >= 2 && s.front() == kQuote && s.back() == kQuote; }

// Splits on `sep` outside quotes; quotes and escapes stay in the words (TVM's SplitString).
std::vector<std::string> split_words(const std::string& s, char sep) {
  std::vector<std::string> words;
  std::string word;
  bool quoted = false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == sep && !quoted) {
      if (!word.empty()) words.push_back(word);
      word.clear();
    } else if (c == kEscape && i + 1 < s.size()) {
      word += c;
      word += s[++i];
    } else {
      if (c == kQuote) quoted = !quoted;
      word += c;
    }
  }
  TSCH_USER_ASSERT(!quoted, ValueError) << "Mismatched quotes '' in string";
  if (!word.empty()) words.push_back(word);
  return words;
}

// Removes enclosing quotes and resolves escapes outside quoted parts (TVM's Interpret).
std::string interpret(const std::string& s) {
  size_t begin = 0, end = s.size();
  if (is_quoted(s)) ++begin, --end;
  std::string out;
  bool in_quote = false, escaping = false;
  for (size_t i = begin; i < end; ++i) {
    char c = s[i];
    if (escaping) {
      escaping = false;
    } else if (c == kEscape) {
      escaping = true;
      if (!in_quote) continue;
    } else if (c == kQuote) {
      in_quote = !in_quote;
    }
    out += c;
  }
  return out;
}

std::string uninterpret(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == kEscape || c == kQuote) out += kEscape;
    out += c;
  }
  return out;
}

std::string quote_if_has(const std::string& s, char c) {
  return s.find(c) != std::string::npos && !is_quoted(s) ? kQuote + s + kQuote : s;
}

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
  return out;
}

const OptionType& option_type(const TargetKind& kind, const std::string& key) {
  auto it = kind.options.find(key);
  if (it == kind.options.end()) {
    std::vector<std::string> names;
    for (const auto& [name, type] : kind.options) names.push_back(name);
    throw UserError(UserErrorKind::ValueError, "Cannot recognize '" + key + "'. Candidates are: " + join(names, ", "));
  }
  return it->second;
}

Json parse_scalar_text(const std::string& raw, OptionType type) {
  std::string s = interpret(raw);
  if (type == OptionType::Int || type == OptionType::Bool) {
    int64_t v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size()) {
      std::string lower = s;
      std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
      if (lower == "true")
        v = 1;
      else if (lower == "false")
        v = 0;
      else
        throw UserError(UserErrorKind::ValueError, "Cannot parse integer from string: " + s);
    }
    return type == OptionType::Int ? Json(v) : Json(v != 0);
  }
  size_t first = s.find_first_not_of(' '), last = s.find_last_not_of(' ');
  return first == std::string::npos ? Json("") : Json(s.substr(first, last - first + 1));
}

// An option's value from the text after "-key=".
Json parse_option_text(const std::string& raw, OptionType type) {
  if (type == OptionType::Target) return Json(raw);  // parsed with the host
  if (type != OptionType::StrArray) return parse_scalar_text(raw, type);
  Json array = Json::array();
  for (const std::string& item : split_words(interpret(raw), ','))
    array.push_back(parse_scalar_text(item, OptionType::Str));
  return array;
}

// An option's value from a config dict: checked against the option's type.
Json check_option_value(const Json& v, OptionType type) {
  auto expect = [&](bool ok, const char* what) {
    TSCH_USER_ASSERT(ok, ValueError) << "Expects type \"" << what << "\", but gets: " << v.dump();
  };
  switch (type) {
    case OptionType::Str:
      expect(v.is_string(), "String");
      return v;
    case OptionType::Int:
      expect(v.is_number_integer() || v.is_boolean(), "int64_t");
      return v.is_boolean() ? Json(v.get<bool>() ? 1 : 0) : v;
    case OptionType::Bool:
      expect(v.is_boolean() || v.is_number_integer(), "bool");
      return v.is_boolean() ? v : Json(v.get<int64_t>() != 0);
    case OptionType::StrArray:
      expect(v.is_array() && std::all_of(v.begin(), v.end(), [](const Json& e) { return e.is_string(); }), "Array");
      return v;
    case OptionType::Target:
      return v;
  }
  return v;
}

std::string stringify_scalar(const Json& v) {
  if (v.is_boolean()) return v.get<bool>() ? "1" : "0";
  if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
  return quote_if_has(uninterpret(v.get<std::string>()), ' ');
}

std::string stringify_value(const Json& v) {
  if (!v.is_array()) return stringify_scalar(v);
  std::vector<std::string> items;
  for (const Json& e : v) items.push_back(quote_if_has(uninterpret(stringify_scalar(e)), ','));
  return join(items, ",");
}

// "--num-cores=4", "-mcpu skylake", "-fast-math": key, value and how many words it used.
size_t parse_key_value(const std::string& word, const std::string& next, std::string& key, std::string& value) {
  std::string s = word.substr(std::min(word.find_first_not_of('-'), word.size()));
  size_t eq = s.find('=');
  if (eq != std::string::npos) {
    key = s.substr(0, eq);
    value = s.substr(eq + 1);
    TSCH_USER_ASSERT(!key.empty() && !value.empty(), ValueError) << "Empty attribute key or value in \"" << s << "\"";
    return 1;
  }
  key = s;
  if (!next.empty() && next[0] != '-') {
    value = next;
    return 2;
  }
  value = "1";
  return 1;
}

Target from_config_checked(Json config);

Target from_raw_string(const std::string& text) {
  std::vector<std::string> words = split_words(text, ' ');
  TSCH_USER_ASSERT(!words.empty(), ValueError) << "Cannot parse empty target string";
  const TargetKind* kind = TargetKind::get(words[0]);
  TSCH_USER_ASSERT(kind, ValueError) << "Target kind \"" << words[0] << "\" is not defined";
  Json config = {{"kind", words[0]}};
  for (size_t i = 1; i < words.size();) {
    std::string key, value;
    try {
      i += parse_key_value(words[i], i + 1 < words.size() ? words[i + 1] : "", key, value);
    } catch (const UserError& e) {
      throw UserError(e.kind, std::string(e.what()) + ", during parsing target `" + text + "`");
    }
    try {
      TSCH_USER_ASSERT(!config.contains(key), ValueError) << "The key \"" << key << "\" appears more than once";
      config[key] = parse_option_text(value, option_type(*kind, key));
    } catch (const UserError& e) {
      throw UserError(e.kind, std::string(e.what()) + ", during parsing target[\"" + key + "\"]");
    }
  }
  return from_config_checked(config);
}

Target host_from(const Json& v) {
  if (v.is_string()) return parse_target(v.get<std::string>());
  TSCH_USER_ASSERT(v.is_object(), ValueError)
      << "Expect type 'dict' or 'str' to construct Target, but get: " << v.dump();
  return target_from_config(v);
}

Target from_config_checked(Json config) {
  TSCH_USER_ASSERT(config.is_object(), ValueError) << "a target config must be a dict, got " << config.dump();
  TSCH_USER_ASSERT(config.contains("kind"), ValueError) << "Field \"kind\" is not found";
  TSCH_USER_ASSERT(config["kind"].is_string(), ValueError)
      << "Expect type of field \"kind\" is String, but get: " << config["kind"].dump();
  const TargetKind* kind = TargetKind::get(config["kind"].get<std::string>());
  TSCH_USER_ASSERT(kind, ValueError) << "Target kind \"" << config["kind"].get<std::string>() << "\" is not defined";
  if (kind->parser) kind->parser(config);
  config.erase("kind");

  auto t = std::make_shared<TargetNode>();
  t->kind = kind;
  if (config.contains("tag")) {
    TSCH_USER_ASSERT(config["tag"].is_string(), ValueError)
        << "Expect type of field \"tag\" is String, but get: " << config["tag"].dump();
    t->tag = config["tag"].get<std::string>();
    config.erase("tag");
  }
  std::vector<std::string> keys;
  bool user_keys = config.contains("keys");
  if (user_keys) {
    const Json& k = config["keys"];
    TSCH_USER_ASSERT(k.is_array() && std::all_of(k.begin(), k.end(), [](const Json& e) { return e.is_string(); }),
                     ValueError)
        << "Expect 'keys' to be an array of strings, but get: " << k.dump();
    for (const Json& e : k) keys.push_back(e.get<std::string>());
    config.erase("keys");
  }
  if (config.contains("device") && config["device"].is_string()) keys.push_back(config["device"].get<std::string>());
  if (!user_keys) keys.insert(keys.end(), kind->default_keys.begin(), kind->default_keys.end());
  for (const std::string& k : keys)
    if (std::find(t->keys.begin(), t->keys.end(), k) == t->keys.end()) t->keys.push_back(k);
  if (config.contains("host")) {
    t->host = host_from(config["host"]);
    config.erase("host");
  }
  for (auto& [key, value] : config.items()) {
    try {
      t->attrs[key] = check_option_value(value, option_type(*kind, key));
    } catch (const UserError& e) {
      throw UserError(e.kind, std::string(e.what()) + ", during parsing target[\"" + key + "\"]");
    }
  }
  // Reading options from the device: without a device API for the kind, TVM keeps the defaults.
  t->attrs.erase("from_device");
  for (const auto& [key, value] : kind->defaults)
    if (!t->attrs.contains(key)) t->attrs[key] = value;
  return t;
}

}  // namespace

const std::string& TargetNode::str() const {
  if (str_.empty()) {
    std::string s = kind->name;
    if (!keys.empty()) s += " -keys=" + join(keys, ",");
    for (const auto& [key, value] : attrs.items()) {
      std::string v = stringify_value(value);
      if (!v.empty()) s += " -" + key + "=" + v;
    }
    str_ = s;
  }
  return str_;
}

Json TargetNode::export_config() const {
  Json out = {{"kind", kind->name}, {"tag", tag}, {"keys", keys}};
  for (const auto& [key, value] : attrs.items()) out[key] = value;
  if (host) out["host"] = host->export_config();
  return out;
}

int TargetNode::device_type() const {
  if (auto t = get_int("target_device_type")) return static_cast<int>(*t);
  return kind->device_type;
}

bool TargetNode::has_key(const std::string& key) const {
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

std::string cuda_arch(const Target& t) {
  return t->get_str(t->kind->name == "nvptx" ? "mcpu" : "arch").value_or("sm_80");
}

int cuda_sm_version(const Target& t) {
  std::string arch = cuda_arch(t);
  if (arch.rfind("sm_", 0) != 0 || arch.size() == 3 || arch.size() > 7) return 0;
  int sm = 0;
  for (size_t i = 3; i < arch.size(); ++i) {
    // sm_90a: the suffix names architecture-specific features, not a newer capability.
    if (arch[i] < '0' || arch[i] > '9') return i > 3 && arch[i] == 'a' && i + 1 == arch.size() ? sm : 0;
    sm = sm * 10 + (arch[i] - '0');
  }
  return sm;
}

std::optional<std::string> TargetNode::get_str(const std::string& name) const {
  auto it = attrs.find(name);
  if (it == attrs.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

std::optional<int64_t> TargetNode::get_int(const std::string& name) const {
  auto it = attrs.find(name);
  if (it == attrs.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<int64_t>();
}

bool TargetNode::get_bool(const std::string& name, bool otherwise) const {
  auto it = attrs.find(name);
  return it == attrs.end() || !it->is_boolean() ? otherwise : it->get<bool>();
}

std::vector<std::string> TargetNode::get_str_array(const std::string& name) const {
  auto it = attrs.find(name);
  if (it == attrs.end() || !it->is_array()) return {};
  return it->get<std::vector<std::string>>();
}

Target parse_target(const std::string& text) {
  if (Target t = target_from_tag(text)) return t;
  try {
    if (!text.empty() && text[0] == '{') {
      Json config = Json::parse(text, nullptr, /*allow_exceptions=*/false);
      TSCH_USER_ASSERT(!config.is_discarded(), ValueError) << "Cannot load config dict: not valid JSON";
      return from_config_checked(config);
    }
    return from_raw_string(text);
  } catch (const UserError& e) {
    throw UserError(UserErrorKind::ValueError, std::string(e.what()) + ". Target creation from string failed: " + text);
  }
}

Target target_from_config(const Json& config) {
  try {
    return from_config_checked(config);
  } catch (const UserError& e) {
    if (std::string(e.what()).find("Target creation from") != std::string::npos) throw;
    throw UserError(UserErrorKind::ValueError,
                    std::string(e.what()) + ". Target creation from config dict failed: " + config.dump());
  }
}

Target with_host(const Target& target, const Target& host) {
  auto t = std::make_shared<TargetNode>(*target);
  t->host = host;
  return t;
}

Target without_host(const Target& target) {
  if (!target->host) return target;
  auto t = std::make_shared<TargetNode>(*target);
  t->host = nullptr;
  return t;
}

namespace {
thread_local std::vector<Target> scope_stack;
}

Target current_target() { return scope_stack.empty() ? nullptr : scope_stack.back(); }

void enter_target_scope(const Target& t) { scope_stack.push_back(t); }

void exit_target_scope(const Target& t) {
  TSCH_USER_ASSERT(!scope_stack.empty() && scope_stack.back() == t, RuntimeError)
      << "exiting a target scope that is not the innermost one";
  scope_stack.pop_back();
}

bool target_has_vla(const Target& t) {
  if (!t || t->kind->name != "llvm") return false;
  std::string triple = t->get_str("mtriple").value_or("");
  bool aarch64 = triple.rfind("aarch64", 0) == 0, riscv = triple.rfind("riscv", 0) == 0;
  for (const std::string& f : t->get_str_array("mattr")) {
    if (aarch64 && f.rfind("+sve", 0) == 0) return true;
    if (riscv && f == "+v") return true;
  }
  return false;
}

std::vector<int64_t> vscale_values(const Target& t) {
  int64_t width = t ? t->get_int("vector-width").value_or(0) : 0;
  if (width <= 0) width = 128;  // TVM's width for AArch64 and RISC-V
  std::vector<int64_t> out;
  for (int64_t p = 1; p <= width / 8; p *= 2) out.push_back(p);
  return out;
}

std::string host_triple() { return llvm::sys::getDefaultTargetTriple(); }

std::string host_cpu_name() { return llvm::sys::getHostCPUName().str(); }

}  // namespace tsch::target
