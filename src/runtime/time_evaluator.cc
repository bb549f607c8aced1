#include "runtime/time_evaluator.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <thread>

#include "support/error.h"
#include "support/interrupt.h"

namespace tsch::runtime {

std::vector<double> time_evaluate(const PackedFunc& f, const std::vector<Any>& args, Device dev,
                                  const TimeEvaluatorOptions& o) {
  TSCH_USER_ASSERT(o.number >= 1 && o.repeat >= 1, ValueError)
      << "time_evaluator: number and repeat must be at least 1";
  DeviceAPI& api = device_api(dev);
  auto check_interrupt = [] {
    if (interrupt_pending()) {
      clear_interrupt();
      throw Interrupted();
    }
  };
  (*f)(args);  // warm-up, as TVM does
  api.sync(dev.id);
  std::vector<double> results;
  int64_t n = o.number;
  for (int64_t r = 0; r < o.repeat; ++r) {
    if (r > 0 && o.cooldown_interval_ms > 0 && o.repeats_to_cooldown > 0 && r % o.repeats_to_cooldown == 0)
      std::this_thread::sleep_for(std::chrono::milliseconds(o.cooldown_interval_ms));
    double seconds = 0;
    for (;;) {
      std::unique_ptr<DeviceTimer> timer = api.timer(dev.id);
      timer->start();
      for (int64_t i = 0; i < n; ++i) {
        check_interrupt();
        (*f)(args);
      }
      timer->stop();
      seconds = timer->seconds();
      if (o.min_repeat_ms <= 0 || seconds * 1e3 >= static_cast<double>(o.min_repeat_ms)) break;
      // Too short: scale `number` up toward min_repeat_ms, as TVM does.
      double scale = seconds > 0 ? static_cast<double>(o.min_repeat_ms) / (seconds * 1e3) * 1.618 : 2;
      n = std::max<int64_t>(n + 1, static_cast<int64_t>(static_cast<double>(n) * std::min(scale, 1e6)));
    }
    results.push_back(seconds / static_cast<double>(n));
  }
  return results;
}

BenchmarkStats benchmark_stats(const std::vector<double>& results) {
  BenchmarkStats s;
  if (results.empty()) return s;
  std::vector<double> v = results;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  for (double x : v) s.mean += x;
  s.mean /= static_cast<double>(n);
  s.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  s.min = v.front();
  s.max = v.back();
  for (double x : v) s.std += (x - s.mean) * (x - s.mean);
  s.std = std::sqrt(s.std / static_cast<double>(n));
  return s;
}

std::string benchmark_repr(const BenchmarkStats& s, size_t number) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "BenchmarkResult(min=%g, mean=%g, median=%g, max=%g, std=%g, number=%zu)", s.min,
                s.mean, s.median, s.max, s.std, number);
  return buf;
}

std::string benchmark_summary(const BenchmarkStats& s) {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "Execution time summary:\n %-12s %-12s %-12s %-12s %-12s\n %-12.4f %-12.4f %-12.4f %-12.4f %-12.4f\n",
                "mean (ms)", "median (ms)", "max (ms)", "min (ms)", "std (ms)", s.mean * 1e3, s.median * 1e3,
                s.max * 1e3, s.min * 1e3, s.std * 1e3);
  return buf;
}

}  // namespace tsch::runtime
