// Arrays of float8_e4m3fn and float8_e5m2 (runtime/ndarray, runtime/array_ops): element
// access, casts, arithmetic, promotion and reductions with ml_dtypes' rounding. Each expected
// value is worked out by hand in the comment beside it.
#include <catch2/catch.hpp>
#include <cmath>

#include "runtime/array_ops.h"
#include "runtime/ndarray.h"

using namespace tsch;
using ir::DataType;
using runtime::BinaryOp;
using runtime::make_array;
using runtime::NDArrayRef;
using runtime::ReduceOp;

namespace {

NDArrayRef vector_of(DataType t, std::initializer_list<double> values) {
  auto a = make_array(t, {static_cast<int64_t>(values.size())});
  int64_t i = 0;
  for (double v : values) a->set_f(i++, v);
  return a;
}

}  // namespace

TEST_CASE("float8 arrays hold one byte per element", "[float8][ndarray]") {
  for (DataType t : {DataType::float8_e4m3fn(), DataType::float8_e5m2()}) {
    CHECK(runtime::is_array_dtype(t));
    CHECK(runtime::element_bytes(t) == 1);
    auto a = make_array(t, {2, 3});
    CHECK(a->nbytes() == 6);
  }
  CHECK_FALSE(runtime::is_array_dtype(DataType::float8_e4m3fn(4)));
  auto a = vector_of(DataType::float8_e4m3fn(), {1.0, -3.0});
  CHECK(static_cast<const uint8_t*>(a->data())[0] == 0x38);  // 1.0: exponent 7 (bias 7), mantissa 0
  CHECK(static_cast<const uint8_t*>(a->data())[1] == 0xc4);  // -3.0 = -1.5 * 2^1
}

TEST_CASE("float8 elements round as ml_dtypes stores them", "[float8][ndarray]") {
  auto e4 = make_array(DataType::float8_e4m3fn(), {1});
  auto stored = [&](double v) {
    e4->set_f(0, v);
    return e4->get_f(0);
  };
  CHECK(stored(0.3) == 0.3125);      // 1.2 * 2^-2: 9.6 eighths round to 10 -> 1.25 * 2^-2
  CHECK(stored(1.0625) == 1.0);      // halfway between 1 and 1.125: to the even mantissa
  CHECK(stored(1.1875) == 1.25);     // halfway between 1.125 and 1.25: to even (1.25)
  CHECK(stored(464.0) == 448.0);     // halfway to the NaN encoding: down to 448
  CHECK(std::isnan(stored(465.0)));  // past it: e4m3fn has no infinity
  CHECK(std::isnan(stored(INFINITY)));
  CHECK(stored(0.0015) == std::ldexp(1.0, -9));  // 0.768 of the smallest subnormal -> 1 of it
  CHECK(stored(std::ldexp(1.0, -10)) == 0.0);    // half the smallest subnormal: to even (0)
  e4->set_i(0, 17);                              // 17 = 1.0625 * 16: halfway, to even -> 16
  CHECK(e4->get_f(0) == 16.0);

  auto e5 = make_array(DataType::float8_e5m2(), {1});
  e5->set_f(0, 61440.0);  // halfway between 57344 and 2^16 (past the largest): to even -> inf
  CHECK(std::isinf(e5->get_f(0)));
  e5->set_f(0, 61439.0);
  CHECK(e5->get_f(0) == 57344.0);
  e5->set_f(0, std::ldexp(1.0, -16));  // the smallest subnormal
  CHECK(e5->get_f(0) == std::ldexp(1.0, -16));
}

TEST_CASE("astype to float8 rounds through float32, as ml_dtypes' casts", "[float8][ndarray]") {
  // 1.0625 + 2^-30 rounds up to 1.125 directly, but float32 first makes it the tie 1.0625,
  // which goes to the even 1.0.
  double above_tie = 1.0625 + std::ldexp(1.0, -30);
  auto f64 = vector_of(DataType::float_(64), {above_tie, 2.5, -7.0});
  auto e4 = f64->astype(DataType::float8_e4m3fn());
  CHECK(e4->get_f(0) == 1.0);
  CHECK(e4->get_f(1) == 2.5);
  CHECK(e4->get_f(2) == -7.0);
  auto direct = make_array(DataType::float8_e4m3fn(), {});
  direct->set_f(0, above_tie);
  CHECK(direct->get_f(0) == 1.125);

  // Back: to float exactly, to integers by truncation (through float), to bool by != 0.
  auto back = e4->astype(DataType::float32());
  CHECK(back->get_f(1) == 2.5);
  auto ints = e4->astype(DataType::int32());
  CHECK(ints->get_i(1) == 2);
  CHECK(ints->get_i(2) == -7);
  auto bools = vector_of(DataType::float8_e5m2(), {0.0, -0.0, 0.5})->astype(DataType::bool_());
  CHECK(bools->get_i(0) == 0);
  CHECK(bools->get_i(1) == 0);
  CHECK(bools->get_i(2) == 1);

  // Between the two float8 formats: 0.9375 (1.111 * 2^-1) is exact in e4m3fn; e5m2 (2 mantissa
  // bits) has 0.875 and 1.0 around it, and the tie goes to the even 1.0.
  auto e5 = vector_of(DataType::float8_e4m3fn(), {0.9375})->astype(DataType::float8_e5m2());
  CHECK(e5->get_f(0) == 1.0);
  // From integers: uint8 200 = 1.5625 * 128 -> e4m3fn mantissa 4.5 eighths, to even -> 192.
  auto u8 = make_array(DataType::uint(8), {1});
  u8->set_i(0, 200);
  CHECK(u8->astype(DataType::float8_e4m3fn())->get_f(0) == 192.0);
}

TEST_CASE("float8 copies and views move bytes", "[float8][ndarray]") {
  auto a = vector_of(DataType::float8_e5m2(), {1, 2, 3, 4, 5, 6});
  a->set_shape({2, 3});
  auto column = runtime::view(a, {{false, 0, 1, 2}, {true, 1, 1, 1}});
  CHECK(column->shape() == runtime::Shape{2});
  CHECK(column->get_f(0) == 2.0);
  CHECK(column->get_f(1) == 5.0);
  auto dense = column->copy();
  CHECK(dense->is_dense());
  CHECK(dense->get_f(1) == 5.0);
  auto t = runtime::transpose(*a, {1, 0});
  CHECK(t->get_f(1) == 4.0);
}

TEST_CASE("float8 arithmetic computes in float32 and rounds to the dtype", "[float8][array_ops]") {
  DataType e4 = DataType::float8_e4m3fn(), e5 = DataType::float8_e5m2();
  auto one = vector_of(e4, {1.0, 2.0});
  auto small = vector_of(e4, {0.0625, 0.25});
  auto sum = runtime::binary(BinaryOp::Add, *one, *small, runtime::promote(e4, e4));
  CHECK(sum->dtype() == e4);
  CHECK(sum->get_f(0) == 1.0);   // 1.0625: a tie, to even
  CHECK(sum->get_f(1) == 2.25);  // exact
  auto lt = runtime::binary(BinaryOp::LT, *one, *small, DataType::bool_());
  CHECK(lt->dtype().is_bool());
  CHECK(lt->get_i(0) == 0);
  auto neg = runtime::unary(runtime::UnaryOp::Neg, *one);
  CHECK(neg->dtype() == e4);
  CHECK(neg->get_f(1) == -2.0);
  auto root = runtime::unary(runtime::UnaryOp::Sqrt, *one);
  CHECK(root->get_f(1) == 1.375);  // sqrt(2) = 1.414: eighths 11.3 -> 11

  // ml_dtypes' loops are (f, f) only; NumPy's resolver then takes 'ff' or 'dd'.
  CHECK(runtime::promote(e4, DataType::bool_()) == e4);
  CHECK(runtime::promote(DataType::int_(8), e4) == e4);
  CHECK(runtime::promote(e5, DataType::uint(8)) == e5);
  CHECK(runtime::promote(e4, e5) == DataType::float32());
  CHECK(runtime::promote(e4, DataType::float_(16)) == DataType::float32());
  CHECK(runtime::promote(DataType::int_(16), e5) == DataType::float32());
  CHECK(runtime::promote(e4, DataType::float32()) == DataType::float32());
  CHECK(runtime::promote(e4, DataType::int32()) == DataType::float_(64));
  CHECK(runtime::promote(DataType::float_(64), e5) == DataType::float_(64));
}

TEST_CASE("float8 reductions accumulate in the dtype", "[float8][array_ops]") {
  DataType e4 = DataType::float8_e4m3fn();
  // Each partial sum is rounded to e4m3fn: 16 + 1 = 17 rounds back to 16 every time.
  auto a = vector_of(e4, {16, 1, 1, 1, 1});
  auto sum = runtime::reduce(ReduceOp::Sum, *a, std::nullopt, false);
  CHECK(sum->dtype() == e4);
  CHECK(sum->get_f(0) == 16.0);
  auto mean = runtime::reduce(ReduceOp::Mean, *a, std::nullopt, false);
  CHECK(mean->dtype() == e4);
  CHECK(mean->get_f(0) == 3.25);  // 16 / 5 = 3.2: quarters 12.8 -> 13
  auto mx = runtime::reduce(ReduceOp::Max, *a, std::nullopt, false);
  CHECK(mx->get_f(0) == 16.0);
  auto arg = runtime::reduce(ReduceOp::ArgMin, *a, std::nullopt, false);
  CHECK(arg->get_i(0) == 1);
}

TEST_CASE("float8 dot stays float8, matmul gives float32", "[float8][array_ops]") {
  DataType e4 = DataType::float8_e4m3fn();
  auto a = vector_of(e4, {1, 2, 3, 4});
  a->set_shape({2, 2});
  auto b = vector_of(e4, {0.5, 1, 1.5, 2});
  b->set_shape({2, 2});
  auto dot = runtime::matmul(*a, *b, runtime::MatmulKind::Dot);
  auto mm = runtime::matmul(*a, *b);
  CHECK(dot->dtype() == e4);
  CHECK(mm->dtype() == DataType::float32());
  // Row 1 · column 0: 3 * 0.5 + 4 * 1.5 = 7.5, exact in both (e4m3fn's step in [4, 8) is 0.5).
  CHECK(mm->get_f(2) == 7.5);
  CHECK(dot->get_f(2) == 7.5);
  CHECK(dot->get_f(3) == 11.0);  // 3 * 1 + 4 * 2, exact (step 1 in [8, 16))
  // 9 + 0.5 = 9.5 in float32, rounded once at the end: halfway between 9 and 10, to the even 10.
  auto c = vector_of(e4, {9, 0.5});
  auto d = vector_of(e4, {1, 1});
  auto inner = runtime::matmul(*c, *d, runtime::MatmulKind::Dot);
  CHECK(inner->ndim() == 0);
  CHECK(inner->get_f(0) == 10.0);
}
