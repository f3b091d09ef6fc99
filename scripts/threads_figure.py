#!/usr/bin/env python3
"""Draws docs/images/threads-sweep.svg: one Gauss-Seidel sweep of a pile's contacts at two workers.

Usage: python3 scripts/threads_figure.py > docs/images/threads-sweep.svg
A schematic time line (docs/threads.md, "What runs in parallel" and "What limits two workers").
The spans are those of one sweep of the 10,000-ball pile at 8 x 4 (step 300); the widths come from
costs measured on an AMD EPYC (Zen 3), in cycles: a block of a split span about 70 on its owner
and 2.5 times that on a worker that helps, a block of a short span on the stepping thread about
190, a one-block span about 850, a job's hand-out about 500 and its barrier about 800. Who helps
where, and how late the second worker enters, are made up: they change from span to span.
"""

W, H = 900, 430
LEFT, RIGHT = 150, 880
BLOCK = 70.0                      # cycles a block of a split span costs its owner
HELP = 2.5                        # a helped block's cost, in own blocks
SHORT, ONE_BLOCK = 190.0, 850.0   # a block of a short span on one thread, a one-block span
HANDOUT, BARRIER = 500.0, 800.0   # a job's hand-out and its barrier
LEAST = 32                        # blocks a chunk takes at least

# (blocks, entry delay of worker 1 in cycles, worker 1's speed against worker 0's)
SPANS = [(622, 400, 1.00), (1, 0, 0), (619, 300, 0.80), (1, 0, 0), (612, 250, 1.20), (1, 0, 0),
         (598, 350, 1.00), (580, 200, 0.95), (1, 0, 0), (552, 300, 1.05), (53, 0, 0), (3, 0, 0)]
SPLIT = 64                        # spans from this many blocks on are split
HUES = ["#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2", "#edc948", "#e15759", "#9c755f"]
MIXED = "#bab0ac"


def chunks(first, n):
    """The halving chunks of a range of n blocks from `first` (tasks.c, chunk_items)."""
    out, at, left = [], first, n
    while left > 0:
        take = left // 2 if left > 2 * LEAST else left
        out.append((at, take))
        at, left = at + take, left - take
    return out


def split_span(t, n, delay, speed):
    """Runs one split span from time t: returns each worker's segments and the barrier time."""
    half = n // 2
    ranges = [chunks(0, half), chunks(half, n - half)]
    taken = [0, 0]
    clock = [t + HANDOUT, t + HANDOUT + delay]
    rate = [1.0, speed]
    segments = [[], []]
    while True:
        # the worker that is free first takes its own next chunk, else the other's
        w = 0 if clock[0] <= clock[1] else 1
        r = w if taken[w] < len(ranges[w]) else 1 - w
        if taken[r] >= len(ranges[r]):
            break
        _, size = ranges[r][taken[r]]
        taken[r] += 1
        cost = size * BLOCK * (1.0 if r == w else HELP) / rate[w]
        segments[w].append((clock[w], clock[w] + cost, "own" if r == w else "help"))
        clock[w] += cost
    end = max(clock) + BARRIER
    for w in range(2):
        segments[w].append((clock[w], end, "wait"))
    return segments, end


def main():
    timeline = [[], []]   # (start, end, kind, hue)
    t, spans_drawn = 0.0, []
    colour = 0
    for blocks, delay, speed in SPANS:
        if blocks == 1:
            hue = MIXED
        else:
            hue = HUES[colour % len(HUES)]
            colour += 1
        if blocks >= SPLIT:
            seg, end = split_span(t, blocks, delay, speed)
            for w in range(2):
                timeline[w] += [(a, b, k, hue) for a, b, k in seg[w]]
        else:
            cost = ONE_BLOCK if blocks == 1 else blocks * SHORT
            end = t + cost
            timeline[0].append((t, end, "own", hue))
            timeline[1].append((t, end, "idle", hue))
        spans_drawn.append((t, end, blocks, hue))
        t = end
    total = t
    sx = (RIGHT - LEFT) / total

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" '
           'font-family="sans-serif">',
           '<defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" '
           'patternTransform="rotate(45)"><line x1="0" y1="0" x2="0" y2="6" stroke="#222" stroke-width="2"/>'
           '</pattern></defs>',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<text x="{LEFT}" y="26" font-size="15" fill="#222">One Gauss-Seidel sweep of the 10,000-ball '
           'pile\'s contacts at two workers (schematic)</text>']
    rows = [("worker 0", "(steps the world)", 70), ("worker 1", "(the pool's thread)", 140)]
    for name, sub, y in rows:
        out.append(f'<text x="{LEFT - 12}" y="{y + 20}" font-size="14" text-anchor="end" fill="#222">{name}</text>')
        out.append(f'<text x="{LEFT - 12}" y="{y + 37}" font-size="11" text-anchor="end" fill="#666">{sub}</text>')
    for w, (_, _, y) in enumerate(rows):
        for a, b, kind, hue in timeline[w]:
            x0, x1 = LEFT + a * sx, LEFT + b * sx
            if x1 - x0 < 0.2:
                continue
            if hue == MIXED and kind == "own":
                x1 = max(x1, x0 + 4.0)  # (a one-block span is about 3 px wide: drawn at 4)
            if kind in ("own", "help"):
                out.append(f'<rect x="{x0:.1f}" y="{y}" width="{x1 - x0:.1f}" height="40" fill="{hue}" '
                           'stroke="white" stroke-width="1"/>')
                if kind == "help":
                    out.append(f'<rect x="{x0:.1f}" y="{y}" width="{x1 - x0:.1f}" height="40" fill="url(#hatch)" '
                               'fill-opacity="0.45"/>')
            else:
                out.append(f'<rect x="{x0:.1f}" y="{y + 14}" width="{x1 - x0:.1f}" height="12" fill="#e3e3e3"/>')
    # barriers at the ends of the split spans (jobs), and the spans' labels
    colour, short = 0, []
    for a, b, blocks, hue in spans_drawn:
        x0, x1 = LEFT + a * sx, LEFT + b * sx
        if blocks >= SPLIT:
            colour += 1
            out.append(f'<line x1="{x1:.1f}" y1="58" x2="{x1:.1f}" y2="192" stroke="#444" stroke-width="1" '
                       'stroke-dasharray="3,3"/>')
            out.append(f'<text x="{(x0 + x1) / 2:.1f}" y="52" font-size="11" text-anchor="middle" '
                       f'fill="#333">colour {colour}: {blocks}</text>')
        elif blocks > 1:
            colour += 1
            short.append((x0, x1, colour, blocks))
    if short:
        x0, x1 = short[0][0], short[-1][1]
        names = " and ".join(str(c) for _, _, c, _ in short)
        sizes = " and ".join(str(n) for _, _, _, n in short)
        out.append(f'<line x1="{x0:.1f}" y1="200" x2="{x1:.1f}" y2="200" stroke="#444"/>')
        out.append(f'<text x="{x1:.1f}" y="216" font-size="11" text-anchor="end" fill="#333">colours {names}: '
                   f'{sizes} blocks, too short to split: one thread</text>')
    # legend
    ly = 250
    items = [("own", "a chunk of the worker's own half of the span (they halve: 155, 78, 39, 39 blocks)"),
             ("help", "a chunk of the other worker's half, taken when its own ran out (2 to 3 times dearer)"),
             ("mixed", "a block holding the end of one colour and the start of the next: a span of its own"),
             ("wait", "waiting: for the other worker at the end of a job, or while a short span runs"),
             ("barrier", "a job ends when both are done: the next span may touch what this one wrote")]
    for i, (kind, text) in enumerate(items):
        y = ly + 26 * i
        if kind in ("own", "help"):
            out.append(f'<rect x="{LEFT}" y="{y}" width="34" height="16" fill="{HUES[0]}"/>')
            if kind == "help":
                out.append(f'<rect x="{LEFT}" y="{y}" width="34" height="16" fill="url(#hatch)" fill-opacity="0.45"/>')
        elif kind == "mixed":
            out.append(f'<rect x="{LEFT}" y="{y}" width="34" height="16" fill="{MIXED}"/>')
        elif kind == "wait":
            out.append(f'<rect x="{LEFT}" y="{y + 3}" width="34" height="10" fill="#e3e3e3"/>')
        else:
            out.append(f'<line x1="{LEFT + 17}" y1="{y - 2}" x2="{LEFT + 17}" y2="{y + 18}" stroke="#444" '
                       'stroke-dasharray="3,3"/>')
        out.append(f'<text x="{LEFT + 46}" y="{y + 13}" font-size="12" fill="#333">{text}</text>')
    out.append(f'<text x="{LEFT}" y="{ly + 26 * len(items) + 22}" font-size="11" fill="#666">Widths from '
               'costs measured on a Zen 3 (cycles): 70 a block in a split span, 190 in a short one, 850 a '
               'one-block span,</text>')
    out.append(f'<text x="{LEFT}" y="{ly + 26 * len(items) + 38}" font-size="11" fill="#666">about 1,300 a '
               'job\'s hand-out and barrier. Which worker helps, and how late worker 1 enters, change from '
               'span to span.</text>')
    out.append('</svg>')
    print("\n".join(out))


if __name__ == "__main__":
    main()
