// SPDX-License-Identifier: GPL-2.0-only
#ifndef GPU_TRAINING_APP_H
#define GPU_TRAINING_APP_H

#include "ns3/application.h"
#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/random-variable-stream.h"

#include <set>
#include <string>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * The compute side of one GPU (rank) in data-parallel training, installed on the GPU's node.
 * A TrainingJob asks it to run the compute phase (forward + backward) of each step; it reports
 * when that phase ends. The phase lasts ComputeTime — or, with ModelParameters > 0,
 * 6 · parameters · tokens / (peak FLOP/s · MFU inside compute) — times (1 + jitter), times
 * SlowdownFactor plus ExtraDelay on the steps listed in SlowSteps (a straggler).
 *
 * The inherited StartTime and StopTime attributes hold: a rank computes no earlier than its
 * StartTime (a compute phase asked for earlier begins then, so a late rank delays the step);
 * at StopTime the rank stops — its compute phase in progress is cancelled, it never reports it,
 * and it tells the TrainingJob (SetStopCallback), which ends the job at that instant (a job
 * cannot go on without one of its ranks).
 *
 * Not modelled: per-layer gradient timing (TrainingJob releases buckets at even fractions of the
 * compute), kernels, memory.
 */
class GpuTrainingApp : public Application
{
  public:
    static TypeId GetTypeId();
    GpuTrainingApp();
    ~GpuTrainingApp() override;

    /**
     * Run the compute phase of `step`; call `done(rank)` when it ends. The step began `since`
     * ago (a job split across MPI ranks learns of its barrier a message delay after it): the
     * phase ends at its time from the step's beginning, or now if that has passed.
     */
    void StartCompute(uint32_t step, Callback<void, uint32_t> done, Time since = Time(0));
    /// The compute time this rank will take on `step` (draws the jitter once per step).
    Time GetComputeTime(uint32_t step);
    /**
     * For a job that times its own kernels (ParallelTrainingJob): the factor every kernel of
     * `step` takes (1 + jitter, drawn once per step, × SlowdownFactor on slow steps), and the
     * ExtraDelay its first kernel adds on a slow step.
     */
    double GetComputeScale(uint32_t step);
    Time GetExtraDelay(uint32_t step) const;
    /// The nominal compute time (no jitter, no straggling).
    Time GetNominalComputeTime() const;
    double GetMfuInsideCompute() const;
    /// Time from now until this rank may compute (its StartTime); zero once it has started.
    Time GetStartDelay() const;
    /// \return true once StopTime has passed
    bool IsStopped() const;
    /// Called with the rank when the application stops (StopTime).
    void SetStopCallback(Callback<void, uint32_t> stopped);
    /// Cancel the compute phase in progress, if any, without reporting it.
    void CancelCompute();
    uint32_t GetRank() const;
    int64_t AssignStreams(int64_t stream);

  protected:
    void DoDispose() override;

  private:
    void StartApplication() override;
    void StopApplication() override;
    void Done(uint32_t step);
    bool IsSlowStep(uint32_t step) const;

    uint32_t m_rank{0};
    Time m_computeTime;
    double m_params{0};
    double m_tokens{0};
    double m_peakTflops{989.4};
    double m_mfu{0.45};
    Ptr<RandomVariableStream> m_jitter;
    double m_slowdown{1.0};
    Time m_extraDelay;
    std::string m_slowSteps;
    std::set<uint32_t> m_slowSet;
    uint32_t m_drawnStep{UINT32_MAX};
    Time m_drawn;
    uint32_t m_scaleStep{UINT32_MAX};
    double m_scale{1.0};
    Callback<void, uint32_t> m_done;
    Callback<void, uint32_t> m_stoppedCallback;
    bool m_stopped{false};
    EventId m_event;
};

} // namespace ns3

#endif // GPU_TRAINING_APP_H
