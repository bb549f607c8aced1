// Devices as script values: tvm.cpu(0), tvm.cuda(0), an array's `.device` (TVM's Device).
#include "values/device_value.h"

#include "runtime/cuda/cuda_driver.h"
#include "script/exceptions.h"
#include "script/types.h"
#include "values/ir_values.h"

namespace tsch::bindings {

using script::Args;
using script::ExcKind;
using script::raise;
using script::TypeObject;
using script::TypeRef;

TypeRef device_type() {
  static TypeRef t = [] {
    auto t = std::make_shared<TypeObject>("Device");
    t->set_module("tvm.runtime");
    auto dev = [](const Value& v) { return v.as<DeviceValue>()->device; };
    t->def_property("device_type",
                    [dev](Interpreter&, const Value& v) { return Value::integer(static_cast<int64_t>(dev(v).type)); });
    t->def_property("device_id", [dev](Interpreter&, const Value& v) { return Value::integer(dev(v).id); });
    t->def_property("exist", [dev](Interpreter&, const Value& v) {
      runtime::DeviceAPI* api = runtime::find_device_api(dev(v).type);
      return Value::boolean(api && api->exists(dev(v).id));
    });
    // "9.0" for a CUDA device that exists, else None (TVM's Device.compute_version).
    t->def_property("compute_version", [dev](Interpreter&, const Value& v) {
      runtime::Device d = dev(v);
      runtime::DeviceAPI* api = runtime::find_device_api(d.type);
      if (d.type != runtime::DeviceType::CUDA || !api || !api->exists(d.id)) return Value();
      return script::make_str(guard_core([&] { return runtime::cuda::compute_version(d.id); }));
    });
    t->def("sync", "self", [dev](Interpreter&, Args& a) {
      guard_core([&] {
        runtime::device_api(dev(a[0])).sync(dev(a[0]).id);
        return 0;
      });
      return Value();
    });
    t->def("__eq__", "self, other", [dev](Interpreter&, Args& a) {
      auto* other = a[1].as<DeviceValue>();
      return Value::boolean(other && other->device == dev(a[0]));
    });
    t->def("__hash__", "self", [dev](Interpreter&, Args& a) {
      return Value::integer(static_cast<int64_t>(dev(a[0]).type) * 1000003 + dev(a[0]).id);
    });
    t->hashes_by_value = true;
    return t;
  }();
  return t;
}

TypeObject* DeviceValue::type() const { return device_type().get(); }

Value wrap_device(runtime::Device d) { return Value(std::make_shared<DeviceValue>(d)); }

runtime::Device device_arg(Interpreter&, const Value& v) {
  if (v.is_none()) return runtime::cpu(0);
  auto* d = v.as<DeviceValue>();
  if (!d) raise(ExcKind::TypeError, "expected a device such as tvm.cpu(0), got " + Interpreter::type_name(v));
  return d->device;
}

}  // namespace tsch::bindings
