// The trace (TVM's Trace): the instructions applied so far and the decisions of the sampling
// ones. It prints as the Python that replays it (`def apply_trace(sch: tir.Schedule) -> None:`
// with b0/l1/v2 names, TVM's lines exactly), converts to and from TVM's JSON form
// ([[kind, inputs, attrs, outputs] ...], [[index, decision] ...]), and replays on another
// schedule, optionally with other decisions.
#pragma once

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "schedule/instruction.h"

namespace tsch::schedule {

class Schedule;

class Trace {
 public:
  const std::vector<Instruction>& insts() const { return insts_; }
  size_t size() const { return insts_.size(); }
  // The decision recorded for `inst` (None when it has none).
  TraceArg get_decision(const Instruction& inst) const;
  void append(Instruction inst, TraceArg decision = TraceArg::none());
  void truncate(size_t size);

  // Replays the instructions on `sch`, mapping this trace's handles to the new ones. The
  // decision provider may replace each sampling decision (TVM's decision_provider).
  using DecisionProvider = std::function<TraceArg(const Instruction&, const TraceArg& decision)>;
  void apply_to_schedule(Schedule& sch, bool remove_postproc, const DecisionProvider& provider = nullptr) const;
  // A copy whose decision for `inst` is `decision` (TVM's with_decision).
  Trace with_decision(const Instruction& inst, TraceArg decision, bool remove_postproc) const;
  // Without the pure instructions whose outputs nothing uses (TVM's simplified).
  Trace simplified(bool remove_postproc) const;

  // One line per instruction, as TVM's Trace.as_python.
  std::vector<std::string> as_python(bool remove_postproc = false) const;
  // The whole function: "# from tvm import tir\ndef apply_trace(...) -> None:\n  ...".
  std::string str() const;

  nlohmann::json as_json(bool remove_postproc = false) const;
  // Reads TVM's JSON form and applies it to `sch`. Index maps are stored as lambda text;
  // `parse_index_map` turns one back into parameters and outputs (the script layer can).
  using IndexMapParser = std::function<TraceArg(const std::string& lambda_text)>;
  static void apply_json_to_schedule(const nlohmann::json& json, Schedule& sch, const IndexMapParser& parse_index_map);

 private:
  size_t valid_prefix(bool remove_postproc) const;
  std::vector<Instruction> insts_;
  std::map<const InstructionNode*, TraceArg> decisions_;
};

// One instruction as TVM prints it on its own, every handle `_`: "_, _ = sch.get_loops(block=_)".
std::string instruction_python(const InstructionNode& inst);

}  // namespace tsch::schedule
