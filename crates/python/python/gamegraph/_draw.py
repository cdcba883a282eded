"""Trees drawn as SVG for Jupyter, without Graphviz: leaves side by side in search order, each
inner node above the middle of its children, MAX nodes as upward triangles and MIN nodes as
downward ones, the value the search returned inside, pruned subtrees dashed and grey."""

from __future__ import annotations

from html import escape
from typing import Any, Dict, List

_STEP_X = 46
_STEP_Y = 70
_SIZE = 17
_MARGIN = 30


def _layout(shape: List[Dict[str, Any]]) -> Dict[int, tuple]:
    """(x, y) of every node: leaves in order, parents centred over their children."""
    at: Dict[int, tuple] = {}
    next_leaf = [0]

    def place(node: int, depth: int) -> float:
        children = shape[node]["children"]
        if not children:
            x = next_leaf[0] * _STEP_X
            next_leaf[0] += 1
        else:
            xs = [place(c, depth + 1) for c in children]
            x = (xs[0] + xs[-1]) / 2
        at[node] = (x + _MARGIN, depth * _STEP_Y + _MARGIN + 10)
        return x

    # Trees can be deep: an explicit stack would do, but the seed's trees are small and the
    # drawing is for trees one can look at.
    place(0, 0)
    return at


def _triangle(x: float, y: float, up: bool) -> str:
    s = _SIZE
    if up:
        points = [(x, y - s), (x - s, y + s * 0.8), (x + s, y + s * 0.8)]
    else:
        points = [(x, y + s), (x - s, y - s * 0.8), (x + s, y - s * 0.8)]
    return " ".join(f"{px:.1f},{py:.1f}" for px, py in points)


def tree_svg(shape: List[Dict[str, Any]], pruned: List[str]) -> str:
    """The SVG picture of a searched tree (the ``shape`` of ``gamegraph tree --json``)."""
    at = _layout(shape)
    width = max(x for x, _ in at.values()) + _MARGIN + _SIZE
    height = max(y for _, y in at.values()) + _MARGIN + _SIZE
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'font-family="Helvetica, Arial, sans-serif" font-size="12">'
    ]
    for node in shape:
        x, y = at[node["id"]]
        for child in node["children"]:
            cx, cy = at[child]
            cut = shape[child]["pruned"]
            style = 'stroke="#bbb" stroke-dasharray="4 3"' if cut else 'stroke="#444"'
            out.append(f'<line x1="{x:.1f}" y1="{y + _SIZE * 0.8:.1f}" x2="{cx:.1f}" '
                       f'y2="{cy - _SIZE:.1f}" {style}/>')
    for node in shape:
        x, y = at[node["id"]]
        cut = node["pruned"]
        fill = "#f4f4f4" if cut else ("#dff0d8" if node["max"] else "#f2dede")
        stroke = "#bbb" if cut else "#444"
        shown = node["leaf"] if node["leaf"] is not None else node["returned"]
        text = "" if shown is None else str(shown)
        title = escape(node["name"] + (f" ({node['label']})" if node.get("label") else ""))
        if node["children"]:
            out.append(f'<polygon points="{_triangle(x, y, node["max"])}" fill="{fill}" '
                       f'stroke="{stroke}"><title>{title}</title></polygon>')
            if node.get("label"):
                out.append(f'<text x="{x + _SIZE + 4:.1f}" y="{y - 4:.1f}" fill="#555">'
                           f'{escape(node["label"])}</text>')
        else:
            out.append(f'<rect x="{x - 13:.1f}" y="{y - 11:.1f}" width="26" height="22" rx="3" '
                       f'fill="{fill}" stroke="{stroke}"><title>{title}</title></rect>')
        colour = "#aaa" if cut else "#000"
        out.append(f'<text x="{x:.1f}" y="{y + 4:.1f}" text-anchor="middle" fill="{colour}">'
                   f'{escape(text)}</text>')
    out.append("</svg>")
    return "".join(out)
