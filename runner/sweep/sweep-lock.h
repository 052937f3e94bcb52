// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_SWEEP_LOCK_H
#define AI_FABRIC_SWEEP_LOCK_H

#include <string>

namespace aifabric
{

/**
 * An exclusive lock on a sweep directory while a sweep runs or submits in it: DIR/.lock, held
 * with flock(2) and holding "pid=N host=H" of its holder. The kernel releases it when the
 * holder dies however it dies (kill -9 included), so a stale lock is simply taken over; the
 * descriptor is close-on-exec, so the runners a sweep starts do not keep it.
 */
class SweepLock
{
  public:
    /// The lock file's name inside a sweep directory.
    static constexpr const char* kFileName = ".lock";

    /// Take the lock of `dir` (created if missing). \throw ScenarioError naming the holder
    /// (pid and host) when another process holds it
    explicit SweepLock(const std::string& dir);
    ~SweepLock();
    SweepLock(const SweepLock&) = delete;
    SweepLock& operator=(const SweepLock&) = delete;

  private:
    int m_fd{-1};
};

} // namespace aifabric

#endif
