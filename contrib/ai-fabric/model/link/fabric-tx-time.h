// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_TX_TIME_H
#define FABRIC_TX_TIME_H

#include "ns3/data-rate.h"
#include "ns3/int64x64.h"
#include "ns3/nstime.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Time to move `bytes` at `rate`: the formula of DataRate::CalculateBytesTxTime
 * (Seconds(bits / bit rate) in ns-3's 64.64 fixed point), for any size. DataRate's own takes a
 * uint32_t and multiplies it by 8 in 32 bits, so from 512 MiB on its answer wraps around (a
 * 1 GiB copy took no time at all); below that the two agree to the time step.
 */
inline Time
FabricTxTime(const DataRate& rate, uint64_t bytes)
{
    return Seconds(int64x64_t(bytes * 8) / int64x64_t(rate.GetBitRate()));
}

} // namespace ns3

#endif // FABRIC_TX_TIME_H
