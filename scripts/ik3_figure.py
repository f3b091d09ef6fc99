#!/usr/bin/env python3
"""Draws docs/images/ik3-geometry.svg: a link, its parent's frame and a polygonal cone (ik3.h).

Usage: python3 scripts/ik3_figure.py > docs/images/ik3-geometry.svg
An oblique projection of 3D points; the cone is an irregular convex 7-gon around the parent's +x,
its edges drawn as great-circle arcs on the sphere of radius R around the joint.
"""
import math

W, H = 700, 430
R = 2.2  # radius of the drawn cone sphere, in link units


def proj(p):
    # view from (+x slightly, -y, +z): x to the right, z up, y into the page
    x, y, z = p
    a, e = math.radians(-35), math.radians(20)
    X = x * math.cos(a) - y * math.sin(a)
    Y = x * math.sin(a) + y * math.cos(a)
    Z = z * math.cos(e) - Y * math.sin(e)
    return (190 + 95 * X, 250 - 95 * Z)


def add(a, b): return tuple(p + q for p, q in zip(a, b))
def sub(a, b): return tuple(p - q for p, q in zip(a, b))
def mul(a, s): return tuple(p * s for p in a)
def dot(a, b): return sum(p * q for p, q in zip(a, b))
def cross(a, b): return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])
def unit(a): return mul(a, 1.0 / math.sqrt(dot(a, a)))


def slerp(a, b, t):
    w = math.acos(max(-1.0, min(1.0, dot(a, b))))
    if w < 1e-9:
        return a
    return add(mul(a, math.sin((1 - t) * w) / math.sin(w)), mul(b, math.sin(t * w) / math.sin(w)))


out = []
def line(a, b, color, width=2, dash=None, marker=False):
    (x1, y1), (x2, y2) = proj(a), proj(b)
    d = f' stroke-dasharray="{dash}"' if dash else ''
    m = ' marker-end="url(#arrow)"' if marker else ''
    out.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="{color}" stroke-width="{width}"{d}{m}/>')
def text(p, s, color="#222", size=15, dx=0, dy=0):
    x, y = proj(p)
    out.append(f'<text x="{x + dx:.1f}" y="{y + dy:.1f}" fill="{color}" font-size="{size}" font-family="sans-serif">{s}</text>')


J = (0.0, 0.0, 0.0)            # joint k: the parent's end, link k's start
parent_start = (-1.6, 0.5, -0.9)
# cone corners: tangent-plane offsets (y, z) around +x, counter-clockwise about +x
offs = [(0.55, 0.05), (0.35, 0.45), (-0.15, 0.55), (-0.55, 0.25), (-0.5, -0.3), (0.0, -0.55), (0.45, -0.4)]
corners = [unit((1.0, y, z)) for y, z in offs]
d = unit((1.0, 0.15, 0.2))    # the link's direction, inside
L = 2.9

out.append(f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}">')
out.append('<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">'
           '<path d="M0,0 L10,5 L0,10 z" fill="context-stroke"/></marker></defs>')
out.append(f'<rect width="{W}" height="{H}" fill="white"/>')
# parent link
line(parent_start, J, "#777", 7)
text(mul(add(parent_start, J), 0.5), "parent link k-1", "#555", 14, -60, 28)
# cone: rays to the corners and great-circle arcs between them
for c in corners:
    line(J, mul(c, R), "#c9a227", 1, "4 3")
pts = []
for i, c in enumerate(corners):
    n = corners[(i + 1) % len(corners)]
    for j in range(16):
        pts.append(proj(mul(slerp(c, n, j / 16), R)))
poly = " ".join(f"{x:.1f},{y:.1f}" for x, y in pts)
out.append(f'<polygon points="{poly}" fill="#f3d36b" fill-opacity="0.35" stroke="#b8860b" stroke-width="2"/>')
for c in corners:
    x, y = proj(mul(c, R))
    out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3.5" fill="#b8860b"/>')
# an edge's inward normal
c0, c1 = corners[4], corners[5]
mid = mul(unit(add(c0, c1)), R)
nrm = unit(cross(c0, c1))
line(mid, add(mid, mul(nrm, 0.55)), "#b8860b", 2, None, True)
text(add(mid, mul(nrm, 0.55)), "inward normal c<tspan baseline-shift=\"sub\" font-size=\"10\">i</tspan> × c<tspan baseline-shift=\"sub\" font-size=\"10\">i+1</tspan>", "#8a6508", 13, 8, 14)
text(mul(corners[2], R), "corner c<tspan baseline-shift=\"sub\" font-size=\"10\">i</tspan>", "#8a6508", 13, -20, -10)
# parent frame axes at the joint
line(J, (1.0, 0, 0), "#d62728", 2.5, None, True)
line(J, (0, 1.0, 0), "#2ca02c", 2.5, None, True)
line(J, (0, 0, 1.0), "#1f77b4", 2.5, None, True)
text((1.0, 0, 0), "x", "#d62728", 15, -4, 18)
text((0, 1.0, 0), "y", "#2ca02c", 15, 6, 4)
text((0, 0, 1.0), "z", "#1f77b4", 15, -14, 0)
text(J, "joint k: parent's frame", "#222", 13, -150, 18)
# the link: its direction d = rotation applied to +x
E = mul(d, L)
line(J, E, "#222", 6)
text(E, "link k: length · (rotation applied to +x)", "#222", 14, -40, -12)
# twist about the link's own axis: a small ellipse-ish arc around d
u = unit(cross(d, (0, 0, 1)))
v = cross(d, u)
arc = []
for j in range(0, 27):
    t = math.radians(-40 + j * 10)
    arc.append(add(mul(d, 1.1), add(mul(u, 0.22 * math.cos(t)), mul(v, 0.22 * math.sin(t)))))
for a, b in zip(arc, arc[1:]):
    line(a, b, "#9467bd", 2)
line(arc[-2], arc[-1], "#9467bd", 2, None, True)
text(arc[8], "twist", "#9467bd", 13, -40, -6)
out.append('<text x="20" y="400" fill="#444" font-size="13" font-family="sans-serif">The cone: a convex loop of corner directions in the parent\'s</text>')
out.append('<text x="20" y="417" fill="#444" font-size="13" font-family="sans-serif">frame, counter-clockwise about its axis; the link\'s axis is +x.</text>')
out.append('</svg>')
print("\n".join(out))
