// The float8 formats (support/float8.h): values ml_dtypes gives for float8_e4m3fn and
// float8_e5m2, and the LLVM code generator's conversions held to the same bits.
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>

#include "codegen/llvm/llvm_build.h"
#include "ir/op.h"
#include "runtime/call.h"
#include "support/float8.h"
#include "transform/pipeline.h"

using namespace tsch;
using ir::DataType;
using support::float8_from_double;
using support::float8_to_double;
using support::Float8Format;

TEST_CASE("float8 encodings decode to ml_dtypes' values", "[float8]") {
  auto e4 = [](uint8_t b) { return float8_to_double(b, Float8Format::E4M3FN); };
  auto e5 = [](uint8_t b) { return float8_to_double(b, Float8Format::E5M2); };
  CHECK(e4(0x00) == 0.0);
  CHECK(std::signbit(e4(0x80)));
  CHECK(e4(0x38) == 1.0);
  CHECK(e4(0x7e) == 448.0);                // largest finite
  CHECK(e4(0x01) == std::ldexp(1.0, -9));  // smallest subnormal
  CHECK(e4(0x08) == std::ldexp(1.0, -6));  // smallest normal
  CHECK(std::isnan(e4(0x7f)));
  CHECK(std::isnan(e4(0xff)));
  CHECK(e4(0xc4) == -3.0);
  CHECK(e5(0x3c) == 1.0);
  CHECK(e5(0x7b) == 57344.0);
  CHECK(e5(0x01) == std::ldexp(1.0, -16));
  CHECK(std::isinf(e5(0x7c)));
  CHECK(e5(0xfc) == -INFINITY);
  CHECK(std::isnan(e5(0x7d)));
  CHECK(std::isnan(e5(0x7f)));
}

TEST_CASE("every float8 value converts back to its own encoding", "[float8]") {
  for (Float8Format f : {Float8Format::E4M3FN, Float8Format::E5M2}) {
    for (int b = 0; b < 256; ++b) {
      double v = float8_to_double(static_cast<uint8_t>(b), f);
      if (std::isnan(v)) continue;
      CHECK(float8_from_double(v, f) == b);
    }
  }
}

TEST_CASE("conversion to float8 rounds to nearest even and overflows as ml_dtypes does", "[float8]") {
  Float8Format e4 = Float8Format::E4M3FN, e5 = Float8Format::E5M2;
  CHECK(float8_from_double(1.0625, e4) == 0x38);  // halfway between 1 and 1.125: even (1)
  CHECK(float8_from_double(1.1875, e4) == 0x3a);  // halfway between 1.125 and 1.25: even (1.25)
  CHECK(float8_from_double(1.07, e4) == 0x39);
  CHECK(float8_from_double(15.5, e4) == 0x58);   // 15 | 16: the even one (16) is in the next binade
  CHECK(float8_from_double(460.0, e4) == 0x7e);  // rounds to 448
  CHECK(float8_from_double(464.0, e4) == 0x7e);  // tie: 448 is even
  CHECK(float8_from_double(465.0, e4) == 0x7f);  // past the largest finite: NaN
  CHECK(float8_from_double(INFINITY, e4) == 0x7f);
  CHECK(float8_from_double(-1e9, e4) == 0xff);
  CHECK(float8_from_double(std::ldexp(1.0, -10), e4) == 0x00);   // half the smallest subnormal: even (0)
  CHECK(float8_from_double(std::ldexp(3.0, -11), e4) == 0x01);   // 0.75 of it
  CHECK(float8_from_double(std::ldexp(15.5, -10), e4) == 0x08);  // rounds up to the smallest normal
  CHECK(float8_from_double(-0.0, e4) == 0x80);
  CHECK((float8_from_double(NAN, e4) & 0x7f) == 0x7f);
  CHECK(float8_from_double(57344.0, e5) == 0x7b);
  CHECK(float8_from_double(61440.0, e5) == 0x7c);  // tie at the top: rounds to infinity
  CHECK(float8_from_double(-INFINITY, e5) == 0xfc);
  CHECK(std::isnan(float8_to_double(float8_from_double(NAN, e5), e5)));
  CHECK(float8_from_double(-2.5, e5) == 0xc1);
}

namespace {

// B[i] = f(A[i]) for i in [0, n), the loop of the given kind.
ir::IRModule map_function(DataType in, DataType out, int64_t n, ir::ForKind kind,
                          const std::function<ir::PrimExpr(ir::PrimExpr)>& f) {
  auto shape = std::vector<ir::PrimExpr>{ir::make_int(n)};
  ir::Buffer a = ir::make_buffer("A", in, shape), b = ir::make_buffer("B", out, shape);
  ir::Var i = ir::make_var("i");
  ir::Stmt store = std::make_shared<ir::BufferStoreNode>(b, f(ir::buffer_load(a, {i})), std::vector<ir::PrimExpr>{i});
  auto func = std::make_shared<ir::PrimFuncNode>();
  for (const auto& buf : {a, b}) {
    ir::Var p = ir::make_var(buf->name, DataType::handle());
    func->params.push_back(p);
    func->buffer_map.emplace_back(p, buf);
  }
  func->body = std::make_shared<ir::ForNode>(i, ir::make_int(0), ir::make_int(n), kind, store);
  auto m = std::make_shared<ir::IRModuleNode>();
  m->functions.emplace_back("f", func);
  return m;
}

void run(const ir::IRModule& m, runtime::NDArray& a, runtime::NDArray& b) {
  auto lib = codegen::build_llvm(transform::lower(m), codegen::parse_llvm_target("llvm"));
  runtime::call_compiled(lib->functions()[0], lib->entry("f"), {{&a}, {&b}});
}

// Values that meet every rule of the conversion: each float8 value, the midpoints between
// neighbours (ties) and points just beside them, subnormals, overflow, infinities, NaN.
std::vector<double> conversion_inputs(Float8Format f) {
  std::vector<double> values = {0.0,   -0.0,  INFINITY, -INFINITY, NAN,     1e30,
                                -1e30, 1e-30, 465.0,    61440.0,   61439.0, 3.14159};
  std::vector<double> finite;
  for (int b = 0; b < 128; ++b) {
    double v = float8_to_double(static_cast<uint8_t>(b), f);
    if (std::isfinite(v)) finite.push_back(v);
  }
  for (size_t k = 0; k < finite.size(); ++k) {
    double v = finite[k], next = k + 1 < finite.size() ? finite[k + 1] : v * 1.25;
    double mid = (v + next) / 2;
    for (double x : {v, mid, std::nextafter(mid, 0.0), std::nextafter(mid, 1e9), v * 1.0001})
      values.push_back(x), values.push_back(-x);
  }
  return values;
}

}  // namespace

TEST_CASE("compiled conversions to float8 give support::float8's bits", "[float8][codegen]") {
  for (Float8Format f : {Float8Format::E4M3FN, Float8Format::E5M2}) {
    DataType t = f == Float8Format::E4M3FN ? DataType::float8_e4m3fn() : DataType::float8_e5m2();
    std::vector<double> inputs = conversion_inputs(f);
    auto n = static_cast<int64_t>(inputs.size());
    for (int source_bits : {32, 64}) {
      for (ir::ForKind kind : {ir::ForKind::Serial, ir::ForKind::Vectorized}) {
        if (kind == ir::ForKind::Vectorized && n % 4) continue;
        INFO(t.to_string() << " from float" << source_bits << (kind == ir::ForKind::Vectorized ? ", vectorized" : ""));
        auto m = map_function(DataType::float_(source_bits), DataType::uint(8), n, kind, [&](ir::PrimExpr x) {
          return ir::call(DataType::uint(8), "reinterpret", {ir::cast(t, x)});
        });
        auto a = runtime::make_array(DataType::float_(source_bits), {n}),
             b = runtime::make_array(DataType::uint(8), {n});
        for (int64_t i = 0; i < n; ++i) a->set_f(i, source_bits == 32 ? static_cast<float>(inputs[i]) : inputs[i]);
        run(m, *a, *b);
        for (int64_t i = 0; i < n; ++i) {
          INFO("input " << a->get_f(i));
          uint8_t want = float8_from_double(a->get_f(i), f);
          if (std::isnan(a->get_f(i)))
            CHECK((b->get_i(i) & 0x7f) == (want & 0x7f));
          else
            CHECK(b->get_i(i) == want);
        }
      }
    }
  }
}

TEST_CASE("compiled conversions from float8 give every encoding's value", "[float8][codegen]") {
  for (Float8Format f : {Float8Format::E4M3FN, Float8Format::E5M2}) {
    DataType t = f == Float8Format::E4M3FN ? DataType::float8_e4m3fn() : DataType::float8_e5m2();
    auto m = map_function(DataType::uint(8), DataType::float32(), 256, ir::ForKind::Serial, [&](ir::PrimExpr x) {
      return ir::cast(DataType::float32(), ir::call(t, "reinterpret", {x}));
    });
    auto a = runtime::make_array(DataType::uint(8), {256}), b = runtime::make_array(DataType::float32(), {256});
    for (int64_t i = 0; i < 256; ++i) a->set_i(i, i);
    run(m, *a, *b);
    for (int64_t i = 0; i < 256; ++i) {
      INFO(t.to_string() << " encoding " << i);
      double want = float8_to_double(static_cast<uint8_t>(i), f);
      if (std::isnan(want))
        CHECK(std::isnan(b->get_f(i)));
      else
        CHECK(b->get_f(i) == want);
    }
  }
}

TEST_CASE("float8 arithmetic is float32 arithmetic rounded back", "[float8][codegen]") {
  // B[i] = A[i] * A[i] + 1.5 in float8_e4m3fn, A given as bytes.
  DataType t = DataType::float8_e4m3fn();
  auto m = map_function(DataType::uint(8), DataType::uint(8), 256, ir::ForKind::Serial, [&](ir::PrimExpr x) {
    ir::PrimExpr v = ir::call(t, "reinterpret", {x});
    return ir::call(DataType::uint(8), "reinterpret", {ir::add(ir::mul(v, v), ir::make_float(1.5, t))});
  });
  auto a = runtime::make_array(DataType::uint(8), {256}), b = runtime::make_array(DataType::uint(8), {256});
  for (int64_t i = 0; i < 256; ++i) a->set_i(i, i);
  run(m, *a, *b);
  for (int64_t i = 0; i < 256; ++i) {
    double v = float8_to_double(static_cast<uint8_t>(i), Float8Format::E4M3FN);
    float product = static_cast<float>(float8_to_double(
        float8_from_double(static_cast<float>(v) * static_cast<float>(v), Float8Format::E4M3FN), Float8Format::E4M3FN));
    double want = float8_to_double(float8_from_double(product + 1.5f, Float8Format::E4M3FN), Float8Format::E4M3FN);
    double got = float8_to_double(static_cast<uint8_t>(b->get_i(i)), Float8Format::E4M3FN);
    INFO("encoding " << i);
    if (std::isnan(want))
      CHECK(std::isnan(got));
    else
      CHECK(got == want);
  }
}
