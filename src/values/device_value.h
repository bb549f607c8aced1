// Devices as script values (tvm.cpu(0), tvm.cuda(0), an array's `.device`): below the
// arrays and the runtime bindings, which both take and return them.
#pragma once

#include <string>

#include "runtime/device.h"
#include "script/interpreter.h"
#include "script/object.h"

namespace tsch::bindings {

class DeviceValue : public script::Object {
 public:
  explicit DeviceValue(runtime::Device d) : device(d) {}
  script::TypeObject* type() const override;
  std::string repr_hook(script::Interpreter&) override { return device.str(); }
  runtime::Device device;
};

// tvm.runtime.Device.
script::TypeRef device_type();
script::Value wrap_device(runtime::Device d);
// A device argument (None: cpu(0)); TypeError for anything else.
runtime::Device device_arg(script::Interpreter& interp, const script::Value& v);

}  // namespace tsch::bindings
