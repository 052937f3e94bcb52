// SPDX-License-Identifier: GPL-2.0-only
#ifndef PLUGIN_REGISTRY_H
#define PLUGIN_REGISTRY_H

#include "ns3/abort.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * One scenario key a plug-in owns: a number under "<family section>.<plug-in name>.<name>"
 * (e.g. "rdma.my-cc.gain"), with its range, default and help. The runner lists it in --help,
 * validates it ("bad value -> exit 2 naming the key") and hands its value to the plug-in.
 */
struct PluginKey
{
    std::string name;          //!< the key under the plug-in's object
    double min;                //!< smallest allowed value
    double max;                //!< largest allowed value
    double defaultValue;       //!< its value when the scenario does not set it
    bool integer;              //!< a whole number (INT) rather than a real (NUM)
    std::string help;          //!< one clause for --help, with its unit
    std::string attribute{""}; //!< attribute of the plug-in's TypeId it sets ("": none)
};

/// A plug-in's key values by key name (every key of the plug-in, defaults filled in).
using PluginKeyValues = std::map<std::string, double>;

/**
 * The entries of one plug-in family (congestion controls, topologies, collective algorithms),
 * by their scenario name. An entry registers itself in its own .cc when the library loads, as
 * NS_OBJECT_ENSURE_REGISTERED registers a TypeId:
 *
 *   static const bool g_registered = RdmaCongestionRegistry::Add({"hpcc", ...});
 *
 * Entries are kept sorted by name, so nothing depends on the order libraries initialise in.
 * The scenario level (the runner, the tuner) iterates a registry; it never compares names.
 * Entry needs a `name` member. Each family defines Entries() in its own .cc (one list per
 * process, whichever object file registers).
 */
template <class Entry>
class PluginRegistry
{
  public:
    /// Adds `e`; aborts on a second entry of the same name (two plug-ins may not share one).
    static bool Add(Entry e)
    {
        std::vector<Entry>& v = Entries();
        auto it =
            std::lower_bound(v.begin(), v.end(), e.name, [](const Entry& a, const std::string& n) {
                return a.name < n;
            });
        NS_ABORT_MSG_IF(it != v.end() && it->name == e.name,
                        "two plug-ins registered as '" << e.name << "'");
        v.insert(it, std::move(e));
        return true;
    }

    /// The entry named `name`, or null.
    static const Entry* Find(const std::string& name)
    {
        for (const Entry& e : Entries())
        {
            if (e.name == name)
            {
                return &e;
            }
        }
        return nullptr;
    }

    /// Every entry, sorted by name.
    static const std::vector<Entry>& All()
    {
        return Entries();
    }

    /// Every entry's name, sorted.
    static std::vector<std::string> Names()
    {
        std::vector<std::string> names;
        for (const Entry& e : Entries())
        {
            names.push_back(e.name);
        }
        return names;
    }

  private:
    static std::vector<Entry>& Entries();
};

} // namespace ns3

#endif
