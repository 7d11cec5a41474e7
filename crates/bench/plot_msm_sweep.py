#!/usr/bin/env python3
"""Plots the MSM size sweep (CSV from `cargo bench -p fastzk-bench --bench msm_sweep`).

    python3 crates/bench/plot_msm_sweep.py sweep.csv docs/msm-sweep.png

One panel per group, time per point against log2(n), one line per implementation
(solid: random scalars, dashed: clustered). Needs matplotlib (`pip install matplotlib`).
"""

import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main() -> None:
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    src, dst = sys.argv[1], sys.argv[2]
    rows = defaultdict(list)
    with open(src, newline="") as f:
        for r in csv.DictReader(f):
            rows[(r["group"], r["impl"], r["scalars"])].append(
                (int(r["log_n"]), float(r["median_ms"]))
            )
    groups = sorted({g for g, _, _ in rows})
    colours = {"fastzk": "tab:red", "arkworks": "tab:blue", "halo2curves": "tab:green"}
    cols = 2
    nrows = (len(groups) + cols - 1) // cols
    fig, axes = plt.subplots(nrows, cols, figsize=(11, 4.2 * nrows), squeeze=False)
    for ax, group in zip(axes.flat, groups):
        for (g, impl, scalars), pts in sorted(rows.items()):
            if g != group:
                continue
            pts.sort()
            xs = [k for k, _ in pts]
            # Nanoseconds per point makes every size readable on one axis.
            ys = [ms * 1e6 / (1 << k) for k, ms in pts]
            ax.plot(
                xs,
                ys,
                marker="o",
                linestyle="-" if scalars == "random" else "--",
                color=colours.get(impl, "black"),
                label=f"{impl} ({scalars})",
            )
        ax.set_title(f"MSM {group}")
        ax.set_xlabel("log2(n)")
        ax.set_ylabel("ns per point (median)")
        ax.set_yscale("log")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    for ax in list(axes.flat)[len(groups):]:
        ax.set_visible(False)
    fig.suptitle("fastzk vs arkworks 0.5 vs halo2curves 0.10, 2 threads (lower is better)")
    fig.tight_layout()
    fig.savefig(dst, dpi=110)


if __name__ == "__main__":
    main()
