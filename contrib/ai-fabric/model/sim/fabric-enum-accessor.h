// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_ENUM_ACCESSOR_H
#define FABRIC_ENUM_ACCESSOR_H

#include "ns3/enum.h"

namespace ns3
{
namespace fabric_detail
{

// ns-3.41 made EnumValue a template and MakeEnumAccessor<T>(...) needs the enum type; 3.37
// deduces everything from the argument. Exactly one of these overloads is well-formed in each.
template <typename E, typename F>
auto
EnumAccessor(F f, int) -> decltype(MakeEnumAccessor<E>(f))
{
    return MakeEnumAccessor<E>(f);
}

template <typename E, typename F>
auto
EnumAccessor(F f, long) -> decltype(MakeEnumAccessor(f))
{
    return MakeEnumAccessor(f);
}

} // namespace fabric_detail

/**
 * \ingroup ai-fabric
 * MakeEnumAccessor for an attribute of enum type E, on every ns-3 release from 3.37 on.
 */
template <typename E, typename F>
Ptr<const AttributeAccessor>
MakeFabricEnumAccessor(F f)
{
    return fabric_detail::EnumAccessor<E>(f, 0);
}

} // namespace ns3

#endif // FABRIC_ENUM_ACCESSOR_H
