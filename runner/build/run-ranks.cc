// SPDX-License-Identifier: GPL-2.0-only
#include "run-ranks.h"

#include "scenario.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"

#include <algorithm>
#include <cstring>

#ifdef AIFABRIC_MPI
#include "ns3/mpi-interface.h"

#include <mpi.h>
#endif

namespace aifabric
{

namespace
{

struct RanksState
{
    uint32_t ranks{1};
    uint32_t rank{0};
    bool nullMessage{false};
    bool enabled{false};
    bool used{false};  //!< a distributed simulation was created since MpiInterface::Enable
    bool whole{false}; //!< SetWhole: the next simulation runs whole in every process
};

RanksState&
TheRanks()
{
    static RanksState s;
    return s;
}

} // namespace

void
RunRanks::Enable(int* argc, char*** argv, uint32_t ranks, bool nullMessage)
{
#ifdef AIFABRIC_MPI
    RanksState& s = TheRanks();
    s.nullMessage = nullMessage;
    // MpiInterface::Enable reads SimulatorImplementationType to choose its synchronizer.
    ns3::GlobalValue::Bind("SimulatorImplementationType", ns3::StringValue(SimulatorType()));
    // MPI is ours to start and finish, so that ns-3's interface can be started again for each
    // run of a scenario (Renew).
    MPI_Init(argc, argv);
    ns3::MpiInterface::Enable(MPI_COMM_WORLD);
    s.enabled = true;
    s.rank = ns3::MpiInterface::GetSystemId();
    s.ranks = ns3::MpiInterface::GetSize();
    if (s.ranks != ranks)
    {
        const uint32_t got = s.ranks;
        Disable();
        throw ScenarioError("--ranks " + std::to_string(ranks) + ": mpirun started " +
                            std::to_string(got) + (got == 1 ? " process" : " processes") +
                            " (run ./ai-fabric run --ranks " + std::to_string(ranks) +
                            ", or mpirun -np " + std::to_string(ranks) + " ai-fabric-runner)");
    }
    // Put the sequential core back: the idle-message probe and the baselines run alone, and
    // the split simulation binds the distributed core itself (SimulationBuilder).
    ns3::GlobalValue::Bind("SimulatorImplementationType",
                           ns3::StringValue("ns3::FabricSimulatorImpl"));
#else
    (void)argc;
    (void)argv;
    (void)nullMessage;
    throw ScenarioError(NoMpi(ranks));
#endif
}

bool
RunRanks::Available()
{
#ifdef AIFABRIC_MPI
    return true;
#else
    return false;
#endif
}

std::string
RunRanks::NoMpi(uint32_t ranks)
{
    return "--ranks " + std::to_string(ranks) +
           ": this build has no MPI (scripts/ns3-mpi.sh builds ns-3's mpi module into "
           "/var/cache/ai-fabric; then rebuild: ./ai-fabric build)";
}

void
RunRanks::Disable()
{
#ifdef AIFABRIC_MPI
    if (TheRanks().enabled)
    {
        TheRanks().enabled = false;
        ns3::MpiInterface::Disable();
        MPI_Finalize();
    }
#endif
}

void
RunRanks::Renew()
{
#ifdef AIFABRIC_MPI
    RanksState& s = TheRanks();
    if (!s.enabled)
    {
        return;
    }
    if (s.used)
    {
        // The last distributed simulation's Destroy freed the interface's receive buffers (its
        // pending receives stay on its own communicator, which is let go): a new interface on a
        // new duplicate of the world communicator.
        ns3::MpiInterface::Disable();
        ns3::GlobalValue::Bind("SimulatorImplementationType", ns3::StringValue(SimulatorType()));
        ns3::MpiInterface::Enable(MPI_COMM_WORLD);
    }
    s.used = true;
#endif
}

bool
RunRanks::Split()
{
    return TheRanks().ranks > 1 && !TheRanks().whole;
}

void
RunRanks::SetWhole(bool whole)
{
    TheRanks().whole = whole;
}

uint32_t
RunRanks::Rank()
{
    return TheRanks().rank;
}

uint32_t
RunRanks::Size()
{
    return TheRanks().ranks;
}

std::string
RunRanks::SimulatorType()
{
    return TheRanks().nullMessage ? "ns3::NullMessageSimulatorImpl"
                                  : "ns3::DistributedSimulatorImpl";
}

std::string
RunRanks::Refusal(const RunConfig& c)
{
    if (c.fabric.name == "tcp" && c.fabric.tcp.stack != TcpStack::LINUX)
    {
        return "tcp.stack: ns-3's own TCP/IP (ns3) does not run across ranks (the Linux TCP "
               "model, linux, does)";
    }
    // Several jobs split when each would alone (over RDMA, InfiniBand or UEC).
    for (const JobConfig& j : c.jobs)
    {
        if (const std::string why = Refusal(j.run); !why.empty())
        {
            return "jobs: job '" + j.name + "': " + why;
        }
    }
    return "";
}

namespace
{

/// The victim of the latest timeout a transport reported (kernel TCP) over the ranks, as one
/// process names the last one; on a tie of times, the largest rank.
void
LatestTimeout(ns3::TrainingStepRecord& r)
{
    const bool mine = r.timeoutVictim >= 0 && r.timeoutAt >= 0;
    std::vector<uint64_t> at{mine ? uint64_t(r.timeoutAt) + 1 : 0};
    RunRanks::Max(at);
    std::vector<uint64_t> victim{
        mine && uint64_t(r.timeoutAt) + 1 == at[0] ? uint64_t(r.timeoutVictim) + 1 : 0};
    RunRanks::Max(victim);
    r.timeoutAt = at[0] == 0 ? -1 : int64_t(at[0] - 1);
    r.timeoutVictim = victim[0] == 0 ? -1 : int32_t(victim[0] - 1);
}

} // namespace

#ifdef AIFABRIC_MPI
namespace
{

/// `v` reduced over every rank by `op`, at every rank.
template <typename T>
T
AllReduce(T v, MPI_Datatype type, MPI_Op op)
{
    if (!RunRanks::Split())
    {
        return v;
    }
    T out{};
    MPI_Allreduce(&v, &out, 1, type, op, MPI_COMM_WORLD);
    return out;
}

void
AllReduce(std::vector<uint64_t>& v, MPI_Op op)
{
    if (RunRanks::Split() && !v.empty())
    {
        MPI_Allreduce(MPI_IN_PLACE,
                      v.data(),
                      static_cast<int>(v.size()),
                      MPI_UINT64_T,
                      op,
                      MPI_COMM_WORLD);
    }
}

} // namespace

uint64_t
RunRanks::Sum(uint64_t v)
{
    return AllReduce(v, MPI_UINT64_T, MPI_SUM);
}

int64_t
RunRanks::Sum(int64_t v)
{
    return AllReduce(v, MPI_INT64_T, MPI_SUM);
}

int64_t
RunRanks::Max(int64_t v)
{
    return AllReduce(v, MPI_INT64_T, MPI_MAX);
}

double
RunRanks::MaxDouble(double v)
{
    return AllReduce(v, MPI_DOUBLE, MPI_MAX);
}

void
RunRanks::Sum(std::vector<uint64_t>& v)
{
    AllReduce(v, MPI_SUM);
}

void
RunRanks::Max(std::vector<uint64_t>& v)
{
    AllReduce(v, MPI_MAX);
}

std::vector<std::string>
RunRanks::Gather(const std::string& text)
{
    if (!Split())
    {
        return {text};
    }
    const int n = static_cast<int>(Size());
    int mine = static_cast<int>(text.size());
    std::vector<int> sizes(n);
    MPI_Allgather(&mine, 1, MPI_INT, sizes.data(), 1, MPI_INT, MPI_COMM_WORLD);
    std::vector<int> offsets(n, 0);
    for (int r = 1; r < n; ++r)
    {
        offsets[r] = offsets[r - 1] + sizes[r - 1];
    }
    std::string all(static_cast<size_t>(offsets[n - 1] + sizes[n - 1]), '\0');
    MPI_Allgatherv(text.data(),
                   mine,
                   MPI_CHAR,
                   all.data(),
                   sizes.data(),
                   offsets.data(),
                   MPI_CHAR,
                   MPI_COMM_WORLD);
    std::vector<std::string> out;
    for (int r = 0; r < n; ++r)
    {
        out.push_back(all.substr(static_cast<size_t>(offsets[r]), static_cast<size_t>(sizes[r])));
    }
    return out;
}
#else
uint64_t
RunRanks::Sum(uint64_t v)
{
    return v;
}

int64_t
RunRanks::Sum(int64_t v)
{
    return v;
}

int64_t
RunRanks::Max(int64_t v)
{
    return v;
}

double
RunRanks::MaxDouble(double v)
{
    return v;
}

void
RunRanks::Sum(std::vector<uint64_t>&)
{
}

void
RunRanks::Max(std::vector<uint64_t>&)
{
}

std::vector<std::string>
RunRanks::Gather(const std::string& text)
{
    return {text};
}
#endif

void
RunRanks::Merge(ns3::LatencyHistogram& h)
{
    if (!Split())
    {
        return;
    }
    std::vector<uint64_t> bins = h.GetBins();
    Sum(bins);
    const uint64_t count = Sum(h.GetCount());
    // The samples are whole time steps: their sum in a double is exact, in any order.
    const int64_t sum = Sum(static_cast<int64_t>(h.GetSum()));
    const int64_t min = -Max(h.GetCount() ? -h.GetMin() : INT64_MIN + 1);
    const int64_t max = Max(h.GetCount() ? h.GetMax() : INT64_MIN);
    h.Assign(std::move(bins), count, min, max, double(sum));
}

void
RunRanks::Merge(ns3::TrainingJob& job)
{
    if (!Split())
    {
        return;
    }
    job.MergeSteps([](ns3::TrainingStepRecord& r) {
        std::vector<uint64_t> ends(r.collectiveEnd.size());
        for (size_t i = 0; i < ends.size(); ++i)
        {
            ends[i] = static_cast<uint64_t>(r.collectiveEnd[i].GetTimeStep());
        }
        Max(ends);
        for (size_t i = 0; i < ends.size(); ++i)
        {
            r.collectiveEnd[i] = ns3::TimeStep(static_cast<int64_t>(ends[i]));
        }
        std::vector<uint64_t> counts{r.retransmissions, r.timeouts, r.lossProbes};
        Sum(counts);
        r.retransmissions = counts[0];
        r.timeouts = counts[1];
        r.lossProbes = counts[2];
        // The lowest (NIC, victim) found: the largest complement.
        const uint64_t none = UINT64_MAX;
        const uint64_t mine =
            r.timeoutVictim < 0 ? none : (uint64_t(r.timeoutNic) << 32) | uint32_t(r.timeoutVictim);
        std::vector<uint64_t> key{~mine};
        Max(key);
        const uint64_t lowest = ~key[0];
        if (lowest != none && static_cast<uint32_t>(lowest >> 32) == UINT32_MAX)
        {
            // No NIC's queue pair timed out anywhere: the transport's victim (kernel TCP).
            LatestTimeout(r);
            return;
        }
        r.timeoutNic = lowest == none ? UINT32_MAX : static_cast<uint32_t>(lowest >> 32);
        r.timeoutVictim = lowest == none ? -1 : static_cast<int32_t>(lowest & 0xffffffffu);
    });
}

void
RunRanks::Merge(ns3::ParallelTrainingJob& job)
{
    if (!Split())
    {
        return;
    }
    job.MergeSteps(
        [](ns3::TrainingStepRecord& r) {
            std::vector<uint64_t> counts{r.retransmissions, r.timeouts, r.lossProbes};
            Sum(counts);
            r.retransmissions = counts[0];
            r.timeouts = counts[1];
            r.lossProbes = counts[2];
            LatestTimeout(r);
        },
        [](std::vector<uint64_t>& v) { Sum(v); });
}

void
RunRanks::Merge(ns3::FabricFaultInjector& faults)
{
    if (!Split())
    {
        return;
    }
    using Drop = ns3::FabricFaultInjector::LinkDownDrop;
    const std::vector<Drop>& log = faults.GetDropLog();
    std::vector<Drop> all;
    for (const std::string& bytes :
         Gather(std::string(reinterpret_cast<const char*>(log.data()), log.size() * sizeof(Drop))))
    {
        const size_t n = bytes.size() / sizeof(Drop);
        const size_t at = all.size();
        all.resize(at + n);
        std::memcpy(static_cast<void*>(all.data() + at), bytes.data(), n * sizeof(Drop));
    }
    faults.ReplayLinkDownDrops(std::move(all));
}

namespace
{

/// The unsigned integers of `obj`, depth first, and whether each is a maximum.
void
CollectUnsigned(nlohmann::json& obj,
                const std::vector<std::string>& maxKeys,
                std::vector<nlohmann::json*>& leaves,
                std::vector<bool>& isMax)
{
    for (auto it = obj.begin(); it != obj.end(); ++it)
    {
        if (it->is_object())
        {
            CollectUnsigned(*it, maxKeys, leaves, isMax);
        }
        else if (it->is_number_unsigned())
        {
            leaves.push_back(&*it);
            isMax.push_back(std::find(maxKeys.begin(), maxKeys.end(), it.key()) != maxKeys.end());
        }
    }
}

} // namespace

void
RunRanks::SumJson(nlohmann::json& obj, const std::vector<std::string>& maxKeys)
{
    if (!Split())
    {
        return;
    }
    std::vector<nlohmann::json*> leaves;
    std::vector<bool> isMax;
    CollectUnsigned(obj, maxKeys, leaves, isMax);
    std::vector<uint64_t> sums(leaves.size(), 0);
    std::vector<uint64_t> maxima(leaves.size(), 0);
    for (size_t i = 0; i < leaves.size(); ++i)
    {
        (isMax[i] ? maxima : sums)[i] = leaves[i]->get<uint64_t>();
    }
    Sum(sums);
    Max(maxima);
    for (size_t i = 0; i < leaves.size(); ++i)
    {
        *leaves[i] = isMax[i] ? maxima[i] : sums[i];
    }
}

} // namespace aifabric
