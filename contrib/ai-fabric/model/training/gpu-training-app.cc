// SPDX-License-Identifier: GPL-2.0-only
#include "gpu-training-app.h"

#include "ns3/abort.h"
#include "ns3/double.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <sstream>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(GpuTrainingApp);

TypeId
GpuTrainingApp::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::GpuTrainingApp")
            .SetParent<Application>()
            .SetGroupName("AiFabric")
            .AddConstructor<GpuTrainingApp>()
            .AddAttribute("Rank",
                          "This GPU's rank.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&GpuTrainingApp::m_rank),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("ComputeTime",
                          "Forward + backward time per step when ModelParameters is 0 (the "
                          "seed's example: 82 ms).",
                          TimeValue(MilliSeconds(82)),
                          MakeTimeAccessor(&GpuTrainingApp::m_computeTime),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("ModelParameters",
                          "Model parameters; > 0 derives compute time as 6 P T / (peak x MFU).",
                          DoubleValue(0),
                          MakeDoubleAccessor(&GpuTrainingApp::m_params),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("TokensPerStep",
                          "Tokens this GPU processes per step (with ModelParameters).",
                          DoubleValue(0),
                          MakeDoubleAccessor(&GpuTrainingApp::m_tokens),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("PeakTflops",
                          "Peak dense TFLOP/s (H100 SXM BF16: 989.4).",
                          DoubleValue(989.4),
                          MakeDoubleAccessor(&GpuTrainingApp::m_peakTflops),
                          MakeDoubleChecker<double>(1e-3))
            .AddAttribute("MfuInsideCompute",
                          "Model FLOPs utilization while computing (UNCONFIRMED default 0.45; "
                          "Llama 3 reports 38-43% overall).",
                          DoubleValue(0.45),
                          MakeDoubleAccessor(&GpuTrainingApp::m_mfu),
                          MakeDoubleChecker<double>(1e-6, 1.0))
            .AddAttribute("Jitter",
                          "Relative compute-time jitter per step: time x (1 + X).",
                          StringValue("ns3::ConstantRandomVariable[Constant=0]"),
                          MakePointerAccessor(&GpuTrainingApp::m_jitter),
                          MakePointerChecker<RandomVariableStream>())
            .AddAttribute("SlowdownFactor",
                          "Straggler: compute time multiplier on slow steps.",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&GpuTrainingApp::m_slowdown),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("ExtraDelay",
                          "Straggler: extra compute time on slow steps.",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&GpuTrainingApp::m_extraDelay),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("SlowSteps",
                          "Comma-separated step indices that straggle; empty = every step.",
                          StringValue(""),
                          MakeStringAccessor(&GpuTrainingApp::m_slowSteps),
                          MakeStringChecker());
    return tid;
}

GpuTrainingApp::GpuTrainingApp() = default;
GpuTrainingApp::~GpuTrainingApp() = default;

void
GpuTrainingApp::DoDispose()
{
    m_event.Cancel();
    m_done = Callback<void, uint32_t>();
    m_stoppedCallback = Callback<void, uint32_t>();
    m_jitter = nullptr;
    Application::DoDispose();
}

void
GpuTrainingApp::StartApplication()
{
    // Nothing to start: the TrainingJob asks for each compute phase, and StartCompute already
    // waits for StartTime (GetStartDelay).
}

void
GpuTrainingApp::StopApplication()
{
    m_stopped = true;
    CancelCompute();
    if (!m_stoppedCallback.IsNull())
    {
        m_stoppedCallback(m_rank);
    }
}

Time
GpuTrainingApp::GetStartDelay() const
{
    const Time now = Simulator::Now();
    return m_startTime > now ? m_startTime - now : Time(0);
}

bool
GpuTrainingApp::IsStopped() const
{
    return m_stopped;
}

void
GpuTrainingApp::SetStopCallback(Callback<void, uint32_t> stopped)
{
    m_stoppedCallback = stopped;
}

void
GpuTrainingApp::CancelCompute()
{
    m_event.Cancel();
}

int64_t
GpuTrainingApp::AssignStreams(int64_t stream)
{
    m_jitter->SetStream(stream);
    return 1;
}

uint32_t
GpuTrainingApp::GetRank() const
{
    return m_rank;
}

double
GpuTrainingApp::GetMfuInsideCompute() const
{
    return m_mfu;
}

bool
GpuTrainingApp::IsSlowStep(uint32_t step) const
{
    if (m_slowSteps.empty())
    {
        return true;
    }
    std::istringstream is(m_slowSteps);
    std::string tok;
    while (std::getline(is, tok, ','))
    {
        if (!tok.empty() && std::stoul(tok) == step)
        {
            return true;
        }
    }
    return false;
}

Time
GpuTrainingApp::GetNominalComputeTime() const
{
    if (m_params > 0)
    {
        return Seconds(6.0 * m_params * m_tokens / (m_peakTflops * 1e12 * m_mfu));
    }
    return m_computeTime;
}

Time
GpuTrainingApp::GetComputeTime(uint32_t step)
{
    if (m_drawnStep == step)
    {
        return m_drawn;
    }
    double t = GetNominalComputeTime().GetSeconds();
    t *= std::max(0.0, 1.0 + m_jitter->GetValue());
    Time d = Seconds(t);
    if (IsSlowStep(step))
    {
        d = d * m_slowdown + m_extraDelay;
    }
    m_drawnStep = step;
    m_drawn = d;
    return d;
}

double
GpuTrainingApp::GetComputeScale(uint32_t step)
{
    if (m_scaleStep != step)
    {
        m_scaleStep = step;
        m_scale = std::max(0.0, 1.0 + m_jitter->GetValue()) * (IsSlowStep(step) ? m_slowdown : 1.0);
    }
    return m_scale;
}

Time
GpuTrainingApp::GetExtraDelay(uint32_t step) const
{
    return IsSlowStep(step) ? m_extraDelay : Time(0);
}

void
GpuTrainingApp::StartCompute(uint32_t step, Callback<void, uint32_t> done, Time since)
{
    if (m_stopped)
    {
        return;
    }
    m_done = done;
    // The phase begins at the step's beginning (`since` ago) or at StartTime, whichever is later.
    const Time now = Simulator::Now();
    const Time begin = std::max(now - since, m_startTime);
    m_event = Simulator::Schedule(std::max(Time(0), begin + GetComputeTime(step) - now),
                                  &GpuTrainingApp::Done,
                                  this,
                                  step);
}

void
GpuTrainingApp::Done(uint32_t)
{
    if (!m_done.IsNull())
    {
        m_done(m_rank);
    }
}

} // namespace ns3
