// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_FLAGGED_TRACE_H
#define FABRIC_FLAGGED_TRACE_H

#include "ns3/traced-callback.h"

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * A TracedCallback that keeps one bit of its owner's mask equal to "has a sink".
 *
 * The per-frame path of a device asks several trace sources whether anyone listens. Each
 * TracedCallback keeps its sink list in its own 24 bytes, so these questions read several cache
 * lines per frame, which on a large fabric are cold. With this class the owner reads one byte
 * instead (`mask & bit`). The bit follows every Connect and Disconnect, including those made
 * through the attribute system (TraceConnect, Config::Connect): ns-3's trace-source accessor
 * calls these functions on the member's own type.
 */
template <typename... Ts>
class FabricFlaggedTrace : public TracedCallback<Ts...>
{
  public:
    /// Keep bit `bit` of `*mask` set while this source has at least one sink.
    void Bind(uint8_t* mask, uint8_t bit)
    {
        m_mask = mask;
        m_bit = bit;
        Update();
    }

    void ConnectWithoutContext(const CallbackBase& callback)
    {
        TracedCallback<Ts...>::ConnectWithoutContext(callback);
        Update();
    }

    void Connect(const CallbackBase& callback, std::string path)
    {
        TracedCallback<Ts...>::Connect(callback, path);
        Update();
    }

    void DisconnectWithoutContext(const CallbackBase& callback)
    {
        TracedCallback<Ts...>::DisconnectWithoutContext(callback);
        Update();
    }

    void Disconnect(const CallbackBase& callback, std::string path)
    {
        TracedCallback<Ts...>::Disconnect(callback, path);
        Update();
    }

  private:
    void Update()
    {
        if (m_mask != nullptr)
        {
            *m_mask = this->IsEmpty() ? static_cast<uint8_t>(*m_mask & ~m_bit)
                                      : static_cast<uint8_t>(*m_mask | m_bit);
        }
    }

    uint8_t* m_mask{nullptr};
    uint8_t m_bit{0};
};

} // namespace ns3

#endif // FABRIC_FLAGGED_TRACE_H
