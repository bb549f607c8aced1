#include "ir/dtype.h"

#include <cctype>

#include "support/parse_int.h"

namespace tsch::ir {

std::optional<DataType> DataType::parse(const std::string& text) {
  if (text == "bool") return bool_();
  if (text == "handle") return handle();
  if (text == "void") return void_();
  std::string base = text;
  int lanes = 1;
  size_t x = text.find('x');
  if (x != std::string::npos && x + 1 < text.size()) {
    for (size_t i = x + 1; i < text.size(); ++i) {
      if (!std::isdigit(static_cast<unsigned char>(text[i]))) return std::nullopt;
    }
    std::optional<int64_t> n = parse_decimal(std::string_view(text).substr(x + 1), 1 << 16);
    if (!n) return std::nullopt;
    lanes = static_cast<int>(*n);
    base = text.substr(0, x);
  }
  auto with_bits = [&](const char* prefix, Code code) -> std::optional<DataType> {
    size_t n = std::string(prefix).size();
    if (base.compare(0, n, prefix) != 0) return std::nullopt;
    // "int", "uint", "float" without bits are TVM's 32-bit types.
    if (base.size() == n)
      return code == Code::BFloat ? std::nullopt : std::optional<DataType>(DataType{code, 32, lanes});
    for (size_t i = n; i < base.size(); ++i) {
      if (!std::isdigit(static_cast<unsigned char>(base[i]))) return std::nullopt;
    }
    std::optional<int64_t> bits = parse_decimal(std::string_view(base).substr(n), 1024);
    if (!bits) return std::nullopt;
    return DataType{code, static_cast<int>(*bits), lanes};
  };
  if (base == "float8_e4m3fn") return lanes >= 1 ? std::optional<DataType>(float8_e4m3fn(lanes)) : std::nullopt;
  if (base == "float8_e5m2") return lanes >= 1 ? std::optional<DataType>(float8_e5m2(lanes)) : std::nullopt;
  std::optional<DataType> result;
  if (base.rfind("uint", 0) == 0)
    result = with_bits("uint", Code::UInt);
  else if (base.rfind("int", 0) == 0)
    result = with_bits("int", Code::Int);
  else if (base.rfind("bfloat", 0) == 0)
    result = with_bits("bfloat", Code::BFloat);
  else if (base.rfind("float", 0) == 0)
    result = with_bits("float", Code::Float);
  if (!result) return std::nullopt;
  int bits = result->bits;
  bool valid = result->code == Code::Float ? (bits == 16 || bits == 32 || bits == 64)
               : result->code == Code::BFloat
                   ? bits == 16
                   : (bits == 8 || bits == 16 || bits == 32 || bits == 64 || bits == 1 || bits == 4);
  if (!valid || lanes < 1) return std::nullopt;
  return result;
}

bool DataType::is_unsupported_tvm_name(const std::string& text) {
  for (const char* name : {"float8_e3m4", "float8_e4m3fnuz", "float8_e4m3b11fnuz", "float8_e4m3", "float8_e5m2fnuz",
                           "float8_e8m0fnu", "float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn"}) {
    std::string n = name;
    if (text.compare(0, n.size(), n) != 0) continue;
    std::string rest = text.substr(n.size());
    bool lanes = rest.empty() ||
                 (rest[0] == 'x' && rest.size() > 1 && rest.find_first_not_of("0123456789", 1) == std::string::npos);
    if (lanes) return true;
  }
  return false;
}

std::string DataType::to_string() const {
  std::string s;
  switch (code) {
    case Code::Int:
      s = "int" + std::to_string(bits);
      break;
    case Code::UInt:
      s = bits == 1 ? "bool" : "uint" + std::to_string(bits);
      break;
    case Code::Float:
      s = "float" + std::to_string(bits);
      break;
    case Code::BFloat:
      s = "bfloat" + std::to_string(bits);
      break;
    case Code::Float8E4M3FN:
      s = "float8_e4m3fn";
      break;
    case Code::Float8E5M2:
      s = "float8_e5m2";
      break;
    case Code::Handle:
      return "handle";
    case Code::Void:
      return "void";
  }
  if (lanes != 1) s += "x" + std::to_string(lanes);
  return s;
}

}  // namespace tsch::ir
