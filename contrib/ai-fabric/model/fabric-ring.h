// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_RING_H
#define FABRIC_RING_H

#include <cstddef>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * A growable FIFO ring buffer. Queues on the per-packet path use it instead of std::deque so a
 * steady-state queue performs no allocation at all (capacity doubles, never shrinks).
 */
template <typename T>
class FabricRing
{
  public:
    FabricRing() = default; // no storage until the first push: idle ports cost nothing

    bool Empty() const
    {
        return m_count == 0;
    }

    size_t Size() const
    {
        return m_count;
    }

    T& Front()
    {
        return m_buf[m_head];
    }

    const T& Front() const
    {
        return m_buf[m_head];
    }

    T& Back()
    {
        return m_buf[(m_head + m_count - 1) & (m_buf.size() - 1)];
    }

    /// \return element i positions from the front (0 = front)
    const T& At(size_t i) const
    {
        return m_buf[(m_head + i) & (m_buf.size() - 1)];
    }

    void PushBack(T&& v)
    {
        if (m_count == m_buf.size())
        {
            Grow();
        }
        m_buf[(m_head + m_count) & (m_buf.size() - 1)] = std::move(v);
        ++m_count;
    }

    void PushBack(const T& v)
    {
        T copy = v;
        PushBack(std::move(copy));
    }

    /// Remove the front element and return it.
    T PopFront()
    {
        T v = std::move(m_buf[m_head]);
        m_buf[m_head] = T();
        m_head = (m_head + 1) & (m_buf.size() - 1);
        --m_count;
        return v;
    }

    void Clear()
    {
        while (m_count > 0)
        {
            PopFront();
        }
    }

  private:
    void Grow()
    {
        std::vector<T> bigger(m_buf.empty() ? 8 : m_buf.size() * 2);
        for (size_t i = 0; i < m_count; ++i)
        {
            bigger[i] = std::move(m_buf[(m_head + i) & (m_buf.size() - 1)]);
        }
        m_buf.swap(bigger);
        m_head = 0;
    }

    std::vector<T> m_buf; //!< storage; size is a power of two
    size_t m_head{0};
    size_t m_count{0};
};

} // namespace ns3

#endif // FABRIC_RING_H
