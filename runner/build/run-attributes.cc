// SPDX-License-Identifier: GPL-2.0-only
#include "run-attributes.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"

namespace aifabric
{

using nlohmann::json;
using namespace ns3;

namespace
{

/// Attribute values of an object, as strings.
json
DumpAttributes(Ptr<Object> o)
{
    json j = json::object();
    if (!o)
    {
        return j;
    }
    TypeId tid = o->GetInstanceTypeId();
    for (TypeId t = tid;; t = t.GetParent())
    {
        for (uint32_t i = 0; i < t.GetAttributeN(); ++i)
        {
            TypeId::AttributeInformation info = t.GetAttribute(i);
            if (!(info.flags & TypeId::ATTR_GET) || !info.accessor->HasGetter())
            {
                continue;
            }
            Ptr<AttributeValue> v = info.checker->Create();
            if (o->GetAttributeFailSafe(info.name, *v))
            {
                j[t.GetName() + "::" + info.name] = v->SerializeToString(info.checker);
            }
        }
        if (t == t.GetParent() || t.GetParent() == Object::GetTypeId() ||
            t.GetParent() == ObjectBase::GetTypeId())
        {
            break;
        }
    }
    return j;
}

} // namespace

json
MainAttributes(const Simulation& sim)
{
    const auto& topo = sim.topo;
    const auto& nics = sim.nics;
    json attrs;
    attrs["FabricNetDevice(host 0)"] = DumpAttributes(topo->GetHostDevice(0));
    {
        Ptr<FabricFlowControl> fc = topo->GetHostDevice(0)->GetFlowControl();
        attrs[fc->GetInstanceTypeId().GetName().substr(5) + "(host 0)"] = DumpAttributes(fc);
    }
    if (topo->GetNSwitches() > 0)
    {
        attrs["FabricSwitch(0)"] = DumpAttributes(topo->GetSwitch(0));
        attrs["SwitchBufferManager(0)"] = DumpAttributes(topo->GetSwitch(0)->GetBufferManager());
        attrs["FabricChannel(host 0)"] = DumpAttributes(topo->GetHostDevice(0)->GetChannel());
    }
    if (!nics.empty())
    {
        attrs["RdmaNic(host 0)"] = DumpAttributes(nics[0]);
        if (nics[0]->GetNQueuePairs() > 0)
        {
            attrs["RdmaCongestionOps(host 0, qp 1)"] =
                DumpAttributes(nics[0]->GetQueuePair(1)->GetCongestionOps());
        }
    }
    attrs["CollectiveTransport"] = DumpAttributes(sim.network);
    if (topo->GetHostNode(0)->GetObject<HostStackCostModel>())
    {
        attrs["HostStackCostModel(host 0)"] =
            DumpAttributes(topo->GetHostNode(0)->GetObject<HostStackCostModel>());
    }
    if (sim.nvlink)
    {
        attrs["NvlinkTransport"] = DumpAttributes(sim.nvlink);
    }
    if (sim.job)
    {
        // Rank 0 of the (first) job: the first GPU with an application.
        for (uint32_t h = 0; h < topo->GetNHosts(); ++h)
        {
            if (topo->GetHostNode(h)->GetNApplications() > 0)
            {
                attrs["GpuTrainingApp(rank 0)"] =
                    DumpAttributes(topo->GetHostNode(h)->GetApplication(0));
                break;
            }
        }
        attrs["TrainingJob"] = DumpAttributes(sim.job);
    }
    if (sim.flows)
    {
        attrs["FlowWorkload"] = DumpAttributes(sim.flows);
    }
    return attrs;
}

} // namespace aifabric
