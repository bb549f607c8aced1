// The .npy file format (NumPy's own, versions 1–3), so arrays move between tsch and Python.
// Errors are std::runtime_error with a message fit for the user.
#pragma once

#include <string>

#include "runtime/ndarray.h"

namespace tsch::runtime {

void save_npy(const std::string& path, const NDArray& a);
NDArrayRef load_npy(const std::string& path);

}  // namespace tsch::runtime
