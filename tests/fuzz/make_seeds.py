#!/usr/bin/env python3
"""Writes hand-designed seed programs for sinew-fuzz (tests/fuzz/fuzz_api.c) into a directory.

Each seed is a valid program with sane values that reaches one op or a few (every op at least
once), so fuzzing starts from inputs that get past argument checks. The encoding mirrors the
byte reader of fuzz_api.c: keep the two in step.

    python3 tests/fuzz/make_seeds.py OUT_DIR
"""
import os
import struct
import sys

# fl(): byte < 160 picks sane_floats[byte & 15]
SANE = {0.0: 0, 0.5: 1, 1.0: 2, -1.0: 3, 0.1: 4, 10.0: 5, 1 / 60: 6, 2.0: 7,
        -0.5: 8, 0.25: 9, 3.0: 10, 100.0: 11, -10.0: 12, 0.01: 13, 1e-3: 14, 5.0: 15}
NAN = 208
EXTREME_3E38 = 160

OP = {name: k for k, name in enumerate([
    'particle_create', 'particle_destroy', 'particle_set_position', 'particle_set_velocity',
    'particle_set_weight', 'particle_apply_force', 'particle_get',
    'distance_create', 'distance_destroy', 'distance_set', 'distance_get',
    'pin_create', 'pin_destroy', 'pin_set_target', 'pin_set_stiffness',
    'area_create', 'area_destroy', 'area_set_pressure',
    'angle_create', 'angle_destroy', 'angle_set_limits',
    'plane', 'circle', 'segment', 'box', 'polygon', 'bounds', 'collider_destroy',
    'rope', 'cloth', 'jelly', 'softbody', 'pile', 'arm_create', 'arm_drive', 'arm_release',
    'step', 'set_solver', 'set_gravity', 'set_damping', 'iteration_errors',
    'query_aabb', 'query_circle', 'query_nearest', 'inspect', 'inspect2', 'ik_solve',
    'status_string', 'fail_mode'])}
OP['particle_set'] = 245  # opcode bytes 245..255 (the others are taken modulo the 49 ops above)


def f(x):
    """A float from the sane table."""
    return [SANE[x]]


def i(n):
    """A small int, -8..55."""
    assert -8 <= n <= 55
    return [n + 8]


def raw(x):
    """A float as its four bytes (byte 224 on)."""
    return [224] + list(struct.pack('<f', x))


def v(x, y):
    return f(x) + f(y)


def world(alloc=0, edits=(), fail=(0, 0), workers=1):
    """Header: flags (bits 1-3 the allocator, bit 7 two workers), edit count, edits, then the
    failure mode bytes (mode, parameter) for the counting allocators 0-3."""
    out = [alloc << 1 | (128 if workers == 2 else 0), len(edits)]
    for e in edits:
        out += e
    if alloc <= 3:
        out += list(fail)
    return out


def op(name, *args):
    out = [OP[name]]
    for a in args:
        out += a
    return out


def particle(x, y, weight=1.0):
    # three edits: position x, y, weight; then "def not NULL"
    return op('particle_create', [3], [0] + f(x), [1] + f(y), [4] + f(weight), [0])


def step(n=1):
    return op('step', [n - 1], *[f(1 / 60)] * n)


def three_particles():
    return particle(0.0, 0.0) + particle(1.0, 0.0) + particle(2.0, 0.5)


def seeds():
    s = {}
    s['particles'] = world() + three_particles() + step(2) + op('particle_get', [1], i(0))
    s['particle_setters'] = (world() + three_particles()
                             + op('particle_set_position', [0], v(0.5, 1.0))
                             + op('particle_set_velocity', [1], v(1.0, -1.0))
                             + op('particle_set_weight', [2], f(0.5))
                             + op('particle_apply_force', [1], v(10.0, 0.0))
                             + step() + op('particle_destroy', [0]) + step()
                             + op('particle_get', [0], i(1)))
    # radius (pick, which, float), filter (group, mask: four bytes each), flags, frictions, user
    # data, then sinew_particle_get into a def: the summaries the search keeps follow each change.
    u32 = lambda x: list(struct.pack('<I', x))
    s['particle_more_setters'] = (world() + op('pile', [1], [0] + i(20), [0]) + step()
                                  + op('particle_set', [0], [0], f(0.25)) + step()
                                  + op('particle_set', [1], [1], u32(2), u32(0xfffffffe)) + step()
                                  + op('particle_set', [2], [2], [0]) + step()
                                  + op('particle_set', [0], [3], f(0.1), f(0.1)) + step()
                                  + op('particle_set', [1], [4], [7])
                                  + op('particle_set', [2], [5], [0]) + step())
    s['distance'] = (world() + three_particles()
                     + op('distance_create', [0], [1], [0])
                     + op('distance_create', [1], [2], [2], [1] + i(1), [0] + f(0.5))
                     + op('distance_create', [0], [2], [3], [1] + i(2), [3] + f(0.01), [4] + f(2.0))
                     + step(3) + op('distance_get', [0])
                     + op('distance_set', [1], [1], [1], [2] + f(0.5))
                     + step() + op('distance_destroy', [2]) + step())
    s['tearing'] = (world() + three_particles()
                    + op('distance_create', [0], [1], [2], [0] + f(0.5), [4] + f(2.0))
                    + op('particle_set_weight', [0], f(0.0))
                    + op('particle_set_position', [1], v(10.0, 0.0))
                    + step(4) + op('inspect'))
    s['pin'] = (world() + three_particles()
                + op('pin_create', [0], v(0.0, 1.0), [0])
                + op('pin_create', [1], v(1.0, 1.0), [4], [1], f(0.5), [0], f(0.01))
                + step(2) + op('pin_set_target', [0], v(0.5, 2.0))
                + op('pin_set_stiffness', [1], f(0.25), f(0.0)) + step()
                + op('pin_destroy', [0]) + step())
    ring = op('area_create', i(5), [1], [0]) + [0]  # five fresh particles on a circle
    s['area'] = (world() + ring + step(2) + op('area_set_pressure', [0], f(2.0)) + step()
                 + op('area_destroy', [0]) + step())
    s['angle'] = (world() + three_particles()
                  + op('angle_create', [0], [1], [2], [4], [0], f(-0.5), [1], f(0.5))
                  + step(2) + op('angle_set_limits', [0], f(-1.0), f(1.0)) + step()
                  + op('angle_destroy', [0]) + step())
    coll = [0, 0]  # collider def: no edits, not NULL
    s['colliders'] = (world() + three_particles()
                      + op('plane', coll, v(0.0, 1.0), f(-1.0))
                      + op('circle', coll, v(0.0, -10.0), f(1.0))
                      + op('segment', coll, v(-1.0, -1.0), v(2.0, -1.0), f(0.1))
                      + op('box', coll, v(-10.0, -10.0), v(3.0, -1.0))
                      + step(4) + op('collider_destroy', coll, [1], [0], i(0)) + step())
    s['polygon'] = (world() + three_particles()
                    + op('polygon', coll, i(5), [1], v(0.0, -10.0), f(2.0), [1], f(0.0), [0])
                    + op('polygon', coll, i(3), [0], v(-1.0, -1.0), v(1.0, -1.0), v(0.0, -0.5), f(0.1), [0])
                    + step(4) + op('collider_destroy', coll, [0], [0], i(0)))
    s['bounds'] = (world() + three_particles() + op('bounds', coll, v(-10.0, -10.0), v(10.0, 10.0), [0])
                   + step(4) + op('collider_destroy', coll, [2], [1], i(2)))
    s['rope'] = world() + op('rope', [1], [2] + i(10), [0]) + step(4) + op('inspect')
    s['rope_slack'] = (world() + op('rope', [4], [2] + i(12), [8] + i(1), [7, 1], [12, 1], [0])
                       + step(4))
    s['rope_bend'] = world() + op('rope', [2], [2] + i(8), [11] + f(0.5), [0]) + step(2)
    s['cloth'] = world() + op('cloth', [2], [1] + i(6), [2] + i(5), [0]) + step(3)
    s['cloth_tear'] = (world() + op('cloth', [4], [1] + i(6), [2] + i(6), [11, 1], [14] + f(2.0), [0])
                       + op('particle_set_position', [1], v(100.0, 0.0)) + step(4) + op('inspect'))
    s['cloth_bend_tethers'] = (world() + op('cloth', [4], [1] + i(5), [2] + i(5), [12, 1], [15, 1], [0])
                               + step(2))
    s['jelly'] = (world() + op('bounds', coll, v(-10.0, -1.0), v(10.0, 10.0), [0])
                  + op('jelly', [2], [1] + i(4), [2] + i(4), [0]) + step(4))
    s['softbody'] = world() + op('softbody', [1], [2] + i(12), [0]) + step(3)
    s['softbody_springs'] = world() + op('softbody', [2], [2] + i(8), [11] + i(1), [0]) + step(2)
    s['softbody_center'] = world() + op('softbody', [2], [2] + i(8), [11] + i(2), [0]) + step(2)
    s['pile'] = world() + op('pile', [1], [0] + i(30), [0]) + step(4) + op('inspect')
    s['pile_slopes'] = world() + op('pile', [2], [0] + i(20), [11] + i(2), [0]) + step(3)
    s['arm'] = (world() + op('arm_create', [0], [0]) + step(2)
                + op('pin_set_target', [0], v(1.0, 1.0)) + step(3))
    s['arm_limits'] = (world() + op('arm_create', [2], [6], [2] + i(3), [2], f(-1.0), f(1.0), [0])
                       + step(2))
    s['arm_drive'] = (world() + op('arm_create', [0], [0]) + op('pin_set_target', [0], v(1.0, 1.0))
                      + op('arm_drive', [0], [0], [0]) + step() + op('arm_release', [0]) + step())
    s['arm_drive_ccd'] = (world() + op('arm_create', [1], [15], [0])
                          + op('arm_drive', [0], [1], [0] + i(3), [0]) + step()
                          + op('arm_drive', [0], [2], [0] + i(2), [4], [0]) + step())
    s['solver'] = (world() + op('rope', [1], [2] + i(10), [0])
                   + op('set_solver', [0], [2], [0] + i(1), [2] + i(4), [0])
                   + step(2)
                   + op('set_solver', [1], [2], [3] + f(0.5), [4] + i(2), [0])
                   + op('set_solver', [1], [1], [4] + i(1), [0]) + step(2)
                   + op('set_gravity', v(0.0, 10.0)) + op('set_damping', f(0.1)) + step())
    s['iterations'] = (world() + op('rope', [1], [2] + i(10), [0])
                       + op('iteration_errors', [1], i(0)) + step(2)
                       + op('iteration_errors', [1], i(6)) + op('iteration_errors', [0], i(1)))
    s['queries'] = (world() + op('pile', [1], [0] + i(20), [0]) + step()
                    + op('query_aabb', i(8), [0], v(0.0, 0.0), v(5.0, 5.0))
                    + op('query_circle', i(4), [0], v(2.0, 2.0), f(3.0))
                    + op('query_nearest', v(1.0, 1.0), f(2.0), [0])
                    + op('inspect2'))
    # standalone IK: count 3 (no long chain), angles all 0, lengths all 1, no weights, no limits,
    # base (0, 0), base angle 0, default def, target (1, 1), def not NULL, then points
    ik = [OP['ik_solve']] + i(3) + [0] + [2] + f(0.0) + [2] + f(1.0) + [0] + [0] + v(0.0, 0.0) + f(0.0)
    s['ik_fabrik'] = world() + ik + [0] + v(1.0, 1.0) + [0, 0] + f(0.5)
    s['ik_ccd_limits'] = (world() + [OP['ik_solve']] + i(4) + [0] + [2] + f(0.0) + [2] + f(1.0)
                          + [0] + [1] + [1] + f(-1.0) + f(1.0) + v(0.0, 0.0) + f(0.0)
                          + [2, 0] + i(2) + [1] + i(50) + v(2.0, 1.0) + [0, 0] + f(1.0))
    s['ik_two_bone'] = (world() + [OP['ik_solve']] + i(2) + [0] + [2] + f(0.0) + [2] + f(1.0)
                        + [0] + [0] + v(0.0, 0.0) + f(0.0) + [2, 0] + i(3) + [3] + i(1)
                        + v(1.0, 1.0) + [0, 0] + f(0.0))
    s['ik_relaxation'] = (world() + [OP['ik_solve']] + i(5) + [0] + [1] + f(0.5) + [2] + f(0.5)
                          + [1] + [2] + f(0.5) + [0] + v(0.0, 0.0) + f(0.0) + [2, 0] + i(0) + [4]
                          + v(1.0, 0.5) + [0, 0] + f(0.0))
    s['status'] = world() + op('status_string', i(3), f(3.0)) + op('status_string', i(-1), f(10.0))
    s['oom'] = (world(alloc=1, fail=(1, 4)) + op('rope', [1], [2] + i(20), [0]) + step()
                + op('fail_mode', [0], [0]) + op('pile', [1], [0] + i(10), [0]) + step())
    s['oom_random'] = (world(alloc=3, fail=(3, 7)) + three_particles()
                       + op('cloth', [0], [0]) + op('softbody', [0], [0]) + step(2))
    s['system_alloc'] = world(alloc=4) + op('softbody', [0], [0]) + step(2)
    s['world_def'] = (world(edits=[[0] + f(1.0), [2] + f(0.1), [9] + i(1), [10] + i(2), [11] + i(3),
                                   [5] + i(20), [7, 0]])
                      + op('pile', [1], [0] + i(30), [0]) + step(2))
    s['world_jacobi'] = (world(edits=[[9] + i(1), [12] + f(0.5)])
                         + op('cloth', [0], [0]) + step(2))
    # Two workers, 1,600 balls touching in rows (spacing 0.98, rows offset 0.49), 8 x 4: enough
    # contact blocks for Gauss-Seidel's sweeps to spread, with spans from the colours.
    s['pile_two_workers'] = (world(edits=[[10] + i(8), [11] + i(4)], workers=2)
                             + op('pile', [3], [12, 25], [3] + raw(0.98), [4] + raw(0.49), [0])
                             + step(3) + step(3))
    # The same pile in Jacobi mode at 4 x 2: its contact passes split over the two workers (the
    # harness's grain), with held ends at the parts' border.
    s['pile_two_workers_jacobi'] = (world(edits=[[9] + i(1), [10] + i(4), [11] + i(2)], workers=2)
                                    + op('pile', [3], [12, 25], [3] + raw(0.98), [4] + raw(0.49), [0])
                                    + step(3) + step(3))
    s['extreme_dt'] = world() + three_particles() + op('step', [1], [NAN], f(-1.0))
    s['extreme_position'] = world() + particle(0.0, 0.0) + op('particle_set_position', [0], [EXTREME_3E38] + f(0.0))
    return s


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, program in seeds().items():
        with open(os.path.join(out, 'seed_' + name), 'wb') as fh:
            fh.write(bytes(program))


if __name__ == '__main__':
    main()
