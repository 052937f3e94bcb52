// SPDX-License-Identifier: GPL-2.0-only
#ifndef CSV_TRACE_WRITER_H
#define CSV_TRACE_WRITER_H

#include "ns3/simple-ref-count.h"

#include <fstream>
#include <string>
#include <type_traits>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * A small buffered CSV writer for trace sinks: a header row, then one row per call. Numbers are
 * written with full precision; strings are quoted when they contain a comma or a quote.
 * Trace sinks hold it by Ptr so one file can serve many connected sources.
 */
class CsvTraceWriter : public SimpleRefCount<CsvTraceWriter>
{
  public:
    /// Open (truncate) `path` and write the header row. Aborts if the file cannot be opened.
    CsvTraceWriter(const std::string& path, const std::vector<std::string>& columns);
    ~CsvTraceWriter();

    template <typename... Ts>
    void Row(const Ts&... values)
    {
        bool first = true;
        (Field(values, first), ...);
        m_out << '\n';
        ++m_rows;
    }

    /// Write a pre-formatted line (fields already separated by commas, no quoting).
    void RawRow(const std::string& line)
    {
        m_out << line << '\n';
        ++m_rows;
    }

    uint64_t GetRows() const;
    const std::string& GetPath() const;
    void Flush();

  private:
    void Sep(bool& first)
    {
        if (!first)
        {
            m_out << ',';
        }
        first = false;
    }

    void Field(const std::string& s, bool& first);
    void Field(const char* s, bool& first);
    void Field(double v, bool& first);

    template <typename T>
    void Field(const T& v, bool& first)
    {
        Sep(first);
        if constexpr (std::is_same_v<T, uint8_t> || std::is_same_v<T, int8_t> ||
                      std::is_same_v<T, char>)
        {
            m_out << int(v);
        }
        else
        {
            m_out << v;
        }
    }

    std::string m_path;
    std::ofstream m_out;
    uint64_t m_rows{0};
};

} // namespace ns3

#endif // CSV_TRACE_WRITER_H
