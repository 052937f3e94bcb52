// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_INTERRUPT_H
#define AI_FABRIC_INTERRUPT_H

#include <stdexcept>
#include <string>

namespace aifabric
{

/**
 * SIGINT, SIGTERM and SIGHUP as a request to stop: the handler only records the signal (an
 * async-signal-safe store); the run's sampling event stops the simulator when it sees it, and
 * the runner checks it between runs and before each figure and the commit. Unwinding removes
 * the temporary results directory; the program exits 128 + the signal. A repeated signal is
 * ignored: the first one is already being handled. Deliberately no SA_RESTART, so a blocking
 * waitpid returns EINTR and the caller can look at the flag.
 */
void InstallInterruptHandlers();

/// The signal received since InstallInterruptHandlers (0: none).
int InterruptSignal();

/// Thrown where a pending signal is noticed.
class Interrupted : public std::runtime_error
{
  public:
    explicit Interrupted(int signal);
    int GetSignal() const;
    /// 128 + the signal, what a shell reports for a program the signal killed.
    int ExitStatus() const;

  private:
    int m_signal;
};

/// Throw Interrupted if a signal is pending.
void ThrowIfInterrupted();

/// "SIGINT", "SIGTERM", "SIGHUP" (else "signal N").
std::string SignalName(int signal);

} // namespace aifabric

#endif
