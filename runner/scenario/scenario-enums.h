// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_SCENARIO_ENUMS_H
#define AI_FABRIC_SCENARIO_ENUMS_H

// The closed value sets of scenario keys as enums, each with one table of its scenario names.
// The schema offers these names (NamesOf), resolving a scenario parses them once (a JSON
// string converts to the enum), and only what is written out (summary.json, the resolved
// JSON, labels) turns them back into names (NameOf, or a JSON value). Plug-ins chosen from a
// registry (fabric, topology kind, congestion control, ...) are open sets and stay names.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace aifabric
{

/// An enum's scenario names: a specialization holds `kNames`, {value, name} pairs.
template <typename E>
struct ScenarioNames;

/// workload.kind
enum class WorkloadKind : uint8_t
{
    COLLECTIVE,
    FLOWS,
    MATRIX,
    TRAINING,
    CHAKRA,
};

template <>
struct ScenarioNames<WorkloadKind>
{
    static constexpr std::pair<WorkloadKind, const char*> kNames[] = {
        {WorkloadKind::COLLECTIVE, "collective"},
        {WorkloadKind::FLOWS, "flows"},
        {WorkloadKind::MATRIX, "matrix"},
        {WorkloadKind::TRAINING, "training"},
        {WorkloadKind::CHAKRA, "chakra"},
    };
};

/// workload.flows.pattern, workload.background.pattern
enum class FlowsPattern : uint8_t
{
    UNIFORM,
    PERMUTATION,
};

template <>
struct ScenarioNames<FlowsPattern>
{
    static constexpr std::pair<FlowsPattern, const char*> kNames[] = {
        {FlowsPattern::UNIFORM, "uniform"},
        {FlowsPattern::PERMUTATION, "permutation"},
    };
};

/// tcp.stack
enum class TcpStack : uint8_t
{
    LINUX, //!< LinuxTcpStack
    NS3,   //!< ns-3's TCP over IPv4
};

template <>
struct ScenarioNames<TcpStack>
{
    static constexpr std::pair<TcpStack, const char*> kNames[] = {
        {TcpStack::LINUX, "linux"},
        {TcpStack::NS3, "ns3"},
    };
};

/// pfc_watchdog.action
enum class PfcWatchdogAction : uint8_t
{
    DROP,
    FORWARD,
    ALERT,
};

template <>
struct ScenarioNames<PfcWatchdogAction>
{
    static constexpr std::pair<PfcWatchdogAction, const char*> kNames[] = {
        {PfcWatchdogAction::DROP, "drop"},
        {PfcWatchdogAction::FORWARD, "forward"},
        {PfcWatchdogAction::ALERT, "alert"},
    };
};

/// jobs[].placement
enum class JobPlacement : uint8_t
{
    CONTIGUOUS,
    SPREAD,
    RAIL_ALIGNED,
    RANDOM,
};

template <>
struct ScenarioNames<JobPlacement>
{
    static constexpr std::pair<JobPlacement, const char*> kNames[] = {
        {JobPlacement::CONTIGUOUS, "contiguous"},
        {JobPlacement::SPREAD, "spread"},
        {JobPlacement::RAIL_ALIGNED, "rail-aligned"},
        {JobPlacement::RANDOM, "random"},
    };
};

/// gpu.model
enum class GpuModel : uint8_t
{
    H100_SXM,
    A100_SXM,
    B200,
    GB200_NVL72,
};

template <>
struct ScenarioNames<GpuModel>
{
    static constexpr std::pair<GpuModel, const char*> kNames[] = {
        {GpuModel::H100_SXM, "h100-sxm"},
        {GpuModel::A100_SXM, "a100-sxm"},
        {GpuModel::B200, "b200"},
        {GpuModel::GB200_NVL72, "gb200-nvl72"},
    };
};

/// uec.pds
enum class UecPds : uint8_t
{
    RUD, //!< reliable unordered
    ROD, //!< reliable ordered
};

template <>
struct ScenarioNames<UecPds>
{
    static constexpr std::pair<UecPds, const char*> kNames[] = {
        {UecPds::RUD, "rud"},
        {UecPds::ROD, "rod"},
    };
};

/// The scenario name of `value`.
template <typename E>
const char*
NameOf(E value)
{
    for (const auto& [e, name] : ScenarioNames<E>::kNames)
    {
        if (e == value)
        {
            return name;
        }
    }
    throw std::logic_error("an enum value without a scenario name");
}

/// Every scenario name of E, in its table's order (a schema key's allowed values).
template <typename E>
std::vector<std::string>
NamesOf()
{
    std::vector<std::string> v;
    for (const auto& entry : ScenarioNames<E>::kNames)
    {
        v.emplace_back(entry.second);
    }
    return v;
}

/// The value the scenario name `name` stands for (the schema has validated it).
template <typename E>
E
Named(const std::string& name)
{
    for (const auto& [e, n] : ScenarioNames<E>::kNames)
    {
        if (name == n)
        {
            return e;
        }
    }
    throw std::logic_error("'" + name + "' passed validation but names no value");
}

/// A scenario value in JSON is its name.
template <typename E, typename = decltype(ScenarioNames<E>::kNames)>
void
to_json(nlohmann::json& j, E value)
{
    j = NameOf(value);
}

/// A JSON name (validated) as its value: resolving parses it once.
template <typename E, typename = decltype(ScenarioNames<E>::kNames)>
void
from_json(const nlohmann::json& j, E& value)
{
    value = Named<E>(j.get<std::string>());
}

} // namespace aifabric

#endif
