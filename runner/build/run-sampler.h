// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_RUN_SAMPLER_H
#define AI_FABRIC_RUN_SAMPLER_H

#include "ns3/fabric-topology.h"
#include "ns3/flow-workload.h"
#include "ns3/nstime.h"
#include "ns3/rdma-nic.h"
#include "ns3/training-job.h"

#include <array>
#include <chrono>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace aifabric
{

/**
 * Samples a running simulation every `period`: the largest and the total switch queue and the
 * PFC pause frames sent (queue.csv rows), rank 0's queue-pair rates (rate.csv rows) and, with
 * `progress`, a progress line on stderr at most twice a second. Reschedules itself; the rows
 * are appended to `queue` and `rate` after the header the caller writes, who calls Finish()
 * once the simulation has stopped.
 *
 * The files grow with what happens, not with simulated time: a queue row the same as the one
 * before is held back and written only before the next different row (or by Finish()), so a
 * stretch of idle fabric is its first and last row; a queue pair's rate is written for the
 * intervals in which it sent data. A run that waits seconds for timeouts writes a few rows.
 */
struct Sampler
{
    ns3::Ptr<ns3::FabricTopology> topo;
    ns3::Ptr<ns3::RdmaNic> rank0; //!< whose queue-pair rates are sampled (null over TCP)
    std::ostringstream queue;     //!< queue.csv
    std::ostringstream rate;      //!< rate.csv
    uint64_t lastPfc{0};
    std::vector<uint64_t> lastData; //!< per rank-0 queue pair: data packets at the last sample
    ns3::Time period{ns3::MicroSeconds(100)};
    // progress
    bool progress{false};
    size_t index{0};
    size_t total{1};
    std::string name;
    ns3::Ptr<ns3::FlowWorkload> flows; //!< with a flow workload (progress shows its flows)
    ns3::Ptr<ns3::TrainingJob> job;
    uint32_t steps{1};
    std::chrono::steady_clock::time_point wall0;
    std::chrono::steady_clock::time_point lastPrint;
    uint64_t lastEvents{0};

    /// Across MPI ranks (RunRanks::Split): each rank samples the switches it runs and keeps its
    /// rows (and, on host 0's rank, its queue pairs' rates) until MergeRanks.
    bool split{false};
    uint32_t mpiRank{0};

    /// Take one sample and schedule the next.
    void Sample();
    /// Across MPI ranks: combine every rank's samples into the rows one rank would have written
    /// (largest queue and buffer: the maximum; total queue and PAUSE frames: the sum), on every
    /// rank. Before Finish.
    void MergeRanks();
    /// Write the queue row held back (the last of an unchanged stretch), if any.
    void Finish();

  private:
    /// A sample kept for MergeRanks: time; largest queue, total queue, PAUSE frames so far,
    /// fullest buffer.
    struct RawRow
    {
        double t;
        uint64_t v[4];
    };

    std::vector<RawRow> m_raw;
    std::ostringstream m_rateRows; //!< split: this rank's rate rows
    void QueueRow(double t, uint64_t maxQ, uint64_t sumQ, uint64_t pfc, uint64_t maxBuffer);

    std::array<uint64_t, 4> m_last{}; //!< the values of the last queue row taken
    double m_heldTime{-1};            //!< the time of the row held back, or -1
    bool m_anyRow{false};
};

} // namespace aifabric

#endif
