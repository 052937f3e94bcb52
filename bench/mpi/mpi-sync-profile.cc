// SPDX-License-Identifier: GPL-2.0-only
//
// What a split run spends on synchronization (issue 45), measured without touching ns-3's engine:
// a library preloaded into each rank (LD_PRELOAD, through MPI's profiling interface) that counts
// and times the calls ns-3's two synchronizers make between events. DistributedSimulatorImpl
// (granted time windows) ends every window with one MPI_Allgather of every rank's next event
// time and message counts; NullMessageSimulatorImpl sends its null messages and frames with
// MPI_Isend and polls with MPI_Testany/MPI_Test; frames of both go out with MPI_Isend. At
// MPI_Finalize each rank prints one line to stderr:
//
//   mpi-sync-profile: rank R windows W (allgather S s, of which waiting for the slowest rank is
//   most), isend N (T s), test/testany K (U s)
//
// Usage: mpirun -np 2 -x LD_PRELOAD=build/bench/libmpi-sync-profile.so PROGRAM ...
// The times are wall time inside the calls (MPI_Wtime); an allgather's time is the latency of
// the collective plus the wait for the last rank to reach it (load imbalance).

#include <cstdio>
#include <mpi.h>

namespace
{

long long g_allgathers = 0;
double g_allgatherSeconds = 0;
long long g_isends = 0;
double g_isendSeconds = 0;
long long g_tests = 0;
double g_testSeconds = 0;

} // namespace

extern "C" int
MPI_Allgather(const void* sendbuf,
              int sendcount,
              MPI_Datatype sendtype,
              void* recvbuf,
              int recvcount,
              MPI_Datatype recvtype,
              MPI_Comm comm)
{
    const double t0 = PMPI_Wtime();
    const int rc = PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    g_allgatherSeconds += PMPI_Wtime() - t0;
    ++g_allgathers;
    return rc;
}

extern "C" int
MPI_Isend(const void* buf,
          int count,
          MPI_Datatype datatype,
          int dest,
          int tag,
          MPI_Comm comm,
          MPI_Request* request)
{
    const double t0 = PMPI_Wtime();
    const int rc = PMPI_Isend(buf, count, datatype, dest, tag, comm, request);
    g_isendSeconds += PMPI_Wtime() - t0;
    ++g_isends;
    return rc;
}

extern "C" int
MPI_Testany(int count, MPI_Request requests[], int* index, int* flag, MPI_Status* status)
{
    const double t0 = PMPI_Wtime();
    const int rc = PMPI_Testany(count, requests, index, flag, status);
    g_testSeconds += PMPI_Wtime() - t0;
    ++g_tests;
    return rc;
}

extern "C" int
MPI_Test(MPI_Request* request, int* flag, MPI_Status* status)
{
    const double t0 = PMPI_Wtime();
    const int rc = PMPI_Test(request, flag, status);
    g_testSeconds += PMPI_Wtime() - t0;
    ++g_tests;
    return rc;
}

extern "C" int
MPI_Finalize()
{
    int rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    std::fprintf(stderr,
                 "mpi-sync-profile: rank %d windows %lld (allgather %.3f s), isend %lld (%.3f s), "
                 "test/testany %lld (%.3f s)\n",
                 rank,
                 g_allgathers,
                 g_allgatherSeconds,
                 g_isends,
                 g_isendSeconds,
                 g_tests,
                 g_testSeconds);
    return PMPI_Finalize();
}
