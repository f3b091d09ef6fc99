"""Running the measuring programs, for the scripts beside this file (speedup.py,
projection_table.py, lattices.py): sinew-bench's last JSON line, and the fields of the Box2D v3
harness's RESULT line (../shared/peers/README.md)."""
import json
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_BENCH = os.path.join(HERE, "..", "build", "bench", "sinew-bench")


def sinew_bench_lines(bench, args, env=None):
    """sinew-bench with the arguments `args` (a list), one run: all its JSON objects, in order."""
    out = subprocess.run([bench] + args + ["--repeat", "1"], capture_output=True, text=True, env=env,
                         check=True).stdout
    return [json.loads(line) for line in out.strip().splitlines()]


def sinew_bench(bench, args, env=None):
    """sinew-bench with the arguments `args` (a list), one run: its last JSON object."""
    return sinew_bench_lines(bench, args, env)[-1]


def box2d3(harness, args, steps):
    """The harness with `args` (a list) for `steps` steps: its RESULT line's fields, as strings."""
    env = dict(os.environ, B3_STEPS=str(steps))
    out = subprocess.run([harness] + args, capture_output=True, text=True, env=env, check=True).stdout
    for line in out.splitlines():
        if line.startswith("RESULT"):
            return dict(kv.split("=", 1) for kv in line.split()[1:])
    raise RuntimeError("the Box2D v3 harness printed no RESULT line")
