// SPDX-License-Identifier: GPL-2.0-only
#ifndef CONNECTION_MATRIX_H
#define CONNECTION_MATRIX_H

#include "ns3/nstime.h"

#include <cstdint>
#include <exception>
#include <string>
#include <vector>

namespace ns3
{

/// One connection of a ConnectionMatrix: `bytes` from node `src` to node `dst` at `start`.
struct MatrixConnection
{
    uint32_t src{0};
    uint32_t dst{0};
    uint64_t bytes{0};
    Time start;       //!< from the start of the workload
    uint32_t id{0};   //!< the file's `id` (0: none given)
    uint32_t line{0}; //!< its line in the file (1-based)
};

/**
 * \ingroup ai-fabric
 * A connection matrix in htsim's `.cm` text format (uet-htsim, sim/datacenter/
 * connection_matrix.cpp, ConnectionMatrix::load), so the matrices htsim's generators write
 * (gen_permutation.py, gen_incast.py, ...) run here unchanged:
 *
 *     Nodes 128
 *     Connections 2
 *     # a comment
 *     103->32 id 1 start 0 size 2000000
 *     34->109 start 1500000 size 65536
 *
 * Header lines (`Nodes N`, `Connections M`, optionally `Triggers 0`, `Failures 0`) come first,
 * then exactly M connection lines `a->b` followed by `key value` pairs in any order: `start`
 * in picoseconds (htsim's unit: its parser keeps the number as picoseconds and its generators
 * write microseconds x 10^6; fractional values allowed), `size` in bytes and optionally `id`
 * (> 0). Tokens are separated by spaces or tabs; blank lines and lines starting with `#` are
 * skipped. Not supported (refused with their line): htsim's triggers (`trigger` lines, `trigger`,
 * `send_done_trigger`, `recv_done_trigger` keys), `msg`, `prio` and `failure` lines (use the
 * scenario's fault timeline for failures).
 */
class ConnectionMatrix
{
  public:
    /// Bad input: "<origin> line L: <field>: <why> (got '...')".
    class Error : public std::exception
    {
      public:
        explicit Error(std::string what)
            : m_what(std::move(what))
        {
        }

        const char* what() const noexcept override
        {
            return m_what.c_str();
        }

      private:
        std::string m_what;
    };

    /// Largest `Nodes` accepted.
    static constexpr uint32_t MAX_NODES = 1048576;
    /// Largest `size` accepted, bytes (1 TiB).
    static constexpr uint64_t MAX_BYTES = uint64_t(1) << 40;
    /// Latest `start` accepted, picoseconds (1000 s).
    static constexpr double MAX_START_PS = 1e15;

    /**
     * Parse `text`; `origin` (e.g. the file name, quoted) starts every error message.
     * Throws Error on the first bad line.
     */
    static ConnectionMatrix FromText(const std::string& text, const std::string& origin);

    uint32_t GetNodes() const;
    /// In file order.
    const std::vector<MatrixConnection>& GetConnections() const;

  private:
    uint32_t m_nodes{0};
    std::vector<MatrixConnection> m_conns;
};

} // namespace ns3

#endif // CONNECTION_MATRIX_H
