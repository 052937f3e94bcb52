// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-topology.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/fabric-net-device.h"
#include "ns3/fabric-switch.h"
#include "ns3/node.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <limits>
#include <map>
#include <queue>
#include <sstream>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(FabricTopology);

TypeId
FabricTopology::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FabricTopology")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddConstructor<FabricTopology>()
            .AddAttribute("ValleyFree",
                          "Routes use only up-then-down paths (tiers from the intact fabric), as "
                          "eBGP in a Clos does (RFC 7938); false: any shortest path over the "
                          "links that are up (a failure may then route down and up again).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&FabricTopology::m_valleyFree),
                          MakeBooleanChecker());
    return tid;
}

FabricTopology::FabricTopology() = default;
FabricTopology::~FabricTopology() = default;

void
FabricTopology::DoDispose()
{
    m_hostDev.clear();
    m_switches.clear();
    m_links.clear();
    m_adj.clear();
    m_hostNodes = NodeContainer();
    m_switchNodes = NodeContainer();
    Object::DoDispose();
}

uint32_t
FabricTopology::AddHost(Ptr<Node> node, Ipv4Address address)
{
    NS_ABORT_MSG_IF(!m_switches.empty() || m_aggregators > 0,
                    "FabricTopology: add all hosts before aggregators and switches");
    m_hostNodes.Add(node);
    m_hostDev.emplace_back();
    m_hostAddr.push_back(address);
    m_adj.emplace_back();
    return m_hostNodes.GetN() - 1;
}

uint32_t
FabricTopology::AddAggregator(Ptr<Node> node, Ipv4Address address)
{
    NS_ABORT_MSG_IF(!m_switches.empty(), "FabricTopology: add aggregators before switches");
    m_hostNodes.Add(node);
    m_hostDev.emplace_back();
    m_hostAddr.push_back(address);
    m_adj.emplace_back();
    ++m_aggregators;
    return m_hostNodes.GetN() - 1;
}

uint32_t
FabricTopology::AddSwitch(Ptr<Node> node, Ptr<FabricSwitch> sw, const std::string& role)
{
    m_switchNodes.Add(node);
    m_switches.push_back(sw);
    m_roleOrdinal.push_back(CountSwitches(role));
    m_roles.push_back(role);
    m_adj.emplace_back();
    return GetNEndpoints() + GetNSwitches() - 1;
}

void
FabricTopology::AddLink(uint32_t a,
                        uint32_t b,
                        Ptr<FabricNetDevice> devA,
                        Ptr<FabricNetDevice> devB)
{
    const uint32_t id = static_cast<uint32_t>(m_links.size());
    m_links.push_back(FabricLinkInfo{a, b, devA, devB});
    m_adj[a].push_back(Adj{b, id});
    m_adj[b].push_back(Adj{a, id});
    const uint32_t h = GetNEndpoints();
    if (a < h)
    {
        m_hostDev[a].push_back(devA);
        devA->SetIpv4Address(m_hostAddr[a]);
    }
    if (b < h)
    {
        m_hostDev[b].push_back(devB);
        devB->SetIpv4Address(m_hostAddr[b]);
    }
}

void
FabricTopology::SetServerShape(uint32_t servers, uint32_t gpusPerServer)
{
    m_servers = servers;
    m_gpusPerServer = gpusPerServer;
}

void
FabricTopology::SetBisectionBandwidth(double bps)
{
    m_bisection = bps;
}

void
FabricTopology::SetKind(const std::string& kind)
{
    m_kind = kind;
}

const std::string&
FabricTopology::GetKind() const
{
    return m_kind;
}

uint32_t
FabricTopology::GetNHosts() const
{
    return m_hostNodes.GetN() - m_aggregators;
}

uint32_t
FabricTopology::GetNEndpoints() const
{
    return m_hostNodes.GetN();
}

uint32_t
FabricTopology::GetNAggregators() const
{
    return m_aggregators;
}

uint32_t
FabricTopology::GetAggregatorOf(uint32_t j) const
{
    return j < m_aggregators ? GetNHosts() + j : UINT32_MAX;
}

uint32_t
FabricTopology::GetNSwitches() const
{
    return static_cast<uint32_t>(m_switches.size());
}

uint32_t
FabricTopology::GetNLinks() const
{
    return static_cast<uint32_t>(m_links.size());
}

uint32_t
FabricTopology::GetNServers() const
{
    return m_servers;
}

uint32_t
FabricTopology::GetGpusPerServer() const
{
    return m_gpusPerServer;
}

Ptr<Node>
FabricTopology::GetHostNode(uint32_t i) const
{
    return m_hostNodes.Get(i);
}

Ptr<FabricNetDevice>
FabricTopology::GetHostDevice(uint32_t i) const
{
    const auto& ports = m_hostDev.at(i);
    return ports.empty() ? nullptr : ports.front();
}

Ptr<FabricNetDevice>
FabricTopology::GetHostDevice(uint32_t i, uint32_t port) const
{
    return m_hostDev.at(i).at(port);
}

uint32_t
FabricTopology::GetNHostPorts(uint32_t i) const
{
    return static_cast<uint32_t>(m_hostDev.at(i).size());
}

uint64_t
FabricTopology::GetHostRate(uint32_t i) const
{
    uint64_t bps = 0;
    for (const auto& d : m_hostDev.at(i))
    {
        bps += d->GetDataRate().GetBitRate();
    }
    return bps;
}

Ipv4Address
FabricTopology::GetHostAddress(uint32_t i) const
{
    return m_hostAddr.at(i);
}

uint32_t
FabricTopology::GetHostIndex(uint32_t server, uint32_t gpu) const
{
    NS_ABORT_MSG_IF(gpu >= m_gpusPerServer || server * m_gpusPerServer + gpu >= GetNHosts(),
                    "FabricTopology: no GPU " << gpu << " on server " << server);
    return server * m_gpusPerServer + gpu;
}

Ptr<Node>
FabricTopology::GetHost(uint32_t server, uint32_t gpu) const
{
    return GetHostNode(GetHostIndex(server, gpu));
}

int32_t
FabricTopology::FindHost(Ipv4Address a) const
{
    for (uint32_t i = 0; i < m_hostAddr.size(); ++i)
    {
        if (m_hostAddr[i] == a)
        {
            return static_cast<int32_t>(i);
        }
    }
    return -1;
}

Ptr<Node>
FabricTopology::GetSwitchNode(uint32_t j) const
{
    return m_switchNodes.Get(j);
}

Ptr<FabricSwitch>
FabricTopology::GetSwitch(uint32_t j) const
{
    return m_switches.at(j);
}

const std::string&
FabricTopology::GetSwitchRole(uint32_t j) const
{
    return m_roles.at(j);
}

uint32_t
FabricTopology::CountSwitches(const std::string& role) const
{
    return static_cast<uint32_t>(std::count(m_roles.begin(), m_roles.end(), role));
}

NodeContainer
FabricTopology::GetHosts() const
{
    if (m_aggregators == 0)
    {
        return m_hostNodes;
    }
    NodeContainer hosts;
    for (uint32_t i = 0; i < GetNHosts(); ++i)
    {
        hosts.Add(m_hostNodes.Get(i));
    }
    return hosts;
}

NodeContainer
FabricTopology::GetEndpoints() const
{
    return m_hostNodes;
}

NodeContainer
FabricTopology::GetSwitches() const
{
    return m_switchNodes;
}

const std::vector<FabricLinkInfo>&
FabricTopology::GetLinks() const
{
    return m_links;
}

double
FabricTopology::GetBisectionBandwidth() const
{
    return m_bisection;
}

double
FabricTopology::MaxFlow(const std::vector<uint32_t>& from, const std::vector<uint32_t>& to) const
{
    // Dinic on a graph with capacities in bit/s (doubles: rates are exact multiples of 1 b/s).
    const uint32_t n = GetNEndpoints() + GetNSwitches();
    const uint32_t src = n;
    const uint32_t dst = n + 1;

    struct Edge
    {
        uint32_t to;
        double cap;
    };

    std::vector<Edge> edges;
    std::vector<std::vector<uint32_t>> g(n + 2);
    auto add = [&](uint32_t a, uint32_t b, double c) {
        g[a].push_back(static_cast<uint32_t>(edges.size()));
        edges.push_back(Edge{b, c});
        g[b].push_back(static_cast<uint32_t>(edges.size()));
        edges.push_back(Edge{a, 0.0});
    };
    // Hosts do not forward: a host's cables carry flow out of a source host and into a sink
    // host only (with several NIC ports, a host would otherwise join two planes).
    const uint32_t h = GetNEndpoints();
    std::vector<uint8_t> role(h, 0); // bit 0: in `from`, bit 1: in `to`
    for (uint32_t v : from)
    {
        role[v] |= 1;
    }
    for (uint32_t v : to)
    {
        role[v] |= 2;
    }
    auto carries = [&](uint32_t a, uint32_t b) {
        return (a >= h || (role[a] & 1)) && (b >= h || (role[b] & 2));
    };
    for (const auto& l : m_links)
    {
        double r = double(l.devA->GetDataRate().GetBitRate());
        if (carries(l.a, l.b))
        {
            add(l.a, l.b, r);
        }
        if (carries(l.b, l.a))
        {
            add(l.b, l.a, r);
        }
    }
    for (uint32_t s : from)
    {
        add(src, s, double(GetHostRate(s)));
    }
    for (uint32_t t : to)
    {
        add(t, dst, double(GetHostRate(t)));
    }
    double flow = 0;
    std::vector<int32_t> level(n + 2);
    std::vector<uint32_t> it(n + 2);
    const double eps = 1e-6;
    std::function<double(uint32_t, double)> dfs = [&](uint32_t v, double f) -> double {
        if (v == dst)
        {
            return f;
        }
        for (; it[v] < g[v].size(); ++it[v])
        {
            Edge& e = edges[g[v][it[v]]];
            if (e.cap > eps && level[e.to] == level[v] + 1)
            {
                double d = dfs(e.to, std::min(f, e.cap));
                if (d > eps)
                {
                    e.cap -= d;
                    edges[g[v][it[v]] ^ 1].cap += d;
                    return d;
                }
            }
        }
        return 0.0;
    };
    for (;;)
    {
        std::fill(level.begin(), level.end(), -1);
        std::queue<uint32_t> q;
        level[src] = 0;
        q.push(src);
        while (!q.empty())
        {
            uint32_t v = q.front();
            q.pop();
            for (uint32_t id : g[v])
            {
                if (edges[id].cap > eps && level[edges[id].to] < 0)
                {
                    level[edges[id].to] = level[v] + 1;
                    q.push(edges[id].to);
                }
            }
        }
        if (level[dst] < 0)
        {
            break;
        }
        std::fill(it.begin(), it.end(), 0);
        while (double f = dfs(src, std::numeric_limits<double>::infinity()))
        {
            flow += f;
        }
    }
    return flow;
}

int64_t
FabricTopology::AssignStreams(int64_t stream)
{
    int64_t used = 0;
    for (const auto& l : m_links)
    {
        used += l.devA->AssignStreams(stream + used);
        used += l.devB->AssignStreams(stream + used);
    }
    for (const auto& sw : m_switches)
    {
        used += sw->AssignStreams(stream + used);
    }
    return used;
}

std::string
FabricTopology::GetVertexName(uint32_t v) const
{
    if (v < GetNHosts())
    {
        return "gpu" + std::to_string(v);
    }
    if (v < GetNEndpoints())
    {
        return "sharp" + std::to_string(v - GetNHosts());
    }
    const uint32_t j = v - GetNEndpoints();
    NS_ABORT_MSG_IF(j >= m_switches.size(), "FabricTopology: no vertex " << v);
    return m_roles[j] + std::to_string(m_roleOrdinal[j]);
}

int32_t
FabricTopology::FindVertex(const std::string& name) const
{
    size_t digits = name.size();
    while (digits > 0 && std::isdigit(static_cast<unsigned char>(name[digits - 1])))
    {
        --digits;
    }
    if (digits == name.size() || digits == 0 || name.size() - digits > 9)
    {
        return -1;
    }
    const std::string role = name.substr(0, digits);
    const uint32_t k = static_cast<uint32_t>(std::stoul(name.substr(digits)));
    if (std::to_string(k) != name.substr(digits))
    {
        return -1; // leading zeros: not a name we give
    }
    if (role == "gpu")
    {
        return k < GetNHosts() ? int32_t(k) : -1;
    }
    if (role == "sharp")
    {
        return k < m_aggregators ? int32_t(GetNHosts() + k) : -1;
    }
    for (uint32_t j = 0; j < m_switches.size(); ++j)
    {
        if (m_roleOrdinal[j] == k && m_roles[j] == role)
        {
            return int32_t(GetNEndpoints() + j);
        }
    }
    return -1;
}

void
FabricTopology::NameLinks() const
{
    if (m_linkNames.size() == m_links.size())
    {
        return;
    }
    m_linkNames.clear();
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> seen;
    for (const auto& l : m_links)
    {
        const uint32_t k = seen[{l.a, l.b}]++;
        m_linkNames.push_back(GetVertexName(l.a) + "-" + GetVertexName(l.b) +
                              (k > 0 ? "." + std::to_string(k) : std::string()));
    }
}

const std::string&
FabricTopology::GetLinkName(uint32_t l) const
{
    NameLinks();
    return m_linkNames.at(l);
}

int32_t
FabricTopology::FindLink(const std::string& name) const
{
    NameLinks();
    const auto it = std::find(m_linkNames.begin(), m_linkNames.end(), name);
    return it == m_linkNames.end() ? -1 : int32_t(it - m_linkNames.begin());
}

uint64_t
FabricTopology::GetLinkRate(uint32_t l) const
{
    return m_links.at(l).devA->GetDataRate().GetBitRate();
}

std::string
FabricTopology::Describe() const
{
    std::ostringstream os;
    os << m_kind << ": " << GetNHosts() << " hosts";
    if (m_servers > 0)
    {
        os << " (" << m_servers << " servers x " << m_gpusPerServer << " GPUs)";
    }
    if (m_aggregators > 0)
    {
        os << ", " << m_aggregators << " in-network aggregation nodes";
    }
    std::map<std::string, uint32_t> roles;
    for (const auto& r : m_roles)
    {
        ++roles[r];
    }
    os << ", " << GetNSwitches() << " switches (";
    bool first = true;
    for (const auto& kv : roles)
    {
        os << (first ? "" : ", ") << kv.second << " " << kv.first;
        first = false;
    }
    os << "), " << GetNLinks() << " links, bisection " << m_bisection / 1e9 << " Gb/s";
    return os.str();
}

} // namespace ns3
