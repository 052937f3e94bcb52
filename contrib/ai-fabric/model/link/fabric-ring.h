// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_RING_H
#define FABRIC_RING_H

#include <cstddef>
#include <new>
#include <utility>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * A growable FIFO ring buffer. Queues on the per-packet path use it instead of std::deque so a
 * steady-state queue performs no allocation at all (capacity doubles, never shrinks).
 *
 * Slots are raw storage: an element is constructed in place when pushed and destroyed when
 * popped, so pushing into a free slot only writes it. In a large simulation the slot a cable or
 * queue writes next was last used many thousands of events ago and is no longer cached; a
 * store can retire while its line is fetched, where an assignment (which first reads the old
 * value) stalls on it.
 */
template <typename T, size_t CellAlign = alignof(T)>
class FabricRing
{
  public:
    FabricRing() = default; // no storage until the first push: idle ports cost nothing
    FabricRing(const FabricRing&) = delete;
    FabricRing& operator=(const FabricRing&) = delete;

    ~FabricRing()
    {
        Clear();
        Deallocate(m_buf);
    }

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
        return *Slot(m_head);
    }

    const T& Front() const
    {
        return *Slot(m_head);
    }

    T& Back()
    {
        return *Slot(m_head + m_count - 1);
    }

    /// \return element i positions from the front (0 = front)
    const T& At(size_t i) const
    {
        return *Slot(m_head + i);
    }

    /// Construct an element at the back from `args`. \return it
    template <typename... Args>
    T& EmplaceBack(Args&&... args)
    {
        if (m_count == m_capacity)
        {
            Grow();
        }
        T* p = new (Slot(m_head + m_count)) T(std::forward<Args>(args)...);
        ++m_count;
        return *p;
    }

    void PushBack(T&& v)
    {
        EmplaceBack(std::move(v));
    }

    void PushBack(const T& v)
    {
        EmplaceBack(v);
    }

    /// Remove the front element and return it.
    T PopFront()
    {
        T* p = Slot(m_head);
        T v(std::move(*p));
        p->~T();
        Advance();
        return v;
    }

    /// Move the front element into raw storage at `where` and remove it. \return the new element
    T* PopFrontTo(void* where)
    {
        T* p = Slot(m_head);
        T* q = new (where) T(std::move(*p));
        p->~T();
        Advance();
        return q;
    }

    /// Destroy the front element (its owner has used it in place).
    void DiscardFront()
    {
        Slot(m_head)->~T();
        Advance();
    }

    /// Remove the front element into `out` (one move, where `out = PopFront()` takes two).
    void PopFrontInto(T& out)
    {
        T* p = Slot(m_head);
        out = std::move(*p);
        p->~T();
        Advance();
    }

    void Clear()
    {
        while (m_count > 0)
        {
            Slot(m_head)->~T();
            m_head = (m_head + 1) & (m_capacity - 1);
            --m_count;
        }
    }

  private:
    void Advance()
    {
        // An emptied ring starts again at slot 0, so a queue that holds a few frames at a time
        // keeps using the same few cache lines instead of cycling through all of its storage.
        m_head = --m_count == 0 ? 0 : (m_head + 1) & (m_capacity - 1);
    }

    /// One slot's raw storage, aligned to CellAlign (at least T's own alignment): with
    /// CellAlign 64 a slot starts on a cache line, so an element of up to 128 bytes touches two
    /// lines, not the three that an element straddling line boundaries can.
    struct alignas(CellAlign > alignof(T) ? CellAlign : alignof(T)) Cell
    {
        unsigned char raw[sizeof(T)];
    };

    T* Slot(size_t i) const
    {
        return std::launder(reinterpret_cast<T*>(m_buf[i & (m_capacity - 1)].raw));
    }

    static Cell* Allocate(size_t n)
    {
        return static_cast<Cell*>(
            ::operator new(n * sizeof(Cell), std::align_val_t(alignof(Cell))));
    }

    static void Deallocate(Cell* p)
    {
        if (p != nullptr)
        {
            ::operator delete(p, std::align_val_t(alignof(Cell)));
        }
    }

    void Grow()
    {
        const size_t capacity = m_capacity == 0 ? 2 : m_capacity * 2;
        Cell* bigger = Allocate(capacity);
        for (size_t i = 0; i < m_count; ++i)
        {
            T* p = Slot(m_head + i);
            new (bigger[i].raw) T(std::move(*p));
            p->~T();
        }
        Deallocate(m_buf);
        m_buf = bigger;
        m_capacity = capacity;
        m_head = 0;
    }

    Cell* m_buf{nullptr}; //!< storage for m_capacity elements, a power of two
    size_t m_capacity{0};
    size_t m_head{0};
    size_t m_count{0};
};

} // namespace ns3

#endif // FABRIC_RING_H
