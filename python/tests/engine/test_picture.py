"""The memory-map picture, rasterised by a real SVG renderer (resvg) and
checked by its pixels: one footprint per view in its own colour, the witness
mark where the witness byte is, nothing drawn outside the canvas; and small
for large groups."""

from __future__ import annotations

import io
import pathlib
import pickle
import re
import xml.etree.ElementTree as ET
from typing import Any

import numpy as np
import pytest
import resvg_py  # the test dependency that renders SVG (.ci/setup installs it)
from PIL import Image

import symalias as s
from symalias import Symbol, TensorLayout

#: In the quick loop, whole (``.ci/quick``).
pytestmark = pytest.mark.quick

NS = {"svg": "http://www.w3.org/2000/svg"}
#: The plot's left and right edges (src/picture/svg.rs).
LEFT, PLOT_RIGHT = 190.0, 940.0


def raster(svg: str) -> np.ndarray:
    png = bytes(resvg_py.svg_to_bytes(svg_string=svg))
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)


def colours(svg: str) -> dict[str, np.ndarray]:
    """Class -> RGB, from the picture's own style sheet."""
    out = {}
    for cls, hexc in re.findall(r"\.(\w+)\{fill:#([0-9a-f]{6})", svg):
        out[cls] = np.array([int(hexc[i : i + 2], 16) for i in (0, 2, 4)])
    return out


def lanes(svg: str) -> list[ET.Element]:
    """The lanes, in order: `g` elements `id="l<view>"` or `id="shared"`."""
    return [g for g in ET.fromstring(svg).iter(f"{{{NS['svg']}}}g") if re.fullmatch(r"l\d+|shared", g.get("id", ""))]


def lane(g: ET.Element) -> tuple[str, float, float]:
    """A lane's view index (or "shared"), top and height (its rectangles')."""
    r = g.find("svg:rect", NS)
    assert r is not None
    return g.get("id", "").removeprefix("l"), float(r.get("y", 0)), float(r.get("height", 0))


def near(img: np.ndarray, y0: float, y1: float, x0: float, x1: float, rgb: np.ndarray, tol: int = 40) -> bool:
    """Some pixel of the box is `rgb` (within `tol` per channel)."""
    box = img[int(y0) : int(np.ceil(y1)) + 1, int(x0) : int(np.ceil(x1)) + 1]
    return bool((np.abs(box - rgb).max(axis=-1) <= tol).any())


def shows(img: np.ndarray, y0: float, y1: float, x0: float, x1: float, cls: str, pal: dict[str, np.ndarray]) -> bool:
    """Some pixel of the box is of class `cls`'s colour, drawn over white at
    some coverage (a thin lane is antialiased): of all the palette's
    colours, `cls`'s explains it best."""
    box = img[int(y0) : int(np.ceil(y1)) + 1, int(x0) : int(np.ceil(x1)) + 1].reshape(-1, 3)
    q = 255 - box[(box != 255).any(axis=-1)].astype(float)  # coverage times (255 - colour)
    if not len(q):
        return False
    names = [k for k in pal if re.fullmatch(r"v\d+", k)]
    d = np.stack([255 - pal[k] for k in names]).astype(float)  # (classes, 3)
    a = (q @ d.T) / (d * d).sum(axis=1)  # best coverage per pixel and class
    residual = np.linalg.norm(q[:, None, :] - a[:, :, None] * d[None, :, :], axis=-1)
    best = residual.argmin(axis=1)
    return bool((np.array(names)[best] == cls).any())


def check_canvas(svg: str, img: np.ndarray) -> None:
    """Nothing outside the canvas: every shape and text inside the view box
    (text by a generous width per character), and the raster's margins
    right of the plot and along the bottom are background."""
    root = ET.fromstring(svg)
    w, h = float(root.get("width", 0)), float(root.get("height", 0))
    assert img.shape[:2] == (int(h), int(w))
    for el in root.iter():
        tag = el.tag.split("}")[1]
        if tag == "rect":
            x, y = float(el.get("x", 0)), float(el.get("y", 0))
            assert x >= 0 and x + float(el.get("width", 0)) <= w + 0.5, ET.tostring(el)
            assert y >= 0 and y + float(el.get("height", 0)) <= h + 0.5, ET.tostring(el)
        elif tag == "line":
            for a in ("x1", "x2"):
                assert 0 <= float(el.get(a, 0)) <= w
            for a in ("y1", "y2"):
                assert 0 <= float(el.get(a, 0)) <= h
        elif tag == "text":
            x, y = float(el.get("x", 0)), float(el.get("y", 0))
            size = 14 if el.get("class") == "t" else 12
            width = 0.62 * size * len(el.text or "")
            start = x - (
                width if el.get("text-anchor") == "end" else width / 2 if el.get("text-anchor") == "middle" else 0
            )
            assert start >= 0 and start + width <= w, (el.text, x)
            assert size <= y <= h
    white = np.array([255, 255, 255])
    assert (img[:, int(PLOT_RIGHT) + 6 :] == white).all(), "drawn right of the plot"
    assert (img[-3:, :] == white).all(), "drawn at the bottom edge"


def check_footprints(svg: str, img: np.ndarray, n: int, sample: range | None = None) -> None:
    """A lane per view (per panel), each showing its own colour."""
    pal = colours(svg)
    views = [g for g in lanes(svg) if g.get("id") != "shared"]
    assert len(views) % n == 0 and views, len(views)
    for g in views if sample is None else [views[i] for i in sample]:
        if g.find("svg:rect", NS) is None:
            # A view of no elements at the panel's shapes: said, not drawn.
            text = g.find("svg:text", NS)
            assert text is not None and text.text == "no bytes"
            continue
        name, y, h = lane(g)
        k = int(name)
        cls = f"v{k % 10}"
        rects = g.findall("svg:rect", NS)
        assert rects and all(cls in r.get("class", "") for r in rects if "tw" not in r.get("class", ""))
        r = rects[0]
        x0 = float(r.get("x", 0))
        x1 = x0 + float(r.get("width", 0))
        assert shows(img, y, y + h, x0, x1, cls, pal), (k, y, h, x0, x1)


def axis(svg: str) -> tuple[int, int]:
    """The first panel's byte range, from its tick labels."""
    ticks = [int(t.text or "") for t in ET.fromstring(svg).iter(f"{{{NS['svg']}}}text") if t.get("font-size") == "10"]
    return ticks[0], ticks[4]


def check_witnesses(svg: str, img: np.ndarray, addresses: list[int]) -> None:
    """A red mark at each witness byte's place on the axis."""
    lo, hi = axis(svg)
    red = colours(svg)["sh"]
    marks = ET.fromstring(svg).findall(".//svg:line[@class='w']", NS)
    assert sorted(int(m.get("data-address", -1)) for m in marks) == sorted(addresses)
    for m in marks:
        a = int(m.get("data-address", -1))
        x = LEFT + (a + 0.5 - lo) * (PLOT_RIGHT - LEFT) / (hi - lo)
        assert abs(float(m.get("x1", 0)) - x) < 0.2
        y0, y1 = float(m.get("y1", 0)), float(m.get("y2", 0))
        assert near(img, (y0 + y1) / 2 - 1, (y0 + y1) / 2 + 1, x - 1, x + 1, red, 30), (a, x)


def picture(r: Any) -> tuple[str, np.ndarray]:
    svg = r.svg()
    assert svg is not None and r._repr_svg_() == svg
    img = raster(svg)
    check_canvas(svg, img)
    return svg, img


def test_a_static_pair_shows_both_footprints_and_the_witness_byte() -> None:
    # B0's shifted rows: rows of 4 floats every 9, one row apart.
    r = s.overlap(
        [
            TensorLayout([4, 4], [9, 1], 0, itemsize=4, source="L['a']"),
            TensorLayout([4, 4], [9, 1], 9, itemsize=4, source="L['b']"),
        ]
    )
    svg, img = picture(r)
    check_footprints(svg, img, 2)
    (pair,) = r.pairs
    assert pair.witness is not None
    check_witnesses(svg, img, [pair.witness.address])
    # The shared lane is red where the rows meet, white where they do not.
    _, y, _ = lane(next(g for g in lanes(svg) if g.get("id") == "shared"))
    y += 2
    lo, hi = axis(svg)
    at = lambda byte: int(LEFT + (byte - lo) * (PLOT_RIGHT - LEFT) / (hi - lo))  # noqa: E731
    assert near(img, y, y, at(40), at(40), colours(svg)["sh"], 10)
    assert (img[int(y), at(20)] == 255).all()
    assert "witness byte 36: L[&apos;a&apos;][1, 0] and L[&apos;b&apos;][0, 0]" in svg
    # The 2-D grid in rows of 36 bytes (the views' row stride): the witness
    # dot in the cell of byte 36 -- row 1, column 0 -- and red there.
    grid = ET.fromstring(svg).find(".//svg:g[@id='grid']", NS)
    assert grid is not None and "rows of 36 bytes" in svg
    (dot,) = grid.findall("svg:circle", NS)
    frame = grid.find("svg:rect", NS)
    assert frame is not None
    cell_w = (PLOT_RIGHT - LEFT) / 36
    cell_h = float(frame.get("height", 0)) / 5  # bytes 0..180: five rows
    cx, cy = float(dot.get("cx", 0)), float(dot.get("cy", 0))
    assert dot.get("data-address") == "36"
    assert abs(cx - (LEFT + 0.5 * cell_w)) < 0.2 and abs(cy - (float(frame.get("y", 0)) + 1.5 * cell_h)) < 0.2
    assert near(img, cy - 1, cy + 1, cx - 1, cx + 1, colours(svg)["sh"], 30)


def test_a_symbolic_group_is_drawn_at_its_hints_and_at_its_counterexample() -> None:
    n = Symbol(hint=5, min=1, max=100, source="L['x'].size()[0]")
    r = s.overlap(
        [
            TensorLayout([8], [1], 0, itemsize=4, source="x[:8]"),
            TensorLayout([4], [1], "s0 + 4", itemsize=4, source="x[s0+4:]"),
            TensorLayout([2], [1], 40, itemsize=4, source="x[40:]"),
        ],
        {"s0": n},
    )
    assert r.invariant is False and r.counterexample is not None
    svg, img = picture(r)
    check_footprints(svg, img, 3)
    assert f"at the counterexample: s0={r.counterexample['s0']}" in svg
    # Disjoint at the hints (no shared lane there), overlapping at the
    # counterexample (its panel has one), the guards listed.
    labels = [lane(g)[0] for g in lanes(svg)]
    assert labels == ["0", "1", "2", "shared", "0", "1", "2"]
    assert f"guards: {len(r.guards)}" in svg and len(r.guards) > 0


def test_a_self_overlapping_view_marks_the_bytes_it_reaches_twice() -> None:
    # Windows of 4 halves every 2 elements: elements reached twice.
    r = s.overlap(
        [TensorLayout([3, 4], [2, 1], 0, itemsize=2, source="w"), TensorLayout([4], [1], 20, itemsize=2, source="z")]
    )
    (so,) = r.self_overlap
    assert so.witness is not None
    svg, img = picture(r)
    check_footprints(svg, img, 2)
    check_witnesses(svg, img, [so.witness.address])
    tw = ET.fromstring(svg).findall(".//svg:rect[@class='tw']", NS)
    assert tw, "no bytes marked as reached twice"
    x = float(tw[0].get("x", 0)) + 1
    y = float(tw[0].get("y", 0)) + 2
    assert img[int(y), int(x)].max() < 120  # darkened
    assert "w reaches bytes twice" in svg


def test_a_group_of_1000_views_has_a_lane_each() -> None:
    # Blocks of 4 every 4 elements, every 100th one shifted onto its
    # neighbour: 10 overlapping pairs.
    views = [
        TensorLayout([4], [1], 4 * k + (2 if k % 100 == 1 else 0), itemsize=4, source=f"b{k}") for k in range(1000)
    ]
    r = s.overlap(views)
    assert len(r.pairs) == 10
    svg, img = picture(r)
    check_footprints(svg, img, 1000, sample=range(0, 1000, 37))
    check_witnesses(svg, img, [p.witness.address for p in r.pairs if p.witness])
    assert len(svg) < 200_000


def test_a_group_of_10000_views_stays_under_a_megabyte() -> None:
    views = [TensorLayout([16, 8], [64, 1], 8 * k, source=f"v{k}") for k in range(10_000)]
    svg = s.overlap(views, prove=False).svg()
    assert svg is not None
    assert len(lanes(svg)) >= 10_000
    assert len(svg.encode()) < 1_000_000, len(svg.encode())


def test_a_huge_view_is_drawn_by_its_extent_and_says_so() -> None:
    # numpy's hard instance: 1049^3 elements cannot be listed.
    r = s.overlap(
        [
            TensorLayout([1049, 1049, 1049], [36674, 61119, 85569], 0),
            TensorLayout([1049, 1049, 1], [12223, 12224, 1], 64023025),
        ]
    )
    svg, img = picture(r)
    check_footprints(svg, img, 2)
    assert "drawn by its extent" in svg


def test_a_result_read_from_a_document_has_no_picture() -> None:
    r = s.overlap([TensorLayout([4], [1], 0)], layouts_pinned=True)
    assert r.svg() is not None
    gs = s.GuardSet(r)
    assert len(gs) == 0


def test_a_program_draws_each_storage_group() -> None:
    # The recompile example: x's two views, refuted for some shapes.
    program = (pathlib.Path(__file__).parents[3] / "examples" / "recompile-29.json").read_text()
    r = s.analyze(program)
    svgs = r.svgs()
    assert svgs is not None and list(svgs) == ["x"]
    svg = svgs["x"]
    img = raster(svg)
    check_canvas(svg, img)
    check_footprints(svg, img, 3)
    # At the counterexample (s0=9) the third view has no elements.
    assert len(re.findall(r'<g id="l2"><text[^>]*>no bytes</text></g>', svg)) == 1
    assert "at the hints: s0=20" in svg and "at the counterexample: s0=9" in svg
    html = r._repr_html_()
    assert html is not None and svg in html and "<code>x</code>" in html
    # The answer alone (read back from its text) has no program to draw.
    back = pickle.loads(pickle.dumps(r))
    assert back == r and back.svgs() is None and back._repr_html_() is None
