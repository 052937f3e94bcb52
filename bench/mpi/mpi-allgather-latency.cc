// SPDX-License-Identifier: GPL-2.0-only
//
// The floor of a granted time window's cost (issue 45): DistributedSimulatorImpl ends every window
// with one MPI_Allgather of each rank's 40-byte LbtsMessage (its next event time, message counts
// and whether it is finished). Here the ranks do nothing else: --rounds allgathers of 40 bytes
// (10,000 after 1,000 for warm-up), and rank 0 prints the mean, median and 99th percentile of
// one, in microseconds. What a rank waits for the slowest one in a real run comes on top.
//
//   mpirun -np N mpi-allgather-latency [--rounds=R]
// Exit 2 on bad usage.

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mpi.h>
#include <vector>

int
main(int argc, char* argv[])
{
    MPI_Init(&argc, &argv);
    long rounds = 10000;
    for (int i = 1; i < argc; ++i)
    {
        if (std::strncmp(argv[i], "--rounds=", 9) == 0)
        {
            rounds = std::strtol(argv[i] + 9, nullptr, 10);
        }
        else
        {
            std::fprintf(stderr,
                         "mpi-allgather-latency: unknown argument %s (--rounds=R)\n",
                         argv[i]);
            MPI_Finalize();
            return 2;
        }
    }
    if (rounds < 1 || rounds > 10000000)
    {
        std::fprintf(stderr, "mpi-allgather-latency: --rounds must be 1..10000000\n");
        MPI_Finalize();
        return 2;
    }
    int rank = 0;
    int size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    constexpr int kBytes = 40;
    std::vector<char> mine(kBytes, static_cast<char>(rank));
    std::vector<char> all(static_cast<size_t>(kBytes) * size);
    for (int k = 0; k < 1000; ++k)
    {
        MPI_Allgather(mine.data(), kBytes, MPI_BYTE, all.data(), kBytes, MPI_BYTE, MPI_COMM_WORLD);
    }
    std::vector<double> us(static_cast<size_t>(rounds));
    for (long k = 0; k < rounds; ++k)
    {
        const double t0 = MPI_Wtime();
        MPI_Allgather(mine.data(), kBytes, MPI_BYTE, all.data(), kBytes, MPI_BYTE, MPI_COMM_WORLD);
        us[static_cast<size_t>(k)] = (MPI_Wtime() - t0) * 1e6;
    }
    if (rank == 0)
    {
        double sum = 0;
        for (double v : us)
        {
            sum += v;
        }
        std::sort(us.begin(), us.end());
        std::printf(
            "ranks %d, %ld allgathers of %d bytes: mean %.2f us, median %.2f us, p99 %.2f us\n",
            size,
            rounds,
            kBytes,
            sum / double(rounds),
            us[us.size() / 2],
            us[std::min(us.size() - 1, us.size() * 99 / 100)]);
    }
    MPI_Finalize();
    return 0;
}
