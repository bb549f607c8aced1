// TVM's time evaluator: run a function once to warm up, then `repeat` times `number` calls,
// growing `number` until a repeat lasts min_repeat_ms; each repeat's mean seconds per call,
// measured by the device's timer (the host clock around synchronizations; CUDA events).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/device.h"
#include "runtime/packed_func.h"

namespace tsch::runtime {

struct TimeEvaluatorOptions {
  int64_t number = 10;
  int64_t repeat = 1;
  int64_t min_repeat_ms = 0;
  int64_t cooldown_interval_ms = 0;
  int64_t repeats_to_cooldown = 1;
};

// Per-repeat mean seconds (BenchmarkResult.results). Ctrl-C stops it (support/interrupt.h);
// number or repeat below 1 is a UserError (ValueError).
std::vector<double> time_evaluate(const PackedFunc& f, const std::vector<Any>& args, Device dev,
                                  const TimeEvaluatorOptions& options);

// What BenchmarkResult reports.
struct BenchmarkStats {
  double mean = 0, median = 0, min = 0, max = 0, std = 0;
};
BenchmarkStats benchmark_stats(const std::vector<double>& results);
// How TVM's BenchmarkResult prints: its repr (seconds, with the number of results) and its
// str, the "Execution time summary" table in milliseconds.
std::string benchmark_repr(const BenchmarkStats& s, size_t number);
std::string benchmark_summary(const BenchmarkStats& s);

}  // namespace tsch::runtime
