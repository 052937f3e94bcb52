// SPDX-License-Identifier: GPL-2.0-only
#include "double-binary-tree-collective.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(DoubleBinaryTreeCollective);

TypeId
DoubleBinaryTreeCollective::GetTypeId()
{
    static TypeId tid = TypeId("ns3::DoubleBinaryTreeCollective")
                            .SetParent<CollectiveAlgorithm>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<DoubleBinaryTreeCollective>();
    return tid;
}

std::string
DoubleBinaryTreeCollective::GetName() const
{
    return "tree";
}

std::string
DoubleBinaryTreeCollective::Check(const CollectiveSpec& spec) const
{
    std::string e = CollectiveAlgorithm::Check(spec);
    if (e.empty() && spec.op != CollectiveSpec::ALLREDUCE && !IsBuiltByBase(spec.op))
    {
        e = "the tree algorithm implements AllReduce only (use ring for " +
            std::string(CollectiveSpec::OpName(spec.op)) + ")";
    }
    return e;
}

void
DoubleBinaryTreeCollective::DoBuild(const CollectiveSpec& spec, CollectiveSchedule& s) const
{
    const uint32_t n = spec.ranks;
    const uint32_t c = spec.chunks;
    for (uint32_t tree = 0; tree < 2; ++tree)
    {
        // Heap position -> rank; tree 1 mirrors tree 0.
        auto rankAt = [&](uint32_t pos) { return tree == 0 ? pos : n - 1 - pos; };
        const uint64_t half = Part(spec.bytes, 2, tree);
        // up[pos][k]: transfer carrying chunk k from pos to its parent.
        std::vector<std::vector<uint32_t>> up(n, std::vector<uint32_t>(c, UINT32_MAX));
        for (uint32_t k = 0; k < c; ++k)
        {
            const uint64_t bytes = Part(half, c, k);
            // Reduce: children before parents (larger heap positions first).
            for (uint32_t pos = n - 1; pos >= 1; --pos)
            {
                uint32_t deps[2] = {UINT32_MAX, UINT32_MAX};
                for (uint32_t ch = 0; ch < 2; ++ch)
                {
                    const uint32_t child = 2 * pos + 1 + ch;
                    if (child < n)
                    {
                        deps[ch] = up[child][k];
                    }
                }
                up[pos][k] = s.Add(rankAt(pos), rankAt((pos - 1) / 2), bytes, deps, 2);
            }
            // Broadcast: parents before children.
            std::vector<uint32_t> down(n, UINT32_MAX);
            for (uint32_t pos = 1; pos < n; ++pos)
            {
                const uint32_t parent = (pos - 1) / 2;
                uint32_t deps[2] = {UINT32_MAX, UINT32_MAX};
                if (parent == 0)
                {
                    // The root has the chunk once both of its children delivered theirs.
                    deps[0] = 1 < n ? up[1][k] : UINT32_MAX;
                    deps[1] = 2 < n ? up[2][k] : UINT32_MAX;
                }
                else
                {
                    deps[0] = down[parent];
                }
                down[pos] = s.Add(rankAt(parent), rankAt(pos), bytes, deps, 2);
            }
        }
    }
}

} // namespace ns3
