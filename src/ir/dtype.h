// TensorIR data types: a code (int, uint, float, bfloat, the float8 formats, handle), a bit
// width and lanes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace tsch::ir {

struct DataType {
  // Float8E4M3FN / Float8E5M2: TVM's float8_e4m3fn and float8_e5m2 (OCP FP8; 8 bits, no other
  // width): floats that scripts compute with, stored as bytes (`support/float8.h`).
  enum class Code : uint8_t { Int, UInt, Float, BFloat, Float8E4M3FN, Float8E5M2, Handle, Void };
  Code code = Code::Int;
  int bits = 32;
  int lanes = 1;

  static DataType int_(int bits, int lanes = 1) { return {Code::Int, bits, lanes}; }
  static DataType uint(int bits, int lanes = 1) { return {Code::UInt, bits, lanes}; }
  static DataType float_(int bits, int lanes = 1) { return {Code::Float, bits, lanes}; }
  static DataType bool_(int lanes = 1) { return {Code::UInt, 1, lanes}; }
  static DataType handle() { return {Code::Handle, 64, 1}; }
  static DataType void_() { return {Code::Void, 0, 1}; }
  static DataType int32() { return int_(32); }
  static DataType int64() { return int_(64); }
  static DataType float32() { return float_(32); }
  static DataType float8_e4m3fn(int lanes = 1) { return {Code::Float8E4M3FN, 8, lanes}; }
  static DataType float8_e5m2(int lanes = 1) { return {Code::Float8E5M2, 8, lanes}; }

  // Parses "float32", "int8", "bool", "handle", "float32x4", "void"; nullopt when unknown.
  static std::optional<DataType> parse(const std::string& text);
  std::string to_string() const;
  // TVM's other narrow float formats (float8_e5m2fnuz, float6_e2m3fn, float4_e2m1fn, ...),
  // with or without lanes: dtypes TVM has that tsch does not yet.
  static bool is_unsupported_tvm_name(const std::string& text);

  bool is_int() const { return code == Code::Int; }
  bool is_uint() const { return code == Code::UInt && bits != 1; }
  bool is_bool() const { return code == Code::UInt && bits == 1; }
  // Every floating-point format (IEEE, bfloat16, float8): what arithmetic treats as a float.
  bool is_float() const { return code == Code::Float || code == Code::BFloat || is_float8(); }
  bool is_float8() const { return code == Code::Float8E4M3FN || code == Code::Float8E5M2; }
  bool is_bfloat16() const { return code == Code::BFloat; }
  bool is_integer() const { return is_int() || is_uint(); }  // not bool
  bool is_handle() const { return code == Code::Handle; }
  bool is_void() const { return code == Code::Void; }
  bool is_scalar() const { return lanes == 1; }
  DataType element_of() const { return {code, bits, 1}; }
  DataType with_lanes(int l) const { return {code, bits, l}; }

  bool operator==(const DataType& o) const { return code == o.code && bits == o.bits && lanes == o.lanes; }
  bool operator!=(const DataType& o) const { return !(*this == o); }
};

}  // namespace tsch::ir
