// What a primitive's file uses to register its instruction kinds (at the bottom of the file):
//
//   kinds.push_back(define_kind("Split", "split", {input("loop", ParamType::Loop), ...},
//                               OutputForm::List, apply_split, doc, checks, example));
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "schedule/instruction.h"
#include "schedule/schedule.h"
#include "support/error.h"

namespace tsch::schedule {

inline ParamSpec input(std::string name, ParamType type, std::string default_text = {}) {
  return ParamSpec{std::move(name), type, Slot::Input, std::move(default_text)};
}
inline ParamSpec attr(std::string name, ParamType type, std::string default_text = {}) {
  return ParamSpec{std::move(name), type, Slot::Attr, std::move(default_text)};
}
inline ParamSpec decision_param() { return ParamSpec{"decision", ParamType::Decision, Slot::Decision, "None"}; }

inline std::unique_ptr<InstructionKind> define_kind(std::string name, std::string method, std::vector<ParamSpec> params,
                                                    OutputForm outputs,
                                                    std::function<void(Schedule&, InstructionCall&)> apply,
                                                    std::string doc, const std::string& checks = {},
                                                    const std::string& example = {}) {
  auto k = std::make_unique<InstructionKind>();
  k->name = std::move(name);
  k->method = std::move(method);
  k->params = std::move(params);
  k->outputs = outputs;
  k->apply = std::move(apply);
  k->doc = std::move(doc);
  if (!checks.empty()) k->help = "checks: " + checks + "\nexample:\n" + example;
  return k;
}

// Output handles.
inline void output_loops(InstructionCall& c, const std::vector<LoopSid>& sids) {
  for (LoopSid sid : sids) c.outputs.push_back(make_rv(RVNode::Kind::Loop, sid));
}
inline void output_blocks(InstructionCall& c, const std::vector<BlockSid>& sids) {
  for (BlockSid sid : sids) c.outputs.push_back(make_rv(RVNode::Kind::Block, sid));
}

}  // namespace tsch::schedule
