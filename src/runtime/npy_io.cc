#include "support/parse_int.h"
#include "runtime/npy_io.h"

#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "runtime/array_ops.h"

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

DataType dtype_of_descr(const std::string& d, const std::string& path) {
  if (d.size() < 3) throw NpyError(path + ": unsupported dtype '" + d + "'");
  char order = d[0], kind = d[1];
  int bytes = std::atoi(d.c_str() + 2);
  if (order == '>' && bytes > 1) throw NpyError(path + ": not supported yet: big-endian data ('" + d + "')");
  DataType t;
  if (kind == 'b' && bytes == 1) t = DataType::bool_();
  else if (kind == 'f') t = DataType::float_(bytes * 8);
  else if (kind == 'i') t = DataType::int_(bytes * 8);
  else if (kind == 'u') t = DataType::uint(bytes * 8);
  else throw NpyError(path + ": not supported yet: dtype '" + d + "'");
  if (!is_array_dtype(t)) throw NpyError(path + ": not supported yet: dtype '" + d + "'");
  return t;
}

// The value text after `'key':` in the header dict.
std::string field(const std::string& header, const std::string& key, const std::string& path) {
  size_t k = header.find("'" + key + "'");
  if (k == std::string::npos) throw NpyError(path + ": not a valid .npy header (no '" + key + "')");
  size_t colon = header.find(':', k);
  size_t start = header.find_first_not_of(' ', colon + 1);
  if (header[start] == '(') return header.substr(start, header.find(')', start) - start + 1);
  if (header[start] == '\'') return header.substr(start + 1, header.find('\'', start + 1) - start - 1);
  size_t end = header.find_first_of(",}", start);
  return header.substr(start, end - start);
}

}  // namespace

void save_npy(const std::string& path, const NDArray& view) {
  NDArrayRef keep;
  const NDArray& a = dense(view, keep);
  std::string header = "{'descr': '" + descr_of(a.dtype()) + "', 'fortran_order': False, 'shape': " + shape_string(a.shape()) + ", }";
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

NDArrayRef load_npy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw NpyError("[Errno 2] No such file or directory: '" + path + "'");
  char magic[8];
  if (!in.read(magic, 8) || std::memcmp(magic, "\x93NUMPY", 6) != 0)
    throw NpyError(path + ": not a .npy file (bad magic string)");
  uint32_t len = 0;
  unsigned char b[4] = {0, 0, 0, 0};
  int major = static_cast<unsigned char>(magic[6]);
  in.read(reinterpret_cast<char*>(b), major == 1 ? 2 : 4);
  len = b[0] | (b[1] << 8) | (b[2] << 16) | (static_cast<uint32_t>(b[3]) << 24);
  std::string header(len, '\0');
  if (!in.read(header.data(), len)) throw NpyError(path + ": truncated .npy header");
  DataType t = dtype_of_descr(field(header, "descr", path), path);
  bool fortran = field(header, "fortran_order", path) == "True";
  std::string shape_text = field(header, "shape", path);
  Shape shape;
  for (size_t i = 1; i < shape_text.size();) {
    size_t j = i;
    while (j < shape_text.size() && std::isdigit(static_cast<unsigned char>(shape_text[j]))) ++j;
    if (j > i) {
      std::optional<int64_t> n = parse_decimal(std::string_view(shape_text).substr(i, j - i));
      if (!n) throw NpyError(path + ": the .npy header's shape is out of range");
      shape.push_back(*n);
    }
    i = j + 1;
  }
  Shape stored = shape;
  if (fortran) stored.assign(shape.rbegin(), shape.rend());
  auto a = make_array(t, stored);
  if (!in.read(static_cast<char*>(a->data()), a->nbytes())) throw NpyError(path + ": truncated .npy data");
  if (!fortran) return a;
  std::vector<int> axes;
  for (int d = a->ndim(); d-- > 0;) axes.push_back(d);
  return transpose(*a, axes);
}

}  // namespace tsch::runtime
