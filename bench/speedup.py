#!/usr/bin/env python3
"""One worker against two, side by side in one run (docs/threads.md, "Measured").

    bench/speedup.py [--rounds R] [--bench PATH] [--box2d PATH] [--scenes a,b,...] [--side-by-side]
                     [--gaps SECONDS]

Runs every scene at 1 and at 2 workers, round after round (which count goes first alternates from
one round to the next, so a drift of the machine's speed falls on both), and prints one JSON object
a line per scene: the medians of the ms per step, the median of the rounds' 1 / 2 ratios (the
speed-up), the ratio of the fastest runs, and the range of the ratios. A run whose `state_hash`
differs between the counts is reported (`"same_bits": false`). With --box2d (the harness built as
../shared/peers/README.md says), Box2D v3's piles at 1 and 2 threads are measured in the same
rounds. Nothing here times anything itself: the figures are sinew-bench's and the harness's own.

With --side-by-side, each round also runs two one-worker copies of every scene at once and adds
`side_by_side` (the median over the rounds of the two copies' mean ms per step over the lone
one-worker run's) and `ceiling` (2 / side_by_side): what two cores give two processes that share
nothing but the machine's caches and memory, the most two workers could give if nothing of the
step stayed on one thread, no worker waited and no ball were written by both cores.

With --gaps S, each round first runs sinew-host-gaps (built beside sinew-bench) for S seconds on
every CPU, and a last line gives the share of the CPUs' time the machine took away in gaps of over
10 us and the round trip of a flag between two CPUs (the medians and the ranges over the rounds,
and each round's): a busy host's gaps hold up every barrier of a two-worker step, and a dear round
trip makes every barrier dearer, so speed-ups are worth comparing only between runs on like hosts.
Each scene's line lists its rounds' speed-ups in order (`by_round`), to set beside them.

With --quiet-ns N, each round waits until the round trip between two CPUs is under N ns (sampled
every 5 s, for at most --quiet-wait seconds; past that the run stops and says so), so that the
figures describe the machine in its quiet state only: on the Zen 5 of docs/threads.md the round
trip was 130 to 140 ns in a quiet spell and 420 to 530 ns otherwise. It says nothing about what
happens within a round; the round trips at the rounds' starts are in the last line.
"""
import argparse
import concurrent.futures
import json
import os
import statistics
import subprocess
import sys
import time

from bench_runs import DEFAULT_BENCH, box2d3, sinew_bench

SCENES = {
    "pile-10000-8x4": "--scene pile --n 10000 --substeps 8 --iterations 4 --steps 600",
    "pile-100000-4x1": "--scene pile --n 100000 --steps 120",
    "cloth-256-gs": "--scene cloth --size 256x256 --steps 60",
    "cloth-256-jacobi": "--scene cloth --size 256x256 --steps 60 --mode jacobi",
    "pile-10000-8x4-jacobi": "--scene pile --n 10000 --substeps 8 --iterations 4 --steps 300 --mode jacobi",
    # small scenes, at their defaults: issue 22 asks that none be slower with two workers than with one
    "rope-1000": "--scene rope --n 1000",
    "cloth-40": "--scene cloth --size 40x40",
    "cloth-40-jacobi": "--scene cloth --size 40x40 --mode jacobi",
    "cloth-tear-40": "--scene cloth-tear --size 40x40",
    "softbody": "--scene softbody",
    "pile-1000": "--scene pile --n 1000",
    "pile-3000": "--scene pile --n 3000",
}
BOX2D = {"box2d-pile-10000": (10000, 600), "box2d-pile-100000": (100000, 120)}


def sinew_run(bench, args, threads):
    d = sinew_bench(bench, args.split() + ["--threads", str(threads)])
    return d["ms_per_step"], d.get("state_hash")


def box2d_run(harness, n, steps, threads):
    return float(box2d3(harness, ["pile", str(n), str(threads)], steps)["ms_per_step"]), None


def host_gaps(bench, seconds, trips=100000):
    """sinew-host-gaps beside `bench`, on every CPU for `seconds`: the mean share of time lost, and
    the median of `trips` round trips between two CPUs in ns (None with one CPU)."""
    tool = os.path.join(os.path.dirname(os.path.abspath(bench)), "sinew-host-gaps")
    out = subprocess.run([tool, "--seconds", str(seconds), "--round-trips", str(trips)], capture_output=True,
                         text=True, check=True).stdout
    d = json.loads(out.strip().splitlines()[-1])
    return d["lost_share"], d.get("round_trip_ns", {}).get("median")


def wait_quiet(bench, most_ns, wait_s):
    """Waits until the round trip between two CPUs is under most_ns; False after wait_s seconds."""
    start = time.monotonic()
    while True:
        trip = host_gaps(bench, 0.05, 20000)[1]
        if trip is None or trip < most_ns:
            return True
        if time.monotonic() - start > wait_s:
            return False
        time.sleep(5.0)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=9)
    p.add_argument("--bench", default=DEFAULT_BENCH)
    p.add_argument("--box2d", help="the Box2D v3 harness (box2d3_bench), measured in the same rounds")
    p.add_argument("--scenes", help="comma-separated names among: " + ", ".join(list(SCENES) + list(BOX2D)))
    p.add_argument("--side-by-side", action="store_true",
                   help="also run two one-worker copies at once each round (adds side_by_side and ceiling)")
    p.add_argument("--gaps", type=float, metavar="SECONDS",
                   help="measure the host's gaps (sinew-host-gaps) for SECONDS at the start of each round")
    p.add_argument("--quiet-ns", type=float, metavar="NS",
                   help="start each round only once the round trip between two CPUs is under NS")
    p.add_argument("--quiet-wait", type=float, default=600.0, metavar="SECONDS",
                   help="with --quiet-ns, how long to wait for it before each round (default 600)")
    o = p.parse_args()
    runs = {k: (lambda t, a=a: sinew_run(o.bench, a, t)) for k, a in SCENES.items()}
    if o.box2d:
        runs.update({k: (lambda t, v=v: box2d_run(o.box2d, v[0], v[1], t)) for k, v in BOX2D.items()})
    if o.scenes:
        wanted = o.scenes.split(",")
        unknown = [k for k in wanted if k not in runs]
        if unknown:
            sys.exit("speedup.py: unknown scene(s) " + ", ".join(unknown))
        runs = {k: runs[k] for k in wanted}
    ms = {k: {1: [], 2: []} for k in runs}
    same = {k: True for k in runs}
    pair = {k: [] for k in runs}  # per round: the two copies' mean ms over the lone one-worker run's
    gaps, trips = [], []
    for r in range(o.rounds):
        if o.quiet_ns and not wait_quiet(o.bench, o.quiet_ns, o.quiet_wait):
            sys.exit(f"speedup.py: the round trip stayed over {o.quiet_ns:g} ns for {o.quiet_wait:g} s "
                     f"before round {r + 1}; {r} rounds done, none reported")
        if o.gaps:
            lost, trip = host_gaps(o.bench, o.gaps)
            gaps.append(lost)
            if trip is not None:
                trips.append(trip)
        for k, run in runs.items():
            got = {}
            for t in ((1, 2) if r % 2 == 0 else (2, 1)):
                got[t] = run(t)
                ms[k][t].append(got[t][0])
            same[k] = same[k] and got[1][1] == got[2][1]
            if o.side_by_side:
                with concurrent.futures.ThreadPoolExecutor(2) as pool:
                    both = list(pool.map(lambda _, run=run: run(1), range(2)))
                pair[k].append(statistics.mean(b[0] for b in both) / got[1][0])
        print(f"round {r + 1} of {o.rounds} done", file=sys.stderr, flush=True)
    for k in runs:
        one, two = ms[k][1], ms[k][2]
        ratios = [a / b for a, b in zip(one, two)]
        row = {"scene": k, "rounds": o.rounds, "ms_per_step_1": round(statistics.median(one), 3),
               "ms_per_step_2": round(statistics.median(two), 3), "speedup": round(statistics.median(ratios), 3),
               "speedup_fastest": round(min(one) / min(two), 3), "speedup_min": round(min(ratios), 3),
               "speedup_max": round(max(ratios), 3), "by_round": [round(x, 3) for x in ratios]}
        if not k.startswith("box2d"):
            row["same_bits"] = same[k]
        if o.side_by_side:
            row["side_by_side"] = round(statistics.median(pair[k]), 3)
            row["ceiling"] = round(2.0 / statistics.median(pair[k]), 3)
        print(json.dumps(row))
    if gaps:
        row = {"tool": "host_gaps", "rounds": o.rounds, "seconds": o.gaps,
               "lost_share": round(statistics.median(gaps), 4), "lost_share_min": round(min(gaps), 4),
               "lost_share_max": round(max(gaps), 4)}
        if trips:
            row.update({"round_trip_ns": statistics.median(trips), "round_trip_ns_min": min(trips),
                        "round_trip_ns_max": max(trips), "round_trip_ns_by_round": trips})
        print(json.dumps(row))


if __name__ == "__main__":
    main()
