#!/usr/bin/env python3
"""How settled the pile ends over twelve lattices (docs/collisions.md, "the quality target").

    bench/lattices.py [--bench PATH] [--box2d PATH] [--jobs J] [--first N] [--count K] [--step S]
                      [--window] [-- SINEW_BENCH_ARGS...]

The end state of a pile is a snapshot of a chaotic system, so one N says little about a setting:
this runs the pile of N = 9,970, 9,985, ..., 10,135 balls (twelve lattices: PEERS.md's layout
changes with N) for 600 steps and prints one JSON object a line per lattice (N, max overlap / r,
max and mean speed at the end, balls outside), then a summary line: how many lattices end within
the issue's limits (max overlap at most 2% of the radius, max speed at most 0.2 m/s) and the
ranges. The arguments after `--` go to sinew-bench (default: `--substeps 8 --iterations 4`). With
--box2d, Box2D v3's harness runs the same lattices instead. The figures are deterministic (no
timing): several lattices run at once (--jobs).

Whether a pile's fastest ball is over 0.2 m/s at step 600 depends on whether a slide happens to be
under way then, so --window also looks around it: every lattice runs to step 720, and its
snapshots at steps 480, 500, ..., 720 (thirteen) are checked against the same limits. The summary
then adds how many of the 156 snapshots are within them (and over each), and for sinew how many of
those over the speed limit caught the pile at rest: no ball moved faster than 0.2 m/s on average
over the 20 steps before (`snapshots_over_speed_at_rest`; its fastest ball is then a loose ball
rattling by a few millimetres, not a slide). The step-600 figures are those of the same runs.
sinew samples one run (`--sample-every 20`); Box2D v3's harness, which prints only its end state,
runs once per snapshot (thirteen runs a lattice, about ten minutes on two cores; it is
deterministic on one thread, so a run of K steps ends where a longer one was at K).
"""
import argparse
import concurrent.futures
import json
import os
import sys

from bench_runs import DEFAULT_BENCH, box2d3, sinew_bench, sinew_bench_lines
OVERLAP_LIMIT, SPEED_LIMIT = 0.02, 0.2
WINDOW = list(range(480, 721, 20))  # --window's snapshots (steps)


def within(r):
    return r["max_overlap_ratio"] <= OVERLAP_LIMIT and r["max_speed"] <= SPEED_LIMIT


def at_rest_over_speed(q):
    """A snapshot over the speed limit in which no ball moved faster than it on average over the
    last 20 steps (sinew-bench's moved_speed): a loose ball's jitter in a pile at rest, not a slide."""
    return q["max_speed"] > SPEED_LIMIT and q["moved_speed"] <= SPEED_LIMIT


def sinew_figures(d):
    """The pile's figures from one of sinew-bench's JSON objects (a run's or a sample's)."""
    return {k: d[k] for k in ("max_overlap_ratio", "max_speed", "mean_speed", "outside")}


def box2d_figures(harness, n, steps):
    """The pile's figures from Box2D v3's harness after `steps` steps of the lattice of n balls."""
    f = box2d3(harness, ["pile", str(n), "1"], steps)
    return {"max_overlap_ratio": float(f["overlap_max_rel"]), "max_speed": float(f["vmax"]),
            "mean_speed": float(f["vmean"]), "outside": int(f["outside"])}


def window_row(n, snapshots):
    """A lattice's row from its snapshots {step: figures}: those at step 600, and the window's counts."""
    row = dict({"n": n}, **snapshots[600])
    shots = [snapshots[k] for k in WINDOW]
    row.update(snapshots=len(shots), snapshots_within=sum(within(q) for q in shots),
               snapshots_over_speed=sum(q["max_speed"] > SPEED_LIMIT for q in shots),
               snapshots_over_overlap=sum(q["max_overlap_ratio"] > OVERLAP_LIMIT for q in shots))
    if all("moved_speed" in q for q in shots):  # (sinew's samples have it, the harness's end states not)
        row["snapshots_over_speed_at_rest"] = sum(at_rest_over_speed(q) for q in shots)
    return row


def sinew_window(bench, n, extra):
    lines = sinew_bench_lines(bench, ["--scene", "pile", "--n", str(n), "--steps", str(WINDOW[-1]),
                                      "--sample-every", "20"] + extra)
    snapshots = {d["sample_step"]: dict(sinew_figures(d), moved_speed=d["moved_speed"])
                 for d in lines if "sample_step" in d}
    row = window_row(n, snapshots)
    row["state_hash"] = lines[-1].get("state_hash")  # (at step 720)
    return row


def box2d_window(harness, n):
    return window_row(n, {k: box2d_figures(harness, n, k) for k in WINDOW})


def sinew_lattice(bench, n, extra):
    d = sinew_bench(bench, ["--scene", "pile", "--n", str(n), "--steps", "600"] + extra)
    return dict({"n": n}, **sinew_figures(d), state_hash=d.get("state_hash"))


def box2d_lattice(harness, n):
    return dict({"n": n}, **box2d_figures(harness, n, 600))


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
    p.add_argument("--window", action="store_true", help="also check the snapshots at steps 480 to 720")
    o = p.parse_args(argv)
    ns = [o.first + k * o.step for k in range(o.count)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=o.jobs) as pool:
        if o.box2d:
            run = box2d_window if o.window else box2d_lattice
            rows = list(pool.map(lambda n: run(o.box2d, n), ns))
        else:
            run = sinew_window if o.window else sinew_lattice
            rows = list(pool.map(lambda n: run(o.bench, n, extra), ns))
    for r in rows:
        print(json.dumps(r))
    speeds = sorted(r["max_speed"] for r in rows)
    summary = {"engine": "box2d-v3" if o.box2d else "sinew", "settings": "" if o.box2d else " ".join(extra),
               "lattices": len(rows), "within_limits": sum(within(r) for r in rows),
               "over_speed": sum(r["max_speed"] > SPEED_LIMIT for r in rows),
               "over_overlap": sum(r["max_overlap_ratio"] > OVERLAP_LIMIT for r in rows),
               "max_overlap_ratio_range": [min(r["max_overlap_ratio"] for r in rows),
                                           max(r["max_overlap_ratio"] for r in rows)],
               "max_speed_median": speeds[len(speeds) // 2], "max_speed_worst": speeds[-1],
               "outside": sum(r["outside"] for r in rows)}
    if o.window:
        summary.update(window=[WINDOW[0], WINDOW[-1], WINDOW[1] - WINDOW[0]],
                       snapshots=sum(r["snapshots"] for r in rows),
                       snapshots_within=sum(r["snapshots_within"] for r in rows),
                       snapshots_over_speed=sum(r["snapshots_over_speed"] for r in rows),
                       snapshots_over_overlap=sum(r["snapshots_over_overlap"] for r in rows))
        if all("snapshots_over_speed_at_rest" in r for r in rows):
            summary["snapshots_over_speed_at_rest"] = sum(r["snapshots_over_speed_at_rest"] for r in rows)
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
