// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_SWEEP_H
#define AI_FABRIC_SWEEP_H

/**
 * Parameter sweeps: a base scenario, a grid of dotted keys (cartesian product), an optional
 * zip group (keys that vary together) and a list of seeds expand into points; each point is a
 * complete scenario, validated with ResolveScenario before anything runs, and is run by the
 * unchanged runner (ai-fabric-runner POINT.json --quiet --out DIR/<id>) on local cores or as
 * one task of a Slurm job array.
 *
 * A sweep directory holds:
 *   sweep.json          the manifest: sweep name, swept keys, every point (id, seed, values)
 *   points/<id>.json    the point's scenario (the runner's input)
 *   <id>/               the runner's results directory (appears only when complete)
 *   logs/<id>.log       the point's stdout and stderr; logs/<id>.exit its exit status
 *   slurm/              generated job-array scripts, their task lists and the submitted jobs
 *   gathered/           results.csv and the figures (written by Gather)
 *
 * Deliberately left out: scheduling of our own (Slurm does that), retries inside one
 * submission (re-submitting reruns exactly the unfinished points), MPI.
 */

#include "point-id.h"
#include "slurm-queue.h"
#include "sweep-directory.h"
#include "sweep-expand.h"
#include "sweep-gather.h"
#include "sweep-local.h"
#include "sweep-slurm.h"
#include "sweep-status.h"

// The whole sweep API: each part above has its own header and source file.

#endif
