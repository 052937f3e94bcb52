// SPDX-License-Identifier: GPL-2.0-only
// libFuzzer target over Chakra traces as other tools write them: the input is split into the
// files of a trace (the first byte: 1 to 4 ranks, optionally a comm_group.json), written to a
// scratch directory and read with ChakraTrace::Read; a graph that reads is checked as
// ParallelTrainingJob checks it. Bad input must end in ChakraTraceError (one line); a crash, a
// sanitizer report, a hang or any other exception is a defect.
#include "ns3/chakra-trace.h"

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <unistd.h>
#include <vector>

namespace
{

namespace fs = std::filesystem;

const fs::path&
Scratch()
{
    static const fs::path dir =
        fs::temp_directory_path() / ("aif-chakra-fuzz-" + std::to_string(::getpid()));
    return dir;
}

} // namespace

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    if (size == 0)
    {
        return 0;
    }
    const uint32_t ranks = 1 + data[0] % 4;
    const bool groups = (data[0] & 0x80) != 0;
    const std::string body(reinterpret_cast<const char*>(data) + 1, size - 1);
    std::error_code ec;
    fs::remove_all(Scratch(), ec);
    fs::create_directories(Scratch());
    // Ranks' files split at a 0xFE 0xFD 0xFC marker (else equal parts), then comm_group.json.
    const std::string marker("\xfe\xfd\xfc", 3);
    std::vector<std::string> parts;
    size_t at = 0;
    while (parts.size() + 1 < ranks + (groups ? 1 : 0))
    {
        const size_t m = body.find(marker, at);
        if (m == std::string::npos)
        {
            break;
        }
        parts.push_back(body.substr(at, m - at));
        at = m + marker.size();
    }
    parts.push_back(body.substr(at));
    for (uint32_t r = 0; r < ranks; ++r)
    {
        std::ofstream(ns3::ChakraTrace::FileName(Scratch().string(), "trace", r), std::ios::binary)
            << (r < parts.size() ? parts[r] : std::string());
    }
    if (groups && parts.size() > ranks)
    {
        std::ofstream(Scratch() / "comm_group.json") << parts[ranks];
    }
    try
    {
        const ns3::WorkloadGraph g = ns3::ChakraTrace::Read(Scratch().string());
        (void)g.Check();
    }
    catch (const ns3::ChakraTraceError& e)
    {
        const std::string msg = e.what();
        if (msg.find('\n') != std::string::npos || msg.size() > 4000)
        {
            std::cerr << "chakra-fuzz: error message of " << msg.size()
                      << " bytes or with a newline\n";
            std::abort();
        }
    }
    catch (const std::exception& e)
    {
        std::cerr << "chakra-fuzz: escaped as " << e.what() << "\n";
        std::abort();
    }
    return 0;
}
