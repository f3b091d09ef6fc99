#!/usr/bin/env python3
"""sinew against Box2D v3 on one thread, side by side in one run (README.md, "What sets it apart").

    bench/peers.py --box2d PATH [--rounds R] [--bench PATH] [--scenes a,b,...]

Runs every scene in sinew (sinew-bench, one worker) and in Box2D v3 (the harness built as
../shared/peers/README.md says, one thread), round after round; which engine goes first alternates
from one round to the next, so a drift of the machine's speed falls on both. Prints one JSON object
a line per scene: both engines' median ms per step, the median of the rounds' Box2D / sinew ratios
(how many times faster sinew is), their range, and each engine's quality figures at the end (both
engines are deterministic on one thread, so every round ends the same). Nothing here times anything
itself: the figures are sinew-bench's and the harness's own.
"""
import argparse
import json
import statistics
import sys

from bench_runs import DEFAULT_BENCH, box2d3, sinew_bench

# scene: (sinew-bench arguments, the harness's arguments, steps, {figure: sinew field},
#         {figure: harness field}). Settings as in the README: the rope at 32 x 1, the cloth at
# 8 x 1, the pile at its default 4 x 1, at 8 x 4 and at 9 x 4 (docs/collisions.md, "Settling,
# over twelve lattices"); Box2D v3 at its defaults (4 sub-steps).
SCENES = {
    "rope-1000": ("--scene rope --n 1000 --substeps 32 --iterations 1", ["rope", "1000"], 600,
                  {"stretch": "stretch", "max_link": "max_stretch"},
                  {"stretch": "stretch", "max_link": "link_max_rel"}),
    "cloth-100": ("--scene cloth --size 100x100 --substeps 8 --iterations 1", ["cloth", "100"], 300,
                  {"max_link": "max_stretch"}, {"max_link": "link_max_rel"}),
    "pile-10000-4x1": ("--scene pile --n 10000", ["pile", "10000"], 600,
                       {"max_overlap": "max_overlap_ratio", "max_speed": "max_speed", "outside": "outside"},
                       {"max_overlap": "overlap_max_rel", "max_speed": "vmax", "outside": "outside"}),
    "pile-10000-8x4": ("--scene pile --n 10000 --substeps 8 --iterations 4", ["pile", "10000"], 600,
                       {"max_overlap": "max_overlap_ratio", "max_speed": "max_speed", "outside": "outside"},
                       {"max_overlap": "overlap_max_rel", "max_speed": "vmax", "outside": "outside"}),
    "pile-10000-9x4": ("--scene pile --n 10000 --substeps 9 --iterations 4", ["pile", "10000"], 600,
                       {"max_overlap": "max_overlap_ratio", "max_speed": "max_speed", "outside": "outside"},
                       {"max_overlap": "overlap_max_rel", "max_speed": "vmax", "outside": "outside"}),
    "pile-100000-120": ("--scene pile --n 100000 --steps 120", ["pile", "100000"], 120,
                        {"outside": "outside"}, {"outside": "outside"}),
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--box2d", required=True, help="the Box2D v3 harness (../shared/peers/README.md)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--bench", default=DEFAULT_BENCH)
    ap.add_argument("--scenes", default=",".join(SCENES))
    a = ap.parse_args()
    names = a.scenes.split(",")
    unknown = [n for n in names if n not in SCENES]
    if unknown or a.rounds < 1:
        sys.exit(f"peers.py: unknown scenes {unknown}" if unknown else "peers.py: --rounds must be >= 1")
    times = {n: {"sinew": [], "box2d": []} for n in names}
    last = {}
    for r in range(a.rounds):
        for n in names:
            args, harness_args, steps, _, _ = SCENES[n]
            order = ["sinew", "box2d"] if r % 2 == 0 else ["box2d", "sinew"]
            for engine in order:
                if engine == "sinew":
                    d = sinew_bench(a.bench, args.split() + ["--steps", str(steps), "--threads", "1"])
                    times[n]["sinew"].append(d["ms_per_step"])
                else:
                    d = box2d3(a.box2d, harness_args + ["1"], steps)
                    times[n]["box2d"].append(float(d["ms_per_step"]))
                last[(n, engine)] = d
    for n in names:
        _, _, steps, sinew_fields, box2d_fields = SCENES[n]
        s, b = times[n]["sinew"], times[n]["box2d"]
        ratios = [bb / ss for ss, bb in zip(s, b)]
        out = {"scene": n, "steps": steps, "rounds": a.rounds, "threads": 1,
               "sinew_ms_per_step": statistics.median(s), "box2d_ms_per_step": statistics.median(b),
               "box2d_over_sinew": round(statistics.median(ratios), 3),
               "ratio_range": [round(min(ratios), 3), round(max(ratios), 3)],
               "sinew_settings": SCENES[n][0]}
        for k, f in sinew_fields.items():
            out["sinew_" + k] = last[(n, "sinew")][f]
        for k, f in box2d_fields.items():
            v = last[(n, "box2d")][f]  # the harness prints text: a count as an integer
            out["box2d_" + k] = int(v) if v.lstrip("-").isdigit() else float(v)
        out["state_hash"] = last[(n, "sinew")].get("state_hash")
        print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
