// NDArray: a dense, contiguous, row-major tensor on the host. It backs both tvm.nd.NDArray
// and the built-in numpy's ndarray; compiled functions read and write its data in place.
// Storage is 64-byte aligned (vector loads in generated code and cache lines).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ir/dtype.h"

namespace tsch::runtime {

using Shape = std::vector<int64_t>;

int64_t shape_size(const Shape& shape);
std::string shape_string(const Shape& shape);  // "(2, 3)", "(5,)", "()": a Python tuple
// "(2,3)", "(5,)": how numpy's reshape and broadcast errors write a shape.
std::string compact_shape_string(const Shape& shape);
// Element size in bytes for a scalar dtype (bool takes one byte).
int element_bytes(ir::DataType dtype);
// The dtypes arrays may hold: bool, int8/16/32/64, uint8/16/32/64, float16/32/64.
bool is_array_dtype(ir::DataType dtype);

class NDArray {
 public:
  NDArray(ir::DataType dtype, Shape shape);  // zero-filled
  NDArray(const NDArray&) = delete;
  NDArray& operator=(const NDArray&) = delete;

  ir::DataType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int ndim() const { return static_cast<int>(shape_.size()); }
  int64_t size() const { return size_; }
  size_t nbytes() const { return static_cast<size_t>(size_) * element_bytes(dtype_); }
  void* data() { return data_.get(); }
  const void* data() const { return data_.get(); }
  // Changes the shape without moving data (same element count).
  void set_shape(Shape shape);

  // Element access by flat index, through the widest type of the same kind.
  double get_f(int64_t i) const;
  int64_t get_i(int64_t i) const;
  void set_f(int64_t i, double v);
  void set_i(int64_t i, int64_t v);

  std::shared_ptr<NDArray> copy() const;
  std::shared_ptr<NDArray> astype(ir::DataType dtype) const;

 private:
  ir::DataType dtype_;
  Shape shape_;
  int64_t size_;
  std::shared_ptr<uint8_t> data_;
};
using NDArrayRef = std::shared_ptr<NDArray>;

NDArrayRef make_array(ir::DataType dtype, Shape shape);

}  // namespace tsch::runtime
