// Script types of the front-end values (what `type(T.grid(4))` shows and how they repr).
#include "frontend/tir_specs.h"

#include "script/interpreter.h"
#include "script/object.h"

namespace tsch::frontend {

namespace {

script::TypeRef make(const char* name) {
  auto t = std::make_shared<script::TypeObject>(name);
  t->set_module("tvm.script.tir");
  return t;
}

}  // namespace

script::TypeObject* BufferTypeValue::type() const {
  static auto t = make("BufferType");
  return t.get();
}
script::TypeObject* AxisValue::type() const {
  static auto t = make("Axis");
  return t.get();
}
script::TypeObject* LoopValue::type() const {
  static auto t = make("LoopFrame");
  return t.get();
}
script::TypeObject* BlockHeaderValue::type() const {
  static auto t = make("BlockFrame");
  return t.get();
}
script::TypeObject* EnvThreadValue::type() const {
  static auto t = make("EnvThread");
  return t.get();
}
script::TypeObject* LaunchThreadValue::type() const {
  static auto t = make("LaunchThreadFrame");
  return t.get();
}
script::TypeObject* AttrFrameValue::type() const {
  static auto t = make("AttrFrame");
  return t.get();
}
script::TypeObject* LetFrameValue::type() const {
  static auto t = make("LetFrame");
  return t.get();
}

}  // namespace tsch::frontend
