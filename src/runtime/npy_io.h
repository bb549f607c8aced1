// The .npy file format (NumPy's own, versions 1–3), so arrays move between tsch and Python.
// Errors are NpyError with a message fit for the user.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "runtime/ndarray.h"

namespace tsch::runtime {

// A file that cannot be read or written as .npy. `format` says the bytes are not a valid
// .npy file (a malformed header, a truncated file: NumPy's ValueError); otherwise the file
// could not be opened or written (OSError).
class NpyError : public std::runtime_error {
 public:
  explicit NpyError(const std::string& what, bool format = false) : std::runtime_error(what), format(format) {}
  bool format;
};

// NumPy's cap on a header's length (np.load's max_header_size): a longer one is refused
// before anything is allocated for it.
constexpr uint32_t kNpyMaxHeaderSize = 10000;

void save_npy(const std::string& path, const NDArray& a);
NDArrayRef load_npy(const std::string& path);
// The array `bytes` (a whole .npy file) holds; `name` stands for the file in errors.
NDArrayRef load_npy_bytes(const std::string& bytes, const std::string& name);

}  // namespace tsch::runtime
