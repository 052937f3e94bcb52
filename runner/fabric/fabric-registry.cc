// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-registry.h"

#include "scenario-plugins.h"

#include "ns3/abort.h"

#include <deque>

namespace ns3
{
template <>
std::vector<aifabric::FabricInfo>&
PluginRegistry<aifabric::FabricInfo>::Entries()
{
    static std::vector<aifabric::FabricInfo> entries;
    return entries;
}
} // namespace ns3

namespace aifabric
{

const FabricInfo&
FabricNamed(const std::string& name)
{
    const FabricInfo* f = FabricRegistry::Find(name);
    NS_ABORT_MSG_IF(f == nullptr, "no fabric registered as '" << name << "'");
    return *f;
}

const FabricInfo&
FabricOf(const RunConfig& r)
{
    return FabricNamed(r.fabric.name);
}

const std::string&
DefaultFabric()
{
    for (const FabricInfo& f : FabricRegistry::All())
    {
        if (f.isDefault)
        {
            return f.name;
        }
    }
    NS_ABORT_MSG("no fabric registered as the default");
}

const char*
FabricHelp()
{
    // KeySpec holds C strings: the text lives for the process.
    static const std::string text = "transport (" + HelpClauses<FabricRegistry>() + ")";
    return text.c_str();
}

std::vector<KeySpec>
FabricSchemaKeys()
{
    std::vector<KeySpec> keys;
    for (const FabricInfo& f : FabricRegistry::All())
    {
        if (f.schemaKeys)
        {
            for (KeySpec& k : f.schemaKeys())
            {
                keys.push_back(std::move(k));
            }
        }
    }
    return keys;
}

void
ResolveFabrics(const nlohmann::json& j, RunConfig& r)
{
    for (const FabricInfo& f : FabricRegistry::All())
    {
        if (f.resolve)
        {
            f.resolve(j, r);
        }
    }
}

} // namespace aifabric
