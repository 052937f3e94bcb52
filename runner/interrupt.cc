// SPDX-License-Identifier: GPL-2.0-only
#include "interrupt.h"

#include <csignal>
#include <signal.h>

namespace aifabric
{

namespace
{

volatile std::sig_atomic_t g_signal = 0;

extern "C" void
OnSignal(int signal)
{
    if (g_signal == 0)
    {
        g_signal = signal;
    }
}

} // namespace

void
InstallInterruptHandlers()
{
    struct sigaction sa = {};
    sa.sa_handler = OnSignal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;
    for (int s : {SIGINT, SIGTERM, SIGHUP})
    {
        sigaction(s, &sa, nullptr);
    }
}

int
InterruptSignal()
{
    return g_signal;
}

Interrupted::Interrupted(int signal)
    : std::runtime_error("interrupted by " + SignalName(signal)),
      m_signal(signal)
{
}

int
Interrupted::GetSignal() const
{
    return m_signal;
}

int
Interrupted::ExitStatus() const
{
    return 128 + m_signal;
}

void
ThrowIfInterrupted()
{
    if (const int s = g_signal)
    {
        throw Interrupted(s);
    }
}

std::string
SignalName(int signal)
{
    switch (signal)
    {
    case SIGINT:
        return "SIGINT";
    case SIGTERM:
        return "SIGTERM";
    case SIGHUP:
        return "SIGHUP";
    default:
        return "signal " + std::to_string(signal);
    }
}

} // namespace aifabric
