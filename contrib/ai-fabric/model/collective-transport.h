// SPDX-License-Identifier: GPL-2.0-only
#ifndef COLLECTIVE_TRANSPORT_H
#define COLLECTIVE_TRANSPORT_H

#include "ns3/callback.h"
#include "ns3/object.h"

#include <string>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Transport-neutral messaging between ranks: "send N bytes from rank a to rank b, tell me when
 * they have all arrived". Collective algorithms run over it without knowing what is below:
 * RdmaCollectiveTransport (RoCEv2 queue pairs), NvlinkTransport (inside a server), and the
 * kernel-TCP transport. Messages between the same two ranks arrive in the order sent.
 */
class CollectiveTransport : public Object
{
  public:
    static TypeId GetTypeId();
    ~CollectiveTransport() override;

    virtual std::string GetName() const = 0;
    /// Send `bytes` from rank `src` to rank `dst`; call `arrived` when all are at `dst`.
    virtual void Send(uint32_t src, uint32_t dst, uint64_t bytes, Callback<void> arrived) = 0;
};

} // namespace ns3

#endif // COLLECTIVE_TRANSPORT_H
