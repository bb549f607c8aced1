// Python's format-spec mini-language and %-formatting, written against the Python
// reference (no library in Debian implements Python's exact rules; fmt differs in grouping,
// '%' and the default float presentation).
#include "script/format.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "script/exceptions.h"
#include "script/interpreter.h"
#include "script/object.h"
#include "support/parse_int.h"

namespace tsch::script {
namespace {

// A width, precision or index in a format string (CPython's get_integer: too many digits for
// a Py_ssize_t is this ValueError).
int64_t format_number(const std::string& digits) {
  std::optional<int64_t> n = parse_decimal(digits, INT32_MAX);
  if (!n) raise(ExcKind::ValueError, "Too many decimal digits in format string");
  return *n;
}

struct Spec {
  char fill = ' ';
  char align = 0;  // '<', '>', '^', '='
  char sign = '-';
  bool alternate = false;
  int width = -1;
  char grouping = 0;  // ',' or '_'
  int precision = -1;
  char type = 0;
};

Spec parse_spec(const std::string& s) {
  Spec spec;
  size_t i = 0;
  auto is_align = [](char c) { return c == '<' || c == '>' || c == '^' || c == '='; };
  if (s.size() >= 2 && is_align(s[1])) {
    spec.fill = s[0];
    spec.align = s[1];
    i = 2;
  } else if (!s.empty() && is_align(s[0])) {
    spec.align = s[0];
    i = 1;
  }
  if (i < s.size() && (s[i] == '+' || s[i] == '-' || s[i] == ' ')) spec.sign = s[i++];
  if (i < s.size() && s[i] == '#') {
    spec.alternate = true;
    ++i;
  }
  if (i < s.size() && s[i] == '0') {
    if (!spec.align) {
      spec.fill = '0';
      spec.align = '=';
    }
    ++i;
  }
  size_t start = i;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  if (i > start) spec.width = format_number(s.substr(start, i - start));
  if (i < s.size() && (s[i] == ',' || s[i] == '_')) spec.grouping = s[i++];
  if (i < s.size() && s[i] == '.') {
    ++i;
    start = i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    if (i == start) raise(ExcKind::ValueError, "Format specifier missing precision");
    spec.precision = format_number(s.substr(start, i - start));
  }
  if (i < s.size()) spec.type = s[i++];
  if (i != s.size()) raise(ExcKind::ValueError, "Invalid format specifier '" + s + "'");
  return spec;
}

std::string group_digits(const std::string& digits, char sep, int every) {
  std::string out;
  int count = 0;
  for (size_t k = digits.size(); k-- > 0;) {
    if (count > 0 && count % every == 0) out.insert(out.begin(), sep);
    out.insert(out.begin(), digits[k]);
    ++count;
  }
  return out;
}

size_t display_width(const std::string& s) {
  size_t n = 0;
  for (char c : s) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  }
  return n;
}

// Pads `body` (with `sign_prefix` kept in front for '=' alignment).
std::string pad(const Spec& spec, const std::string& sign_prefix, const std::string& body, char default_align) {
  std::string text = sign_prefix + body;
  size_t width = display_width(text);
  if (spec.width < 0 || width >= static_cast<size_t>(spec.width)) return text;
  size_t missing = static_cast<size_t>(spec.width) - width;
  std::string fill(missing, spec.fill);
  char align = spec.align ? spec.align : default_align;
  switch (align) {
    case '<':
      return text + fill;
    case '^':
      return std::string(missing / 2, spec.fill) + text + std::string(missing - missing / 2, spec.fill);
    case '=':
      return sign_prefix + fill + body;
    default:
      return fill + text;
  }
}

std::string sign_of(bool negative, char sign) {
  if (negative) return "-";
  if (sign == '+') return "+";
  if (sign == ' ') return " ";
  return "";
}

std::string format_int(int64_t value, const Spec& spec) {
  bool negative = value < 0;
  uint64_t magnitude = negative ? 0 - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
  std::string digits, prefix;
  switch (spec.type) {
    case 'b':
      digits = fmt::format("{:b}", magnitude);
      prefix = "0b";
      break;
    case 'o':
      digits = fmt::format("{:o}", magnitude);
      prefix = "0o";
      break;
    case 'x':
      digits = fmt::format("{:x}", magnitude);
      prefix = "0x";
      break;
    case 'X':
      digits = fmt::format("{:X}", magnitude);
      prefix = "0X";
      break;
    case 'c': {
      std::string ch;
      ch += static_cast<char>(value);
      return pad(spec, "", ch, '<');
    }
    case 0:
    case 'd':
    case 'n':
      digits = std::to_string(magnitude);
      break;
    default:
      raise(ExcKind::ValueError, fmt::format("Unknown format code '{}' for object of type 'int'", spec.type));
  }
  if (spec.grouping) digits = group_digits(digits, spec.grouping, spec.type == 0 || spec.type == 'd' ? 3 : 4);
  std::string sign = sign_of(negative, spec.sign) + (spec.alternate ? prefix : "");
  return pad(spec, sign, digits, '>');
}

std::string c_format(const char* conv, int precision, double value) {
  char buf[512];
  std::string f = std::string("%.*") + conv;
  int n = std::snprintf(buf, sizeof buf, f.c_str(), precision, value);
  if (n >= static_cast<int>(sizeof buf)) {
    std::string big(static_cast<size_t>(n) + 1, '\0');
    std::snprintf(big.data(), big.size(), f.c_str(), precision, value);
    big.resize(static_cast<size_t>(n));
    return big;
  }
  return std::string(buf, static_cast<size_t>(n));
}

std::string format_float(double value, const Spec& spec) {
  bool negative = std::signbit(value) && !std::isnan(value);
  double magnitude = std::fabs(value);
  std::string body;
  char type = spec.type;
  int precision = spec.precision;
  if (std::isinf(magnitude) || std::isnan(magnitude)) {
    body = std::isnan(magnitude) ? "nan" : "inf";
    if (type == 'E' || type == 'F' || type == 'G') {
      for (char& c : body) c = static_cast<char>(std::toupper(c));
    }
    if (type == '%') body += "%";
  } else {
    switch (type) {
      case 'f':
      case 'F':
        body = c_format("f", precision < 0 ? 6 : precision, magnitude);
        break;
      case 'e':
      case 'E':
        body = c_format(type == 'e' ? "e" : "E", precision < 0 ? 6 : precision, magnitude);
        break;
      case 'g':
      case 'G':
      case 'n':
        body = c_format(type == 'G' ? (spec.alternate ? "#G" : "G") : (spec.alternate ? "#g" : "g"),
                        precision < 0 ? 6 : std::max(precision, 1), magnitude);
        break;
      case '%':
        body = c_format("f", precision < 0 ? 6 : precision, magnitude * 100) + "%";
        break;
      case 0:
        if (precision < 0) {
          body = float_repr(magnitude);
        } else {
          body = c_format("g", std::max(precision, 1), magnitude);
          if (body.find_first_of(".e") == std::string::npos) body += ".0";
        }
        break;
      default:
        raise(ExcKind::ValueError, fmt::format("Unknown format code '{}' for object of type 'float'", type));
    }
  }
  if (spec.grouping) {
    size_t end = body.find_first_not_of("0123456789");
    if (end == std::string::npos) end = body.size();
    body = group_digits(body.substr(0, end), spec.grouping, 3) + body.substr(end);
  }
  return pad(spec, sign_of(negative, spec.sign), body, '>');
}

}  // namespace

std::string float_repr(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  if (value == 0) return std::signbit(value) ? "-0.0" : "0.0";
  // Shortest round-tripping digits, from %.Ne.
  std::string sci;
  for (int p = 0; p <= 16; ++p) {
    sci = c_format("e", p, value);
    if (std::strtod(sci.c_str(), nullptr) == value) break;
  }
  bool negative = sci[0] == '-';
  size_t e = sci.find('e');
  std::string digits;
  for (char c : sci.substr(negative ? 1 : 0, e - (negative ? 1 : 0))) {
    if (c != '.') digits += c;
  }
  int exponent = std::atoi(sci.c_str() + e + 1);
  return float_layout(negative, digits, exponent, exponent >= -4 && exponent < 16);
}

std::string float_layout(bool negative, std::string digits, int exponent, bool positional) {
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  std::string out = negative ? "-" : "";
  if (positional) {
    if (exponent < 0) {
      out += "0." + std::string(static_cast<size_t>(-exponent - 1), '0') + digits;
    } else if (static_cast<size_t>(exponent) + 1 >= digits.size()) {
      out += digits + std::string(static_cast<size_t>(exponent) + 1 - digits.size(), '0') + ".0";
    } else {
      out +=
          digits.substr(0, static_cast<size_t>(exponent) + 1) + "." + digits.substr(static_cast<size_t>(exponent) + 1);
    }
    return out;
  }
  out += digits.substr(0, 1);
  if (digits.size() > 1) out += "." + digits.substr(1);
  out += fmt::format("e{}{:02d}", exponent < 0 ? '-' : '+', std::abs(exponent));
  return out;
}

std::string format_value(Interpreter& interp, const Value& value, const std::string& spec_text) {
  // NumPy's scalars format as the Python number they convert to: f"{np.float32(0.1)}" is
  // 0.10000000149011612 while str() gives 0.1.
  if (spec_text.empty()) return interp.str(value.is_numpy_scalar() ? value.plain() : value);
  Spec spec = parse_spec(spec_text);
  if (value.is_float()) return format_float(value.as_float(), spec);
  if (value.is_integral()) {
    if (spec.type && std::string("eEfFgG%").find(spec.type) != std::string::npos) {
      return format_float(static_cast<double>(value.as_int()), spec);
    }
    if (value.is_bool() && spec.type == 0 && spec.width < 0) return interp.str(value);
    return format_int(value.as_int(), spec);
  }
  if (value.as<Str>() == nullptr && value.as<Instance>() == nullptr && !spec_text.empty() && spec.type != 0 &&
      spec.type != 's') {
    raise(ExcKind::TypeError,
          fmt::format("unsupported format string passed to {}.__format__", Interpreter::type_name(value)));
  }
  if (spec.type != 0 && spec.type != 's') {
    raise(ExcKind::ValueError,
          fmt::format("Unknown format code '{}' for object of type '{}'", spec.type, Interpreter::type_name(value)));
  }
  std::string text = interp.str(value);
  if (spec.precision >= 0 && display_width(text) > static_cast<size_t>(spec.precision)) {
    text = text.substr(0, static_cast<size_t>(spec.precision));
  }
  return pad(spec, "", text, '<');
}

std::string percent_format(Interpreter& interp, const std::string& fmt_text, const Value& args) {
  std::vector<Value> items;
  Dict* mapping = args.as<Dict>();
  if (auto* t = args.as<Tuple>())
    items = t->items;
  else if (!mapping)
    items.push_back(args);
  size_t next = 0;
  std::string out;
  auto take = [&]() -> Value {
    if (next >= items.size()) raise(ExcKind::TypeError, "not enough arguments for format string");
    return items[next++];
  };
  for (size_t i = 0; i < fmt_text.size(); ++i) {
    char c = fmt_text[i];
    if (c != '%') {
      out += c;
      continue;
    }
    if (++i >= fmt_text.size()) raise(ExcKind::ValueError, "incomplete format");
    Value arg;
    bool have_arg = false;
    if (fmt_text[i] == '(') {
      size_t close = fmt_text.find(')', i);
      if (close == std::string::npos || !mapping) raise(ExcKind::TypeError, "format requires a mapping");
      Value* v = mapping->find(interp, make_str(fmt_text.substr(i + 1, close - i - 1)));
      if (!v) raise_key_error(make_str(fmt_text.substr(i + 1, close - i - 1)));
      arg = *v;
      have_arg = true;
      i = close + 1;
    }
    Spec spec;
    spec.align = '>';
    for (; i < fmt_text.size() && std::string("-+ #0").find(fmt_text[i]) != std::string::npos; ++i) {
      switch (fmt_text[i]) {
        case '-':
          spec.align = '<';
          break;
        case '+':
          spec.sign = '+';
          break;
        case ' ':
          if (spec.sign != '+') spec.sign = ' ';
          break;
        case '#':
          spec.alternate = true;
          break;
        case '0':
          if (spec.align != '<') {
            spec.fill = '0';
            spec.align = '=';
          }
          break;
      }
    }
    auto read_number = [&](int& target) {
      if (i < fmt_text.size() && fmt_text[i] == '*') {
        target = static_cast<int>(take().as_int());
        ++i;
        return;
      }
      size_t start = i;
      while (i < fmt_text.size() && std::isdigit(static_cast<unsigned char>(fmt_text[i]))) ++i;
      if (i > start) target = format_number(fmt_text.substr(start, i - start));
    };
    read_number(spec.width);
    if (i < fmt_text.size() && fmt_text[i] == '.') {
      ++i;
      spec.precision = 0;
      read_number(spec.precision);
    }
    if (i >= fmt_text.size()) raise(ExcKind::ValueError, "incomplete format");
    char type = fmt_text[i];
    if (type == '%') {
      out += '%';
      continue;
    }
    if (!have_arg) arg = take();
    switch (type) {
      case 'd':
      case 'i':
      case 'u': {
        if (!arg.is_number())
          raise(ExcKind::TypeError,
                "%" + std::string(1, type) + " format: a real number is required, not " + Interpreter::type_name(arg));
        int64_t v = arg.is_float() ? static_cast<int64_t>(arg.as_float()) : arg.as_int();
        spec.type = 'd';
        if (spec.precision >= 0) spec.precision = -1;
        out += format_int(v, spec);
        break;
      }
      case 'x':
      case 'X':
      case 'o': {
        if (!arg.is_integral())
          raise(ExcKind::TypeError,
                "%" + std::string(1, type) + " format: an integer is required, not " + Interpreter::type_name(arg));
        spec.type = type;
        out += format_int(arg.as_int(), spec);
        break;
      }
      case 'e':
      case 'E':
      case 'f':
      case 'F':
      case 'g':
      case 'G': {
        if (!arg.is_number()) raise(ExcKind::TypeError, "must be real number, not " + Interpreter::type_name(arg));
        spec.type = type;
        out += format_float(arg.as_float(), spec);
        break;
      }
      case 'c': {
        std::string ch = arg.as<Str>() ? arg.as<Str>()->value : std::string(1, static_cast<char>(arg.as_int()));
        out += pad(spec, "", ch, '>');
        break;
      }
      case 's':
      case 'r':
      case 'a': {
        std::string text = type == 's' ? interp.str(arg) : interp.repr(arg);
        if (spec.precision >= 0 && text.size() > static_cast<size_t>(spec.precision))
          text.resize(static_cast<size_t>(spec.precision));
        spec.fill = ' ';
        if (spec.align == '=') spec.align = '>';
        out += pad(spec, "", text, '>');
        break;
      }
      default:
        raise(ExcKind::ValueError, fmt::format("unsupported format character '{}'", type));
    }
  }
  if (!mapping && next < items.size()) {
    raise(ExcKind::TypeError, "not all arguments converted during string formatting");
  }
  return out;
}

std::string str_format(Interpreter& interp, const std::string& text, const std::vector<Value>& args,
                       const std::vector<std::pair<Symbol, Value>>& kwargs) {
  std::string out;
  size_t auto_index = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '}') {
      if (i + 1 < text.size() && text[i + 1] == '}') {
        out += '}';
        ++i;
        continue;
      }
      raise(ExcKind::ValueError, "Single '}' encountered in format string");
    }
    if (c != '{') {
      out += c;
      continue;
    }
    if (i + 1 < text.size() && text[i + 1] == '{') {
      out += '{';
      ++i;
      continue;
    }
    // Find the matching '}' (the spec may hold one nested level of {}).
    size_t j = i + 1;
    int depth = 1;
    for (; j < text.size(); ++j) {
      if (text[j] == '{')
        ++depth;
      else if (text[j] == '}' && --depth == 0)
        break;
    }
    if (j >= text.size()) raise(ExcKind::ValueError, "Single '{' encountered in format string");
    std::string field = text.substr(i + 1, j - i - 1);
    i = j;
    std::string spec;
    char conversion = 0;
    size_t colon = field.find(':');
    if (colon != std::string::npos) {
      spec = str_format(interp, field.substr(colon + 1), args, kwargs);
      field = field.substr(0, colon);
    }
    size_t bang = field.find('!');
    if (bang != std::string::npos) {
      conversion = bang + 1 < field.size() ? field[bang + 1] : 0;
      field = field.substr(0, bang);
    }
    size_t name_end = field.find_first_of(".[");
    std::string name = field.substr(0, name_end);
    Value value;
    if (name.empty()) {
      if (auto_index >= args.size())
        raise(ExcKind::IndexError,
              "Replacement index " + std::to_string(auto_index) + " out of range for positional args tuple");
      value = args[auto_index++];
    } else if (std::isdigit(static_cast<unsigned char>(name[0]))) {
      int64_t index = format_number(name);
      if (static_cast<size_t>(index) >= args.size())
        raise(ExcKind::IndexError, "Replacement index " + name + " out of range for positional args tuple");
      value = args[static_cast<size_t>(index)];
    } else {
      bool found = false;
      for (const auto& [k, v] : kwargs) {
        if (symbol_name(k) == name) {
          value = v;
          found = true;
        }
      }
      if (!found) raise_key_error(make_str(name));
    }
    // Attribute and item accessors.
    size_t k = name_end;
    while (k != std::string::npos && k < field.size()) {
      if (field[k] == '.') {
        size_t end = field.find_first_of(".[", k + 1);
        value = interp.get_attr(
            value, intern(field.substr(k + 1, end == std::string::npos ? std::string::npos : end - k - 1)));
        k = end;
      } else {
        size_t end = field.find(']', k);
        if (end == std::string::npos) raise(ExcKind::ValueError, "Missing ']' in format string");
        std::string key = field.substr(k + 1, end - k - 1);
        Value key_value = !key.empty() && std::all_of(key.begin(), key.end(), ::isdigit)
                              ? Value::integer(format_number(key))
                              : make_str(key);
        value = interp.get_item(value, key_value);
        k = end + 1;
      }
    }
    if (conversion == 'r' || conversion == 'a')
      value = make_str(interp.repr(value));
    else if (conversion == 's')
      value = make_str(interp.str(value));
    out += format_value(interp, value, spec);
  }
  return out;
}

}  // namespace tsch::script
