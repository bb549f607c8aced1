// NDArray: a dense, contiguous, row-major tensor on the host. It backs both tvm.nd.NDArray
// and the built-in numpy's ndarray; compiled functions read and write its data in place.
// Storage is 64-byte aligned (vector loads in generated code and cache lines); a view (basic
// indexing, a tensor inside a Relax VM storage) starts wherever its owner's bytes do.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ir/dtype.h"
#include "runtime/device.h"

namespace tsch::runtime {

using Shape = std::vector<int64_t>;

int64_t shape_size(const Shape& shape);
std::string shape_string(const Shape& shape);  // "(2, 3)", "(5,)", "()": a Python tuple
// "(2,3)", "(5,)": how numpy's reshape and broadcast errors write a shape.
std::string compact_shape_string(const Shape& shape);
// Element size in bytes for a scalar dtype (bool takes one byte).
int element_bytes(ir::DataType dtype);
// The dtypes arrays may hold: bool, int8/16/32/64, uint8/16/32/64, float16/32/64, and
// float8_e4m3fn / float8_e5m2 (one byte each; runtime/float8_element.h).
bool is_array_dtype(ir::DataType dtype);

// An n-dimensional array: dense in C order, or a view (basic indexing, as NumPy's `a[0]`,
// `a[:, 1:3]`) whose elements live in another array's memory, `strides()` elements apart.
// A view that happens to be dense (a row, a range of rows) has no strides and behaves as
// any dense array; only a strided view refuses data(): code that wants raw memory takes
// dense() first.
class NDArray {
 public:
  NDArray(ir::DataType dtype, Shape shape);  // zero-filled
  NDArray(const NDArray&) = delete;
  NDArray& operator=(const NDArray&) = delete;

  ir::DataType dtype() const { return dtype_; }
  // Where the data lives. Host code reads and writes only cpu arrays' elements; an array on
  // a GPU is moved with copy_array / to_host, and its data() is a device address.
  Device device() const { return device_; }
  bool on_host() const { return device_.type == DeviceType::CPU; }
  const Shape& shape() const { return shape_; }
  int ndim() const { return static_cast<int>(shape_.size()); }
  int64_t size() const { return size_; }
  size_t nbytes() const { return static_cast<size_t>(size_) * element_bytes(dtype_); }
  // The elements in C order; a strided view has none (std::logic_error: an internal error).
  void* data();
  const void* data() const;
  bool is_dense() const { return strides_.empty(); }
  // Elements between neighbours along each axis; empty when dense.
  const Shape& strides() const { return strides_; }
  // The position in memory (in elements from the first) of the element at row-major index i.
  int64_t storage_index(int64_t i) const;
  // The first element, for code that follows strides() itself.
  void* first_element() const { return data_.get(); }

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
  friend std::shared_ptr<NDArray> make_view(const std::shared_ptr<NDArray>&, int64_t, Shape, Shape);
  friend std::shared_ptr<NDArray> borrow_memory(ir::DataType, Shape, void*);
  friend std::shared_ptr<NDArray> view_memory(ir::DataType, Shape, std::shared_ptr<uint8_t>);
  friend std::shared_ptr<NDArray> make_device_array(ir::DataType, Shape, Device);
  NDArray(ir::DataType dtype, Shape shape, Shape strides, std::shared_ptr<uint8_t> first);

  ir::DataType dtype_;
  Shape shape_;
  int64_t size_;
  Shape strides_;                  // empty: dense
  std::shared_ptr<uint8_t> data_;  // the first element; shares the viewed array's memory
  Device device_ = cpu(0);
};
using NDArrayRef = std::shared_ptr<NDArray>;

NDArrayRef make_array(ir::DataType dtype, Shape shape);
// A view of `base`'s memory: its first element `offset` elements after base's first (in
// base's storage), `strides` elements apart along each axis of `shape`.
NDArrayRef make_view(const NDArrayRef& base, int64_t offset, Shape shape, Shape strides);
// A dense array over memory it does not own (a compiled kernel's buffer handed to a packed
// function): valid only while that memory is.
NDArrayRef borrow_memory(ir::DataType dtype, Shape shape, void* data);
// A dense array of `dtype` and `shape` whose first element is `first`, an aliasing pointer
// into a block some owner holds (the Relax VM's tensors inside one storage): the array keeps
// that block alive. The caller checks that the bytes fit the block; the array is as aligned
// as `first` is (a storage's base is 64-byte aligned, an offset into it may not be).
NDArrayRef view_memory(ir::DataType dtype, Shape shape, std::shared_ptr<uint8_t> first);
// A dense array in the memory of `dev`, allocated through its DeviceAPI (a UserError when
// the device has none or does not exist); its elements are not zeroed.
NDArrayRef make_device_array(ir::DataType dtype, Shape shape, Device dev);
// `src`'s elements copied into `dst` (same dtype and element count; `dst` dense), between any
// devices; a strided host view is made dense first.
void copy_array(const NDArray& src, NDArray& dst);
// A dense host copy of `a`, wherever it lives.
NDArrayRef to_host(const NDArray& a);

// `a` itself when it is dense, else a dense copy kept alive in `keep`.
const NDArray& dense(const NDArray& a, NDArrayRef& keep);

}  // namespace tsch::runtime
