// The .npy file format (NumPy's own, versions 1–3), so arrays move between tsch and Python.
// Errors are NpyError with a message fit for the user.
#pragma once

#include <stdexcept>
#include <string>

#include "runtime/ndarray.h"

namespace tsch::runtime {

// A file that cannot be read or written as .npy (missing, truncated, an unsupported dtype).
class NpyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

void save_npy(const std::string& path, const NDArray& a);
NDArrayRef load_npy(const std::string& path);

}  // namespace tsch::runtime
