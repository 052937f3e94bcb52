// SPDX-License-Identifier: GPL-2.0-only
#include "csv-trace-writer.h"

#include "ns3/abort.h"

#include <iomanip>

namespace ns3
{

CsvTraceWriter::CsvTraceWriter(const std::string& path, const std::vector<std::string>& columns)
    : m_path(path),
      m_out(path, std::ios::out | std::ios::trunc)
{
    NS_ABORT_MSG_UNLESS(m_out.is_open(), "CsvTraceWriter: cannot open '" << path << "'");
    m_out << std::setprecision(12);
    bool first = true;
    for (const auto& c : columns)
    {
        Field(c, first);
    }
    m_out << '\n';
}

CsvTraceWriter::~CsvTraceWriter()
{
    m_out.flush();
}

void
CsvTraceWriter::Field(const std::string& s, bool& first)
{
    Sep(first);
    if (s.find_first_of(",\"\n") == std::string::npos)
    {
        m_out << s;
        return;
    }
    m_out << '"';
    for (char c : s)
    {
        if (c == '"')
        {
            m_out << '"';
        }
        m_out << c;
    }
    m_out << '"';
}

void
CsvTraceWriter::Field(const char* s, bool& first)
{
    Field(std::string(s), first);
}

void
CsvTraceWriter::Field(double v, bool& first)
{
    Sep(first);
    m_out << v;
}

uint64_t
CsvTraceWriter::GetRows() const
{
    return m_rows;
}

const std::string&
CsvTraceWriter::GetPath() const
{
    return m_path;
}

void
CsvTraceWriter::Flush()
{
    m_out.flush();
}

} // namespace ns3
