// SPDX-License-Identifier: GPL-2.0-only
#include "scenario-plugins.h"

#include "scenario-schema.h"
#include "scenario.h"

#include <cmath>
#include <deque>
#include <sstream>

namespace aifabric
{

using nlohmann::json;

namespace
{

/// One family's plug-ins with keys: their object's section and each entry's keys.
struct PluginKeyOwner
{
    std::string section; //!< "rdma": keys under rdma.<name>.<key>
    std::string what;    //!< "congestion control"
    std::string name;
    const std::vector<ns3::PluginKey>* keys;
};

std::vector<PluginKeyOwner>
KeyOwners()
{
    std::vector<PluginKeyOwner> owners;
    for (const auto& e : ns3::RdmaCongestionRegistry::All())
    {
        if (!e.keys.empty())
        {
            owners.push_back({"rdma", "congestion control", e.name, &e.keys});
        }
    }
    return owners;
}

/// KeySpec holds C strings: the texts of the plug-ins' keys live here, for the process.
const char*
Keep(const std::string& s)
{
    static std::deque<std::string> texts;
    texts.push_back(s);
    return texts.back().c_str();
}

} // namespace

std::vector<std::string>
CongestionControlValues()
{
    std::vector<std::string> v{"auto"};
    for (const auto& name : ns3::RdmaCongestionRegistry::Names())
    {
        v.push_back(name);
    }
    return v;
}

const char*
CongestionControlHelp()
{
    std::string onFabric;
    std::string elsewhere;
    std::string clauses;
    for (const auto& e : ns3::RdmaCongestionRegistry::All())
    {
        for (const auto& f : e.autoOn)
        {
            if (f == "*")
            {
                elsewhere = e.name;
            }
            else
            {
                onFabric += e.name + " on " + f + ", ";
            }
        }
        clauses += "; " + e.name + ": " + e.help;
    }
    return Keep("RDMA congestion control (auto: " + onFabric + elsewhere + " elsewhere" + clauses +
                ")");
}

std::vector<KeySpec>
PluginSchemaKeys()
{
    std::vector<KeySpec> s;
    for (const auto& o : KeyOwners())
    {
        const std::string object = o.section + "." + o.name;
        s.push_back({Keep(object),
                     Kind::OBJ,
                     0,
                     0,
                     false,
                     false,
                     {},
                     Keep("keys of the " + o.what + " " + o.name)});
        for (const auto& k : *o.keys)
        {
            s.push_back({Keep(object + "." + k.name),
                         k.integer ? Kind::INT : Kind::NUM,
                         k.min,
                         k.max,
                         false,
                         false,
                         {},
                         Keep(k.help)});
        }
    }
    return s;
}

void
AddPluginDefaults(json& d)
{
    for (const auto& o : KeyOwners())
    {
        for (const auto& k : *o.keys)
        {
            json& v = d[o.section][o.name][k.name];
            if (k.integer)
            {
                v = static_cast<int64_t>(k.defaultValue);
            }
            else
            {
                v = k.defaultValue;
            }
        }
    }
}

ns3::PluginKeyValues
PluginValues(const json& j,
             const std::string& section,
             const std::string& name,
             const std::vector<ns3::PluginKey>& keys)
{
    ns3::PluginKeyValues values;
    for (const auto& k : keys)
    {
        values[k.name] = j.at(section).at(name).at(k.name).get<double>();
    }
    return values;
}

std::string
PluginValueText(double v)
{
    std::ostringstream os;
    if (std::floor(v) == v && std::fabs(v) < 1e18)
    {
        os << static_cast<long long>(v);
    }
    else
    {
        os.precision(17);
        os << v;
    }
    return os.str();
}

void
ResolveCongestionControl(const json& j, RunConfig& r)
{
    r.congestionControl = j["congestion_control"];
    if (r.congestionControl == "auto")
    {
        // What each fabric's NICs ship (RoCEv2: ConnectX firmware's DCQCN), as registered.
        r.congestionControl = ns3::AutoCongestionControl(r.fabric)->name;
        r.resolved["congestion_control"] = r.congestionControl;
    }
    const ns3::RdmaCongestionControlInfo* cc =
        ns3::RdmaCongestionRegistry::Find(r.congestionControl);
    r.congestionControlKeys = PluginValues(j, "rdma", cc->name, cc->keys);
}

void
CheckCongestionControl(const RunConfig& r)
{
    // fabric tcp and uec record the congestion control their own stack runs instead.
    const ns3::RdmaCongestionControlInfo* cc =
        ns3::RdmaCongestionRegistry::Find(r.congestionControl);
    if (!cc)
    {
        return;
    }
    const std::string why = cc->Check({r.fabric, r.linkGbps, r.congestionControlKeys});
    if (why.empty())
    {
        return;
    }
    std::vector<std::string> allowed{"auto"};
    for (const auto& e : ns3::RdmaCongestionRegistry::All())
    {
        ns3::PluginKeyValues defaults;
        for (const auto& k : e.keys)
        {
            defaults[k.name] = k.defaultValue;
        }
        if (e.Check({r.fabric, r.linkGbps, defaults}).empty())
        {
            allowed.push_back(e.name);
        }
    }
    throw ScenarioError("congestion_control: '" + cc->name + "' " + why + " (allowed on " +
                        r.fabric + ": " + Join(allowed) + ")");
}

} // namespace aifabric
