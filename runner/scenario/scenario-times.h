// SPDX-License-Identifier: GPL-2.0-only
// The one rule for every duration, period and rate a scenario gives or derives: ns-3 must be
// able to hold it and it must advance time.
#ifndef AI_FABRIC_SCENARIO_TIMES_H
#define AI_FABRIC_SCENARIO_TIMES_H

#include "scenario.h"

#include <string>

namespace aifabric
{

/**
 * ns-3's Time counts integer nanoseconds (int64: up to ~292 years). A duration, period or
 * timeout must be at least one nanosecond (a periodic check of 0 ns never lets time advance:
 * the run hangs) and at most kMaxDurationSeconds (converting a larger double overflows; a few
 * such durations still add up to a representable time). A rate must be at least
 * kMinRateBitsPerSecond: ns-3's DataRate holds whole bits per second, and 0 divides by zero when
 * a frame's transmission time is computed.
 */
constexpr double kMaxDurationSeconds = 1e9;
constexpr double kMinRateBitsPerSecond = 1000;
/// The same floor for a GPU's compute rate (gpu.peak_tflops x gpu.compute_efficiency), checked
/// for every workload.
constexpr double kMinFlopsPerSecond = 1000;

/// Throw a ScenarioError naming `key` unless `value` (in units of `unitSeconds`, written
/// `unit`) is a representable duration; the message gives the range in the key's unit.
void CheckDuration(const std::string& key,
                   double value,
                   double unitSeconds,
                   const std::string& unit);

/// Throw a ScenarioError naming `key` unless `seconds`, derived from the key's `value` as
/// `what` says (e.g. "a flap's half period (period_ms / 2)"), is a representable duration.
void CheckSeconds(const std::string& key, double value, double seconds, const std::string& what);

/// Throw a ScenarioError naming `key` unless `bitsPerSecond` (derived from the key's `value`
/// as `what` says) is at least kMinRateBitsPerSecond.
void CheckRate(const std::string& key, double value, double bitsPerSecond, const std::string& what);

/// Every duration, period and rate of `r` (keys, and what follows from them: a flap's half
/// period, a plane's rate, the flows' mean gap, a step's compute at the GPU's rate, a Chakra
/// kernel's time), checked by the rules above.
void CheckTimesAndRates(const RunConfig& r);

} // namespace aifabric

#endif // AI_FABRIC_SCENARIO_TIMES_H
