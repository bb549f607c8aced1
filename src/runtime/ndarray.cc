#include "runtime/ndarray.h"

#include <sys/mman.h>

#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "runtime/float8_element.h"
#include "support/checked_size.h"

namespace tsch::runtime {

using ir::DataType;

constexpr size_t kMappedArrayBytes = size_t{1} << 21;

int64_t shape_size(const Shape& shape) { return checked_element_count(shape); }

std::string shape_string(const Shape& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1) s += ",";
  return s + ")";
}

std::string compact_shape_string(const Shape& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    s += std::to_string(shape[i]) + (i + 1 < shape.size() || shape.size() == 1 ? "," : "");
  return s + ")";
}

int element_bytes(DataType t) { return t.is_bool() ? 1 : t.bits / 8 * t.lanes; }

bool is_array_dtype(DataType t) {
  if (t.lanes != 1) return false;
  if (t.is_bool()) return true;
  if (t.code == DataType::Code::Int || t.code == DataType::Code::UInt)
    return t.bits == 8 || t.bits == 16 || t.bits == 32 || t.bits == 64;
  if (t.code == DataType::Code::Float) return t.bits == 16 || t.bits == 32 || t.bits == 64;
  return t.is_float8();
}

NDArray::NDArray(DataType dtype, Shape shape) : dtype_(dtype), shape_(std::move(shape)), size_(shape_size(shape_)) {
  // Bytes, rounded up to the 64-byte alignment: checked, so no shape wraps to a small block.
  int64_t bytes = checked_mul(size_, element_bytes(dtype_));
  if (bytes > INT64_MAX - 64) throw SizeOverflow(kArrayTooBig);
  size_t rounded = static_cast<size_t>((bytes + 63) / 64 * 64);
  if (rounded == 0) rounded = 64;
  auto refuse = [&] {
    return OutOfMemory("Unable to allocate " + std::to_string(bytes) + " bytes for an array with shape " +
                       shape_string(shape_) + " and data type " + dtype_.to_string());
  };
  // Large arrays come straight from mmap: the pages arrive zeroed (no memset touching them
  // all), and the kernel's overcommit check refuses what cannot fit — a malloc that
  // reserves address space without that check (jemalloc) would hand out 8 TB and the
  // memset would then run the machine out of memory.
  if (rounded >= kMappedArrayBytes) {
    void* p = mmap(nullptr, rounded, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw refuse();
    data_ = std::shared_ptr<uint8_t>(static_cast<uint8_t*>(p), [rounded](uint8_t* q) { munmap(q, rounded); });
    return;
  }
  void* p = std::aligned_alloc(64, rounded);
  if (!p) throw refuse();
  std::memset(p, 0, rounded);
  data_ = std::shared_ptr<uint8_t>(static_cast<uint8_t*>(p), [](uint8_t* q) { std::free(q); });
}

NDArray::NDArray(DataType dtype, Shape shape, Shape strides, std::shared_ptr<uint8_t> first)
    : dtype_(dtype),
      shape_(std::move(shape)),
      size_(shape_size(shape_)),
      strides_(std::move(strides)),
      data_(std::move(first)) {
  // Strides that are C order's are no strides at all.
  int64_t expected = 1;
  bool dense = true;
  for (size_t d = shape_.size(); d-- > 0;) {
    if (shape_[d] != 1 && strides_[d] != expected) dense = false;
    expected *= shape_[d];
  }
  if (dense) strides_.clear();
}

NDArrayRef make_view(const NDArrayRef& base, int64_t offset, Shape shape, Shape strides) {
  auto* first = static_cast<uint8_t*>(base->first_element()) + offset * element_bytes(base->dtype());
  return NDArrayRef(
      new NDArray(base->dtype(), std::move(shape), std::move(strides), std::shared_ptr<uint8_t>(base->data_, first)));
}

// C-order strides: the view constructor sees a dense array.
static Shape c_order_strides(const Shape& shape) {
  Shape strides(shape.size());
  int64_t step = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    strides[d] = step;
    step *= shape[d];
  }
  return strides;
}

NDArrayRef borrow_memory(ir::DataType dtype, Shape shape, void* data) {
  Shape strides = c_order_strides(shape);
  return NDArrayRef(new NDArray(dtype, std::move(shape), std::move(strides),
                                std::shared_ptr<uint8_t>(static_cast<uint8_t*>(data), [](uint8_t*) {})));
}

NDArrayRef view_memory(ir::DataType dtype, Shape shape, std::shared_ptr<uint8_t> first) {
  Shape strides = c_order_strides(shape);
  return NDArrayRef(new NDArray(dtype, std::move(shape), std::move(strides), std::move(first)));
}

void* NDArray::data() {
  if (!strides_.empty()) throw std::logic_error("data() of a strided array view");
  return data_.get();
}

const void* NDArray::data() const {
  if (!strides_.empty()) throw std::logic_error("data() of a strided array view");
  return data_.get();
}

int64_t NDArray::storage_index(int64_t i) const {
  if (strides_.empty()) return i;
  int64_t at = 0;
  for (size_t d = shape_.size(); d-- > 0;) {
    at += (i % shape_[d]) * strides_[d];
    i /= shape_[d];
  }
  return at;
}

const NDArray& dense(const NDArray& a, NDArrayRef& keep) {
  if (a.is_dense()) return a;
  keep = a.copy();
  return *keep;
}

void NDArray::set_shape(Shape shape) {
  if (shape_size(shape) != size_) throw std::logic_error("set_shape: element count changes");
  if (!strides_.empty()) throw std::logic_error("set_shape of a strided array view");
  shape_ = std::move(shape);
}

// Dispatches on the element type: F is called with a pointer of the element's C++ type.
template <typename F>
static auto with_elements(DataType t, void* data, F&& f) {
  using C = DataType::Code;
  if (t.is_bool()) return f(static_cast<uint8_t*>(data));
  switch (t.code) {
    case C::Int:
      if (t.bits == 8) return f(static_cast<int8_t*>(data));
      if (t.bits == 16) return f(static_cast<int16_t*>(data));
      if (t.bits == 32) return f(static_cast<int32_t*>(data));
      return f(static_cast<int64_t*>(data));
    case C::UInt:
      if (t.bits == 8) return f(static_cast<uint8_t*>(data));
      if (t.bits == 16) return f(static_cast<uint16_t*>(data));
      if (t.bits == 32) return f(static_cast<uint32_t*>(data));
      return f(static_cast<uint64_t*>(data));
    case C::Float8E4M3FN:
      return f(static_cast<Float8E4M3FNElement*>(data));
    case C::Float8E5M2:
      return f(static_cast<Float8E5M2Element*>(data));
    default:
      if (t.bits == 16) return f(static_cast<_Float16*>(data));
      if (t.bits == 32) return f(static_cast<float*>(data));
      return f(static_cast<double*>(data));
  }
}

double NDArray::get_f(int64_t i) const {
  int64_t at = storage_index(i);
  return with_elements(dtype_, data_.get(), [at](auto* p) { return static_cast<double>(p[at]); });
}

int64_t NDArray::get_i(int64_t i) const {
  int64_t at = storage_index(i);
  return with_elements(dtype_, data_.get(), [at](auto* p) { return static_cast<int64_t>(p[at]); });
}

// Stores v converted to the element type (bool: nonzero is true).
template <typename V>
static void store_as_element(DataType t, void* data, int64_t i, V v) {
  if (t.is_bool()) {
    static_cast<uint8_t*>(data)[i] = v != 0;
    return;
  }
  with_elements(t, data, [i, v](auto* p) {
    using E = std::remove_pointer_t<decltype(p)>;
    p[i] = static_cast<E>(v);
  });
}

void NDArray::set_f(int64_t i, double v) { store_as_element(dtype_, data_.get(), storage_index(i), v); }
void NDArray::set_i(int64_t i, int64_t v) { store_as_element(dtype_, data_.get(), storage_index(i), v); }

std::shared_ptr<NDArray> NDArray::copy() const {
  auto out = make_array(dtype_, shape_);
  int eb = element_bytes(dtype_);
  if (strides_.empty()) {
    std::memcpy(out->data(), data_.get(), nbytes());
  } else {
    auto* dst = static_cast<uint8_t*>(out->data());
    for (int64_t i = 0; i < size_; ++i) std::memcpy(dst + i * eb, data_.get() + storage_index(i) * eb, eb);
  }
  return out;
}

// The value a cast to float8 rounds: ml_dtypes converts every source type to float32 first
// (an integer exactly as C++ converts it to float, a uint64 as unsigned).
static double float8_cast_source(const NDArray& a, int64_t i) {
  DataType t = a.dtype();
  if (t.is_float() || t.is_bool()) return float8_cast_value(a.get_f(i));
  if (t.is_uint() && t.bits == 64) return static_cast<float>(static_cast<uint64_t>(a.get_i(i)));
  return static_cast<float>(a.get_i(i));
}

std::shared_ptr<NDArray> NDArray::astype(DataType t) const {
  if (t == dtype_) return copy();
  auto out = make_array(t, shape_);
  bool integral = !dtype_.is_float() && !t.is_float();
  for (int64_t i = 0; i < size_; ++i) {
    if (t.is_float8())
      out->set_f(i, float8_cast_source(*this, i));
    else if (integral)
      out->set_i(i, get_i(i));
    else
      out->set_f(i, get_f(i));
  }
  return out;
}

NDArrayRef make_array(DataType dtype, Shape shape) { return std::make_shared<NDArray>(dtype, std::move(shape)); }

NDArrayRef make_device_array(DataType dtype, Shape shape, Device dev) {
  if (dev.type == DeviceType::CPU) return make_array(dtype, std::move(shape));
  DeviceAPI& api = device_api(dev);
  int64_t bytes = checked_mul(shape_size(shape), element_bytes(dtype));
  void* p = api.alloc(dev.id, static_cast<size_t>(bytes), 64);
  Shape strides = c_order_strides(shape);
  int32_t id = dev.id;
  auto* out =
      new NDArray(dtype, std::move(shape), std::move(strides),
                  std::shared_ptr<uint8_t>(static_cast<uint8_t*>(p), [&api, id](uint8_t* q) { api.free(id, q); }));
  out->device_ = dev;
  return NDArrayRef(out);
}

void copy_array(const NDArray& src, NDArray& dst) {
  if (src.size() != dst.size() || src.dtype() != dst.dtype())
    throw std::logic_error("copy_array: arrays of different size or dtype");
  NDArrayRef keep;
  const NDArray& from = src.on_host() ? dense(src, keep) : src;
  if (from.on_host() && dst.on_host()) {
    std::memcpy(dst.data(), from.data(), dst.nbytes());
    return;
  }
  Device gpu = from.on_host() ? dst.device() : from.device();
  device_api(gpu).copy(from.data(), from.device(), dst.data(), dst.device(), dst.nbytes());
}

NDArrayRef to_host(const NDArray& a) {
  if (a.on_host()) return a.copy();
  NDArrayRef out = make_array(a.dtype(), a.shape());
  copy_array(a, *out);
  return out;
}

}  // namespace tsch::runtime
