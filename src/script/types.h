// The built-in types (int, str, list, ...), created once with their methods installed.
#pragma once

#include "script/object.h"

namespace tsch::script {

struct BuiltinTypes {
  TypeRef object, type, none, bool_, int_, float_, str, list, tuple, dict, range, slice, iterator, function,
      native_function, bound_method, property, module, ellipsis, classmethod, staticmethod;
};

const BuiltinTypes& builtin_types();

// The type of the numbers carrying NumPy dtype code `code` (Value::numpy_dtype), which the
// numpy bindings register: numpy.float32, numpy.int64, ... (see bindings/numpy_scalar.h).
constexpr int kNumpyScalarCodes = 32;
void register_numpy_scalar_type(uint8_t code, TypeRef type);
TypeObject* numpy_scalar_type(uint8_t code);

// Installers, one per file that implements a type's methods.
void install_str_methods(TypeObject& str);
void install_list_methods(TypeObject& list);
void install_tuple_methods(TypeObject& tuple);
void install_dict_methods(TypeObject& dict);
void install_number_methods(TypeObject& int_type, TypeObject& float_type);

}  // namespace tsch::script
