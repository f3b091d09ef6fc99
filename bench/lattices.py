#!/usr/bin/env python3
"""How settled the pile ends over twelve lattices (docs/collisions.md, "the quality target").

    bench/lattices.py [--bench PATH] [--box2d PATH] [--jobs J] [--first N] [--count K] [--step S]
                      [-- SINEW_BENCH_ARGS...]

The end state of a pile is a snapshot of a chaotic system, so one N says little about a setting:
this runs the pile of N = 9,970, 9,985, ..., 10,135 balls (twelve lattices: PEERS.md's layout
changes with N) for 600 steps and prints one JSON object a line per lattice (N, max overlap / r,
max and mean speed at the end, balls outside), then a summary line: how many lattices end within
the issue's limits (max overlap at most 2% of the radius, max speed at most 0.2 m/s) and the
ranges. The arguments after `--` go to sinew-bench (default: `--substeps 8 --iterations 4`). With
--box2d, Box2D v3's harness runs the same lattices instead. The figures are deterministic (no
timing): several lattices run at once (--jobs).
"""
import argparse
import concurrent.futures
import json
import os
import sys

from bench_runs import DEFAULT_BENCH, box2d3, sinew_bench
OVERLAP_LIMIT, SPEED_LIMIT = 0.02, 0.2


def sinew_lattice(bench, n, extra):
    d = sinew_bench(bench, ["--scene", "pile", "--n", str(n), "--steps", "600"] + extra)
    return {"n": n, "max_overlap_ratio": d["max_overlap_ratio"], "max_speed": d["max_speed"],
            "mean_speed": d["mean_speed"], "outside": d["outside"], "state_hash": d.get("state_hash")}


def box2d_lattice(harness, n):
    f = box2d3(harness, ["pile", str(n), "1"], 600)
    return {"n": n, "max_overlap_ratio": float(f["overlap_max_rel"]), "max_speed": float(f["vmax"]),
            "mean_speed": float(f["vmean"]), "outside": int(f["outside"])}


def main():
    argv = sys.argv[1:]
    extra = ["--substeps", "8", "--iterations", "4"]
    if "--" in argv:
        at = argv.index("--")
        argv, extra = argv[:at], argv[at + 1:]
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bench", default=DEFAULT_BENCH)
    p.add_argument("--box2d", help="the Box2D v3 harness (box2d3_bench): run it on the lattices instead")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--first", type=int, default=9970)
    p.add_argument("--count", type=int, default=12)
    p.add_argument("--step", type=int, default=15)
    o = p.parse_args(argv)
    ns = [o.first + k * o.step for k in range(o.count)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=o.jobs) as pool:
        if o.box2d:
            rows = list(pool.map(lambda n: box2d_lattice(o.box2d, n), ns))
        else:
            rows = list(pool.map(lambda n: sinew_lattice(o.bench, n, extra), ns))
    for r in rows:
        print(json.dumps(r))
    within = [r for r in rows if r["max_overlap_ratio"] <= OVERLAP_LIMIT and r["max_speed"] <= SPEED_LIMIT]
    speeds = sorted(r["max_speed"] for r in rows)
    print(json.dumps({"engine": "box2d-v3" if o.box2d else "sinew", "settings": "" if o.box2d else " ".join(extra),
                      "lattices": len(rows), "within_limits": len(within),
                      "over_speed": sum(r["max_speed"] > SPEED_LIMIT for r in rows),
                      "over_overlap": sum(r["max_overlap_ratio"] > OVERLAP_LIMIT for r in rows),
                      "max_overlap_ratio_range": [min(r["max_overlap_ratio"] for r in rows),
                                                  max(r["max_overlap_ratio"] for r in rows)],
                      "max_speed_median": speeds[len(speeds) // 2], "max_speed_worst": speeds[-1],
                      "outside": sum(r["outside"] for r in rows)}))


if __name__ == "__main__":
    main()
