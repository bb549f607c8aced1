#include "runtime/npy_io.h"

#include <sys/stat.h>

#include <cctype>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "runtime/array_ops.h"
#include "support/checked_size.h"
#include "support/parse_int.h"

namespace tsch::runtime {

using ir::DataType;

namespace {

std::string descr_of(DataType t) {
  if (t.is_bool()) return "|b1";
  // NumPy writes ml_dtypes' types as their raw descr ('|V1'), which loads back as void bytes.
  if (t.is_float8()) throw NpyError("not supported yet: saving an array of dtype " + t.to_string() + " to .npy");
  char kind = t.is_float() ? 'f' : t.is_int() ? 'i' : 'u';
  char order = t.bits == 8 ? '|' : '<';
  return std::string(1, order) + kind + std::to_string(t.bits / 8);
}

[[noreturn]] void bad(const std::string& path, const std::string& why) { throw NpyError(path + ": " + why, true); }

DataType dtype_of_descr(const std::string& d, const std::string& path) {
  // '<f4', '|u1', '=i8': byte order, kind, item size in bytes (nothing else).
  std::optional<int64_t> bytes = d.size() >= 3 ? parse_decimal(std::string_view(d).substr(2), 64) : std::nullopt;
  if (!bytes || std::string("<>|=").find(d[0]) == std::string::npos)
    bad(path, "not supported yet: the dtype '" + d + "' (tsch reads bool, int, uint and float arrays)");
  char order = d[0], kind = d[1];
  if (order == '>' && *bytes > 1) throw NpyError(path + ": not supported yet: big-endian data ('" + d + "')", true);
  DataType t;
  int bits = static_cast<int>(*bytes) * 8;
  if (kind == 'b' && *bytes == 1)
    t = DataType::bool_();
  else if (kind == 'f')
    t = DataType::float_(bits);
  else if (kind == 'i')
    t = DataType::int_(bits);
  else if (kind == 'u')
    t = DataType::uint(bits);
  else
    bad(path, "not supported yet: the dtype '" + d + "' (tsch reads bool, int, uint and float arrays)");
  if (!is_array_dtype(t)) bad(path, "not supported yet: the dtype '" + d + "'");
  return t;
}

// The header as NumPy writes it: a Python dict literal with exactly the keys 'descr' (a
// string), 'fortran_order' (True or False) and 'shape' (a tuple of non-negative integers),
// then spaces and a line break. Anything else is refused, as NumPy's safe_eval would.
struct NpyHeader {
  std::string descr;
  bool fortran = false;
  Shape shape;
};

class HeaderParser {
 public:
  HeaderParser(const std::string& text, const std::string& path) : text_(text), path_(path) {}

  NpyHeader parse() {
    NpyHeader h;
    bool seen_descr = false, seen_fortran = false, seen_shape = false;
    expect('{');
    while (true) {
      skip_space();
      if (peek() == '}') break;
      std::string key = string_literal();
      expect(':');
      if (key == "descr" && !seen_descr) {
        h.descr = string_literal();
        seen_descr = true;
      } else if (key == "fortran_order" && !seen_fortran) {
        h.fortran = boolean();
        seen_fortran = true;
      } else if (key == "shape" && !seen_shape) {
        h.shape = tuple();
        seen_shape = true;
      } else {
        fail("the key '" + key + "' is unknown or repeated");
      }
      skip_space();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() != '}') fail("expected ',' or '}'");
    }
    ++pos_;  // '}'
    skip_space();
    if (pos_ != text_.size()) fail("text follows the header's dictionary");
    if (!seen_descr || !seen_fortran || !seen_shape)
      fail("the header needs the keys 'descr', 'fortran_order' and 'shape'");
    return h;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    bad(path_, "not a valid .npy header at byte " + std::to_string(pos_) + ": " + why);
  }
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void skip_space() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\t' || text_[pos_] == '\r'))
      ++pos_;
  }
  void expect(char c) {
    skip_space();
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++pos_;
  }
  std::string string_literal() {
    skip_space();
    char quote = peek();
    if (quote != '\'' && quote != '"') fail("expected a string");
    size_t end = text_.find(quote, pos_ + 1);
    if (end == std::string::npos) fail("an unterminated string");
    std::string s = text_.substr(pos_ + 1, end - pos_ - 1);
    if (s.find('\\') != std::string::npos) fail("an escape in a string");
    pos_ = end + 1;
    return s;
  }
  bool boolean() {
    skip_space();
    for (const char* word : {"True", "False"}) {
      if (text_.compare(pos_, std::strlen(word), word) == 0) {
        pos_ += std::strlen(word);
        return word[0] == 'T';
      }
    }
    fail("expected True or False");
  }
  Shape tuple() {
    expect('(');
    Shape shape;
    bool comma = true;  // "()" or after a ','
    while (true) {
      skip_space();
      if (peek() == ')') break;
      if (!comma) fail("expected ',' or ')' in the shape");
      size_t start = pos_;
      while (std::isdigit(static_cast<unsigned char>(peek()))) ++pos_;
      std::optional<int64_t> n = parse_decimal(std::string_view(text_).substr(start, pos_ - start));
      if (!n)
        fail(pos_ == start ? "expected a non-negative integer in the shape"
                           : "a dimension of the shape is out of range");
      shape.push_back(*n);
      skip_space();
      comma = peek() == ',';
      if (comma) ++pos_;
    }
    // Python's (3) is an int, not a tuple.
    if (shape.size() == 1 && !comma) fail("the shape (" + std::to_string(shape[0]) + ") is not a tuple");
    ++pos_;  // ')'
    return shape;
  }

  const std::string& text_;
  const std::string& path_;
  size_t pos_ = 0;
};

}  // namespace

void save_npy(const std::string& path, const NDArray& view) {
  NDArrayRef keep;
  const NDArray& a = dense(view, keep);
  std::string header =
      "{'descr': '" + descr_of(a.dtype()) + "', 'fortran_order': False, 'shape': " + shape_string(a.shape()) + ", }";
  size_t total = 10 + header.size() + 1;
  header += std::string((64 - total % 64) % 64, ' ') + "\n";
  std::ofstream out(path, std::ios::binary);
  if (!out) throw NpyError("[Errno 2] No such file or directory: '" + path + "'");
  out.write("\x93NUMPY\x01\x00", 8);
  uint16_t len = static_cast<uint16_t>(header.size());
  char len_bytes[2] = {static_cast<char>(len & 0xff), static_cast<char>(len >> 8)};
  out.write(len_bytes, 2);
  out.write(header.data(), header.size());
  out.write(static_cast<const char*>(a.data()), a.nbytes());
  if (!out) throw NpyError(path + ": write failed");
}

namespace {

// A .npy file being read: its bytes come from a stream of known size.
NDArrayRef read_npy(std::istream& in, uint64_t file_size, const std::string& path) {
  char magic[8];
  if (file_size < 10 || !in.read(magic, 8) || std::memcmp(magic, "\x93NUMPY", 6) != 0)
    bad(path, "not a .npy file (bad magic string)");
  int major = static_cast<unsigned char>(magic[6]), minor = static_cast<unsigned char>(magic[7]);
  if (major < 1 || major > 3 || minor != 0)
    bad(path, "we only support format version (1,0), (2,0), and (3,0), not (" + std::to_string(major) + ", " +
                  std::to_string(minor) + ")");
  unsigned char b[4] = {0, 0, 0, 0};
  size_t len_bytes = major == 1 ? 2 : 4;
  if (!in.read(reinterpret_cast<char*>(b), static_cast<std::streamsize>(len_bytes))) bad(path, "truncated .npy header");
  uint32_t len = b[0] | (b[1] << 8) | (b[2] << 16) | (static_cast<uint32_t>(b[3]) << 24);
  if (len > kNpyMaxHeaderSize)
    bad(path, "Header info length (" + std::to_string(len) +
                  ") is large and may not be safe to load securely (NumPy's limit is " +
                  std::to_string(kNpyMaxHeaderSize) + " bytes)");
  uint64_t data_start = 8 + len_bytes + len;
  if (data_start > file_size) bad(path, "truncated .npy header");
  std::string header(len, '\0');
  if (!in.read(header.data(), len)) bad(path, "truncated .npy header");
  NpyHeader h = HeaderParser(header, path).parse();
  DataType t = dtype_of_descr(h.descr, path);
  Shape stored = h.shape;
  if (h.fortran) stored.assign(h.shape.rbegin(), h.shape.rend());
  // The data must be in the file before anything is allocated for it.
  int64_t count = 0;
  try {
    count = checked_element_count(stored);
  } catch (const SizeOverflow& e) {
    bad(path, e.what());
  }
  int64_t bytes = 0;
  if (__builtin_mul_overflow(count, static_cast<int64_t>(t.is_bool() ? 1 : t.bits / 8), &bytes) ||
      static_cast<uint64_t>(bytes) > file_size - data_start)
    bad(path, "truncated .npy data: the shape " + shape_string(h.shape) + " needs " + std::to_string(bytes) +
                  " bytes, the file has " + std::to_string(file_size - data_start));
  auto a = make_array(t, stored);
  if (!in.read(static_cast<char*>(a->data()), a->nbytes())) bad(path, "truncated .npy data");
  if (!h.fortran) return a;
  std::vector<int> axes;
  for (int d = a->ndim(); d-- > 0;) axes.push_back(d);
  return transpose(*a, axes);
}

}  // namespace

NDArrayRef load_npy(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    throw NpyError("[Errno 21] Is a directory: '" + path + "'");
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw NpyError("[Errno 2] No such file or directory: '" + path + "'");
  auto size = static_cast<std::streamoff>(in.tellg());
  if (size < 0) throw NpyError(path + ": cannot read the file");
  in.seekg(0);
  return read_npy(in, static_cast<uint64_t>(size), path);
}

NDArrayRef load_npy_bytes(const std::string& bytes, const std::string& name) {
  std::istringstream in(bytes);
  return read_npy(in, bytes.size(), name);
}

}  // namespace tsch::runtime
