// bench_ik3: the ik3 scene of sinew-bench (the standalone 3D chain solver, ik3.h).
#ifndef SINEW_BENCH_IK3_H
#define SINEW_BENCH_IK3_H

// Runs `solves` solves (0: the default, 20000) of an n-link chain (0: the method's default) with
// `method` ("ccd", "fabrik", "two-bone") from a "cold" or "warm" start, at most `cap` iterations a
// solve; prints one JSON line. `run` numbers repeated runs (and varies the cold targets' seed).
// Returns 0, 1 when the solver refused the chain or memory ran out, 2 for bad arguments.
int bench_ik3_run(const char *method, const char *start, int n, int solves, int cap, int run);

// True when `name` is a method the ik3 scene knows.
int bench_ik3_method_known(const char *name);

#endif
