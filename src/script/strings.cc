// Methods of str. Strings are UTF-8 bytes; indexing and len count code points only where
// the text is ASCII-free is not needed by scripts, so they count bytes for ASCII and decode
// otherwise (see code_points()).
#include <fmt/format.h>

#include <algorithm>

#include "script/exceptions.h"
#include "script/format.h"
#include "script/interpreter.h"
#include "script/sequence.h"
#include "script/types.h"

namespace tsch::script {
namespace {

const std::string& self_str(Args& a) { return a[0].as<Str>()->value; }

std::string strip_chars(const std::string& s, const Value& chars, bool left, bool right) {
  std::string set = chars.is_none() ? std::string(" \t\n\r\f\v") : chars.as<Str>()->value;
  size_t b = 0, e = s.size();
  if (left) {
    while (b < e && set.find(s[b]) != std::string::npos) ++b;
  }
  if (right) {
    while (e > b && set.find(s[e - 1]) != std::string::npos) --e;
  }
  return s.substr(b, e - b);
}

std::vector<Value> split(const std::string& s, const Value& sep, int64_t maxsplit) {
  std::vector<Value> out;
  if (sep.is_none()) {
    size_t i = 0;
    int64_t splits = 0;
    while (i < s.size()) {
      while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
      if (i >= s.size()) break;
      if (maxsplit >= 0 && splits >= maxsplit) {
        size_t e = s.find_last_not_of(" \t\n\r\f\v");
        out.push_back(make_str(s.substr(i, e - i + 1)));
        return out;
      }
      size_t j = i;
      while (j < s.size() && !std::isspace(static_cast<unsigned char>(s[j]))) ++j;
      out.push_back(make_str(s.substr(i, j - i)));
      ++splits;
      i = j;
    }
    return out;
  }
  const std::string& d = sep.as<Str>()->value;
  if (d.empty()) raise(ExcKind::ValueError, "empty separator");
  size_t start = 0;
  int64_t splits = 0;
  while (true) {
    size_t pos = s.find(d, start);
    if (pos == std::string::npos || (maxsplit >= 0 && splits >= maxsplit)) break;
    out.push_back(make_str(s.substr(start, pos - start)));
    start = pos + d.size();
    ++splits;
  }
  out.push_back(make_str(s.substr(start)));
  return out;
}

const std::string& str_arg(Args& a, size_t i) { return a.get_str(i); }

bool all_chars(const std::string& s, int (*pred)(int)) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [&](char c) { return pred(static_cast<unsigned char>(c)) != 0; });
}

std::string justify(const std::string& s, int64_t width, const std::string& fill, char how) {
  int64_t n = static_cast<int64_t>(s.size());
  if (width <= n) return s;
  int64_t pad = width - n;
  char f = fill.empty() ? ' ' : fill[0];
  if (how == '<') return s + std::string(static_cast<size_t>(pad), f);
  if (how == '>') return std::string(static_cast<size_t>(pad), f) + s;
  int64_t left = pad / 2 + (pad & width & 1);
  return std::string(static_cast<size_t>(left), f) + s + std::string(static_cast<size_t>(pad - left), f);
}

}  // namespace

void install_str_methods(TypeObject& t) {  // function-length: table (one def per script name)
  t.def("join", "self, iterable", [](Interpreter& interp, Args& a) {
    std::string out;
    bool first = true;
    size_t index = 0;
    interp.for_each(a[1], [&](const Value& v) {
      auto* s = v.as<Str>();
      if (!s) {
        raise(ExcKind::TypeError,
              fmt::format("sequence item {}: expected str instance, {} found", index, Interpreter::type_name(v)));
      }
      if (!first) out += self_str(a);
      out += s->value;
      first = false;
      ++index;
      return true;
    });
    return make_str(out);
  });
  t.def("split", "self, sep=None, maxsplit=-1", [](Interpreter&, Args& a) {
    if (!a[1].is_none()) a.get_str(1);
    return make_list(split(self_str(a), a[1], a.get_int(2)));
  });
  t.def("splitlines", "self", [](Interpreter&, Args& a) {
    std::vector<Value> out;
    const std::string& s = self_str(a);
    size_t start = 0;
    while (start < s.size()) {
      size_t pos = s.find('\n', start);
      if (pos == std::string::npos) pos = s.size();
      size_t end = pos > start && s[pos - 1] == '\r' ? pos - 1 : pos;
      out.push_back(make_str(s.substr(start, end - start)));
      start = pos + 1;
    }
    return make_list(std::move(out));
  });
  t.def("strip", "self, chars=None",
        [](Interpreter&, Args& a) { return make_str(strip_chars(self_str(a), a[1], true, true)); });
  t.def("lstrip", "self, chars=None",
        [](Interpreter&, Args& a) { return make_str(strip_chars(self_str(a), a[1], true, false)); });
  t.def("rstrip", "self, chars=None",
        [](Interpreter&, Args& a) { return make_str(strip_chars(self_str(a), a[1], false, true)); });
  t.def("replace", "self, old, new, count=-1", [](Interpreter&, Args& a) {
    std::string s = self_str(a);
    const std::string& from = str_arg(a, 1);
    const std::string& to = str_arg(a, 2);
    int64_t limit = a.get_int(3);
    std::string out;
    size_t start = 0;
    int64_t done = 0;
    if (from.empty()) {
      for (char c : s) {
        if (limit < 0 || done < limit) {
          out += to;
          ++done;
        }
        out += c;
      }
      if (limit < 0 || done < limit) out += to;
      return make_str(out);
    }
    while (limit < 0 || done < limit) {
      size_t pos = s.find(from, start);
      if (pos == std::string::npos) break;
      out += s.substr(start, pos - start) + to;
      start = pos + from.size();
      ++done;
    }
    out += s.substr(start);
    return make_str(out);
  });
  t.def("startswith", "self, prefix", [](Interpreter& interp, Args& a) {
    const std::string& s = self_str(a);
    if (auto* tuple = a[1].as<Tuple>()) {
      for (const auto& p : tuple->items) {
        auto* ps = p.as<Str>();
        if (ps && s.rfind(ps->value, 0) == 0) return Value::boolean(true);
      }
      return Value::boolean(false);
    }
    return Value::boolean(s.rfind(str_arg(a, 1), 0) == 0);
  });
  t.def("endswith", "self, suffix", [](Interpreter&, Args& a) {
    const std::string& s = self_str(a);
    auto ends = [&](const std::string& x) {
      return s.size() >= x.size() && s.compare(s.size() - x.size(), x.size(), x) == 0;
    };
    if (auto* tuple = a[1].as<Tuple>()) {
      for (const auto& p : tuple->items) {
        if (auto* ps = p.as<Str>(); ps && ends(ps->value)) return Value::boolean(true);
      }
      return Value::boolean(false);
    }
    return Value::boolean(ends(str_arg(a, 1)));
  });
  t.def("find", "self, sub", [](Interpreter&, Args& a) {
    size_t pos = self_str(a).find(str_arg(a, 1));
    return Value::integer(pos == std::string::npos ? -1 : static_cast<int64_t>(pos));
  });
  t.def("rfind", "self, sub", [](Interpreter&, Args& a) {
    size_t pos = self_str(a).rfind(str_arg(a, 1));
    return Value::integer(pos == std::string::npos ? -1 : static_cast<int64_t>(pos));
  });
  t.def("index", "self, sub", [](Interpreter&, Args& a) {
    size_t pos = self_str(a).find(str_arg(a, 1));
    if (pos == std::string::npos) raise(ExcKind::ValueError, "substring not found");
    return Value::integer(static_cast<int64_t>(pos));
  });
  t.def("count", "self, sub", [](Interpreter&, Args& a) {
    const std::string& s = self_str(a);
    const std::string& sub = str_arg(a, 1);
    if (sub.empty()) return Value::integer(static_cast<int64_t>(s.size()) + 1);
    int64_t n = 0;
    for (size_t pos = s.find(sub); pos != std::string::npos; pos = s.find(sub, pos + sub.size())) ++n;
    return Value::integer(n);
  });
  t.def("upper", "self", [](Interpreter&, Args& a) {
    std::string s = self_str(a);
    for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return make_str(s);
  });
  t.def("lower", "self", [](Interpreter&, Args& a) {
    std::string s = self_str(a);
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return make_str(s);
  });
  t.def("capitalize", "self", [](Interpreter&, Args& a) {
    std::string s = self_str(a);
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (!s.empty()) s[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(s[0])));
    return make_str(s);
  });
  t.def("isdigit", "self", [](Interpreter&, Args& a) { return Value::boolean(all_chars(self_str(a), ::isdigit)); });
  t.def("isalpha", "self", [](Interpreter&, Args& a) { return Value::boolean(all_chars(self_str(a), ::isalpha)); });
  t.def("isalnum", "self", [](Interpreter&, Args& a) { return Value::boolean(all_chars(self_str(a), ::isalnum)); });
  t.def("isspace", "self", [](Interpreter&, Args& a) { return Value::boolean(all_chars(self_str(a), ::isspace)); });
  t.def("isupper", "self", [](Interpreter&, Args& a) {
    const std::string& s = self_str(a);
    bool any = std::any_of(s.begin(), s.end(), ::isalpha);
    return Value::boolean(any && std::none_of(s.begin(), s.end(), ::islower));
  });
  t.def("islower", "self", [](Interpreter&, Args& a) {
    const std::string& s = self_str(a);
    bool any = std::any_of(s.begin(), s.end(), ::isalpha);
    return Value::boolean(any && std::none_of(s.begin(), s.end(), ::isupper));
  });
  t.def("ljust", "self, width, fillchar=\" \"",
        [](Interpreter&, Args& a) { return make_str(justify(self_str(a), a.get_int(1), str_arg(a, 2), '<')); });
  t.def("rjust", "self, width, fillchar=\" \"",
        [](Interpreter&, Args& a) { return make_str(justify(self_str(a), a.get_int(1), str_arg(a, 2), '>')); });
  t.def("center", "self, width, fillchar=\" \"",
        [](Interpreter&, Args& a) { return make_str(justify(self_str(a), a.get_int(1), str_arg(a, 2), '^')); });
  t.def("zfill", "self, width", [](Interpreter&, Args& a) {
    std::string s = self_str(a);
    int64_t width = a.get_int(1);
    if (static_cast<int64_t>(s.size()) >= width) return make_str(s);
    size_t sign = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
    s.insert(sign, std::string(static_cast<size_t>(width) - s.size(), '0'));
    return make_str(s);
  });
  t.def("format", "self, *args, **kwargs", [](Interpreter& interp, Args& a) {
    return make_str(str_format(interp, self_str(a), a.varargs(), a.kwargs()));
  });
  t.def("encode", "self, encoding=\"utf-8\"", [](Interpreter&, Args& a) { return make_str(self_str(a)); });
}

}  // namespace tsch::script
