#!/usr/bin/env python3
"""ns per projection, Gauss-Seidel and Jacobi, AVX2 and portable kernels (docs/solver.md).

    bench/projection_table.py [--rounds R] [--bench PATH]

Runs each scene in both modes on both kernel paths (SINEW_PORTABLE=1 for the portable ones),
round after round, and prints one JSON object a line per scene and mode: the medians of
sinew-bench's `ns_per_projection` and the median of the rounds' AVX2 / portable ratios. The
pile's figure is its whole step over its projections (search and response included). The ropes
(20,000 steps: shorter runs of so small a scene read 20% apart from one run to the next): the
builder's order, and the links made again by the user in sequence (`--user-order`).
"""
import argparse
import json
import os
import statistics

from bench_runs import DEFAULT_BENCH, sinew_bench

SCENES = {
    "cloth-256": "--scene cloth --size 256x256 --iterations 10 --substeps 1 --steps 100",
    "rope-1000": "--scene rope --n 1000 --steps 20000",
    "rope-1000-user-order": "--scene rope --n 1000 --steps 20000 --user-order",
    "pile-10000-8x4": "--scene pile --n 10000 --substeps 8 --iterations 4 --steps 200",
}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--bench", default=DEFAULT_BENCH)
    o = p.parse_args()
    ns = {}
    for _ in range(o.rounds):
        for scene, args in SCENES.items():
            for mode in ("gs", "jacobi"):
                for portable in (False, True):
                    env = dict(os.environ)
                    env.pop("SINEW_PORTABLE", None)
                    if portable:
                        env["SINEW_PORTABLE"] = "1"
                    d = sinew_bench(o.bench, args.split() + ["--mode", mode], env)
                    ns.setdefault((scene, mode, portable), []).append(d["ns_per_projection"])
    for scene in SCENES:
        for mode in ("gs", "jacobi"):
            avx2, port = ns[(scene, mode, False)], ns[(scene, mode, True)]
            # The speed-up is the median of the rounds' own ratios (each round runs both paths one
            # after the other, so a drift of the machine's speed falls on both).
            ratios = [p / a for a, p in zip(avx2, port)]
            print(json.dumps({"scene": scene, "mode": mode, "rounds": o.rounds,
                              "ns_per_projection": round(statistics.median(avx2), 3),
                              "ns_per_projection_portable": round(statistics.median(port), 3),
                              "avx2_speedup": round(statistics.median(ratios), 3),
                              "avx2_speedup_range": [round(min(ratios), 3), round(max(ratios), 3)]}))


if __name__ == "__main__":
    main()
