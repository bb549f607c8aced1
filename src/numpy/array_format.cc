#include "numpy/array_format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <sstream>
#include <vector>

namespace tsch::bindings {

using runtime::NDArray;

namespace {

constexpr int64_t kThreshold = 1000;  // summarize arrays larger than this
constexpr int64_t kEdgeItems = 3;
constexpr size_t kLineWidth = 75;

bool round_trips(double x, const std::string& text, bool f32) {
  double back = std::strtod(text.c_str(), nullptr);
  return f32 ? static_cast<float>(back) == static_cast<float>(x) : back == x;
}

// The shortest positional text of x (at most 8 fractional digits) that reads back as x.
std::string positional(double x, bool f32) {
  char buf[64];
  for (int p = 0; p <= 8; ++p) {
    std::snprintf(buf, sizeof buf, "%.*f", p, x);
    if (round_trips(x, buf, f32)) break;
  }
  std::string s = buf;
  if (s.find('.') == std::string::npos) return s + ".";
  while (s.back() == '0') s.pop_back();  // 8 digits that do not round-trip: drop zeros
  return s;
}

std::string scientific(double x, bool f32) {
  char buf[64];
  for (int p = 0; p <= 8; ++p) {
    std::snprintf(buf, sizeof buf, "%.*e", p, x);
    if (round_trips(x, buf, f32)) break;
  }
  std::string s = buf;
  size_t e = s.find('e');
  std::string mant = s.substr(0, e), exp = s.substr(e);
  if (mant.find('.') == std::string::npos)
    mant += ".";
  else
    while (mant.back() == '0') mant.pop_back();
  return mant + exp;
}

std::string special(double x) {
  if (std::isnan(x)) return "nan";
  return x < 0 ? "-inf" : "inf";
}

// Formats a set of floats the NumPy way, aligned on the decimal point.
struct FloatFormat {
  bool sci = false, f32 = false;
  size_t int_width = 0, frac_width = 0;

  FloatFormat(const NDArray& a, const std::vector<int64_t>& idx) {
    f32 = a.dtype().bits <= 32;
    double mx = 0, mn = INFINITY;
    for (int64_t i : idx) {
      double x = std::fabs(a.get_f(i));
      if (!std::isfinite(x) || x == 0) continue;
      mx = std::max(mx, x);
      mn = std::min(mn, x);
    }
    if (mx > 0) sci = mx >= 1e8 || mn < 1e-4 || mx / mn > 1e3;
    for (int64_t i : idx) {
      double x = a.get_f(i);
      if (!std::isfinite(x)) {
        int_width = std::max(int_width, special(x).size());
        continue;
      }
      std::string s = sci ? scientific(x, f32) : positional(x, f32);
      size_t dot = s.find('.');
      int_width = std::max(int_width, dot);
      size_t e = s.find('e');
      frac_width = std::max(frac_width, (e == std::string::npos ? s.size() : e) - dot - 1);
    }
  }

  std::string operator()(double x) const {
    if (!std::isfinite(x)) {
      std::string s = special(x);
      return std::string(int_width + 1 + frac_width > s.size() ? int_width + 1 + frac_width - s.size() : 0, ' ') + s;
    }
    std::string s = sci ? scientific(x, f32) : positional(x, f32);
    size_t dot = s.find('.');
    size_t e = s.find('e');
    std::string mant = s.substr(0, e == std::string::npos ? s.size() : e);
    std::string exp = e == std::string::npos ? "" : s.substr(e);
    size_t frac = mant.size() - dot - 1;
    // NumPy pads scientific mantissas with zeros, positional fractions with spaces.
    if (sci) mant += std::string(frac_width - frac, '0');
    std::string out = std::string(int_width - dot, ' ') + mant + exp;
    if (!sci) out += std::string(frac_width - frac, ' ');
    return out;
  }
};

// Flat indices of the elements that get printed (all, or the edges when summarized).
void collect(const NDArray& a, bool summarize, int axis, int64_t base, std::vector<int64_t>& out) {
  if (axis == a.ndim()) {
    out.push_back(base);
    return;
  }
  int64_t n = a.shape()[axis], stride = 1;
  for (int d = axis + 1; d < a.ndim(); ++d) stride *= a.shape()[d];
  for (int64_t i = 0; i < n; ++i) {
    if (summarize && n > 2 * kEdgeItems && i == kEdgeItems) i = n - kEdgeItems;
    collect(a, summarize, axis + 1, base + i * stride, out);
  }
}

struct Printer {
  const NDArray& a;
  bool summarize;
  std::string sep;  // ", " for repr, " " for str
  std::function<std::string(int64_t)> element;

  // Text of the sub-array at `axis` starting at flat `base`; `indent` is the column of its '['.
  std::string block(int axis, int64_t base, size_t indent) const {
    if (axis == a.ndim()) return element(base);
    int64_t n = a.shape()[axis], stride = 1;
    for (int d = axis + 1; d < a.ndim(); ++d) stride *= a.shape()[d];
    std::string out = "[";
    bool last_axis = axis == a.ndim() - 1;
    std::string trimmed_sep = sep.substr(0, sep.find_last_not_of(' ') + 1);
    size_t line_start = 0;
    for (int64_t i = 0; i < n; ++i) {
      std::string item;
      if (summarize && n > 2 * kEdgeItems && i == kEdgeItems) {
        item = "...";
        i = n - kEdgeItems - 1;
      } else {
        item = block(axis + 1, base + i * stride, indent + 1);
      }
      if (out.size() > 1) {
        if (last_axis) {
          // Wrap long rows at the line width, as NumPy does.
          size_t col = indent + (out.size() - line_start);
          if (col + sep.size() + item.size() + 1 > kLineWidth) {
            out += trimmed_sep + "\n" + std::string(indent + 1, ' ');
            line_start = out.size() - indent - 1;
          } else {
            out += sep;
          }
        } else {
          out += trimmed_sep + std::string(a.ndim() - axis - 1, '\n') + std::string(indent + 1, ' ');
        }
      }
      out += item;
      if (!last_axis) line_start = out.size();
    }
    return out + "]";
  }
};

std::string render(const NDArray& a, const std::string& sep, size_t indent) {
  bool summarize = a.size() > kThreshold;
  std::vector<int64_t> idx;
  collect(a, summarize, 0, 0, idx);
  std::function<std::string(int64_t)> element;
  ir::DataType t = a.dtype();
  if (t.is_float8()) {
    // NumPy formats a dtype whose scalar type is not from numpy with str() of each element
    // and no padding (arrayprint._get_format_function: `formatdict['void']`, str_format).
    element = [&a](int64_t i) { return float8_scalar_text(a.get_f(i)); };
  } else if (t.is_float()) {
    auto fmt = std::make_shared<FloatFormat>(a, idx);
    element = [&a, fmt](int64_t i) { return (*fmt)(a.get_f(i)); };
  } else {
    size_t width = 0;
    auto text = [&a, t](int64_t i) -> std::string {
      if (t.is_bool()) return a.get_i(i) ? "True" : "False";
      if (t.is_uint() && t.bits == 64) return std::to_string(static_cast<uint64_t>(a.get_i(i)));
      return std::to_string(a.get_i(i));
    };
    for (int64_t i : idx) width = std::max(width, text(i).size());
    // NumPy's BoolFormat prints " True" so that it lines up with "False" in every array
    // with dimensions, whatever the elements are.
    if (t.is_bool() && a.ndim() > 0) width = 5;
    element = [text, width](int64_t i) {
      std::string s = text(i);
      return std::string(width - s.size(), ' ') + s;
    };
  }
  if (a.ndim() == 0) return element(0);
  Printer p{a, summarize, sep, element};
  return p.block(0, 0, indent);
}

}  // namespace

std::string dtype_name(ir::DataType t) { return t.is_bool() ? "bool" : t.to_string(); }

std::string dtype_repr(ir::DataType t) {
  return t.is_float8() ? "dtype(" + dtype_name(t) + ")" : "dtype('" + dtype_name(t) + "')";
}

std::string float8_scalar_text(double value) {
  float f = static_cast<float>(value);
  std::ostringstream s;
  s << (std::isnan(f) ? std::fabs(f) : f);
  return s.str();
}

std::string array_repr(const NDArray& a) {
  ir::DataType t = a.dtype();
  bool default_dtype = t == ir::DataType::float_(64) || t == ir::DataType::int64() || t.is_bool();
  std::string body = a.size() == 0 && a.ndim() > 0 ? "[]" : render(a, ", ", 6);
  std::vector<std::string> extras;
  if (a.size() == 0 && a.ndim() > 1) extras.push_back("shape=" + runtime::shape_string(a.shape()));
  if ((!default_dtype || a.size() == 0) && !(a.size() == 0 && t == ir::DataType::float_(64))) {
    // NumPy's dtype_short_repr quotes a name that is not alphanumeric: 'float8_e4m3fn'.
    extras.push_back("dtype=" + (t.is_float8() ? "'" + dtype_name(t) + "'" : dtype_name(t)));
  }
  std::string out = "array(" + body;
  if (extras.empty()) return out + ")";
  std::string extra_text;
  for (const std::string& e : extras) extra_text += (extra_text.empty() ? "" : ", ") + e;
  extra_text += ")";
  out += ",";
  // As NumPy's _array_repr_implementation: the extras go on a line of their own, under the
  // first '[', when they would take the last line past the line width.
  size_t last_line = out.size() - (out.rfind('\n') == std::string::npos ? 0 : out.rfind('\n') + 1);
  return out + (last_line + extra_text.size() + 1 > kLineWidth ? "\n" + std::string(6, ' ') : " ") + extra_text;
}

std::string array_str(const NDArray& a) {
  if (a.size() == 0 && a.ndim() > 0) return "[]";
  return render(a, " ", 0);
}

std::string scalar_text(const NDArray& a, int64_t i) {
  ir::DataType t = a.dtype();
  if (t.is_bool()) return a.get_i(i) ? "True" : "False";
  if (!t.is_float()) return std::to_string(a.get_i(i));
  if (t.is_float8()) return float8_scalar_text(a.get_f(i));
  double x = a.get_f(i);
  if (!std::isfinite(x)) return special(x);
  std::string s = positional(x, t.bits <= 32);
  if (s.back() == '.') s += "0";
  return s;
}

}  // namespace tsch::bindings
