#!/usr/bin/env python3
"""The scaling model of docs/SCALING.md: predicted time of a distributed Groth16 proof
(`mpirun -np N fastzk groth16 prove ... --distributed`) from single-rank measurements and
the communication volume.

    T(n, N) = F + R(n) + Q(n) + S(n, N) + M(n) * N^-gamma

F: process and MPI start; R: witness read and key header; Q: A.z, B.z and the quotient's
NTTs (rank 0 only); S: rank 0's sends, (N - 1)/N * (n_vars + n) * 32 bytes at bandwidth
beta; M: the five MSMs on one rank; gamma: how an MSM's time falls with its share,
fitted on one rank at two sizes. With `--check`, the 2^20 predictions for 2 and 3
single-thread ranks on this 2-core machine are printed next to the measured times.
"""

import math
import statistics
import sys

MIB = 1 << 20

# Single-thread ranks on this machine (AMD EPYC Zen 4, 2 cores), synthetic circuits,
# `mpirun -np 1 -x RAYON_NUM_THREADS=1 fastzk groth16 prove ... --distributed
# --trusted-key --timings`; seconds (second of two runs).
ONE_RANK = {
    18: dict(wall=3.84, total=3.49, q=0.166 + 0.312, m=0.437 + 0.439 + 1.690 + 0.418),
    20: dict(wall=13.51, total=13.15, q=0.830 + 1.391, m=1.658 + 1.737 + 5.791 + 1.642),
}
# Rank 0's sends at 2^18 on 2 ranks: 8 MiB in 10.1 + 7.8 ms (MPI over shared memory).
BETA_HERE = 8 * MIB / 0.0179
# Measured on 2 and 3 ranks at 2^20 (wall of mpirun, two runs each).
MEASURED_2_20 = {2: (8.14, 8.12), 3: (8.78, 8.59)}

# One machine = this one with both cores (threads = 2): the bounded prover's phases at
# 2^24 and 2^26 (BENCHMARKS.md), seconds.
MACHINE = {
    24: dict(q=8.5 + 14.1, m=13.1 + 13.8 + 47.8 + 12.7),
    26: dict(q=47.7 + 60.6, m=53.1 + 54.5 + 189.3 + 52.5),
}
BETA_10GBE = 1.1e9  # bytes/s a 10 Gb/s link carries in practice


def gamma():
    a, b = ONE_RANK[18]["m"], ONE_RANK[20]["m"]
    return math.log(b / a) / math.log(4)


def sent_bytes(log_n, ranks):
    n = 1 << log_n
    return (ranks - 1) / ranks * (2 * n) * 32  # n_vars ~ n for the synthetic circuits


def predict_here(log_n, ranks, cores=2):
    """Single-thread ranks on one machine with `cores` cores."""
    r = ONE_RANK[log_n]
    fixed = r["wall"] - r["m"] - r["q"]  # process, MPI, witness, key header
    share = r["m"] * ranks ** -gamma()
    share *= max(1.0, ranks / cores)  # oversubscribed ranks share the cores
    return fixed + r["q"] + sent_bytes(log_n, ranks) / BETA_HERE + share


def machine_phases(log_n):
    if log_n in MACHINE:
        return MACHINE[log_n]
    # 2^28 from 2^26: the sums and MSMs linear, the NTTs n log n.
    m26 = MACHINE[26]
    spmv, ntt = 47.7, 60.6
    scale = 1 << (log_n - 26)
    return dict(q=spmv * scale + ntt * scale * log_n / 26, m=m26["m"] * scale)


def predict_cluster(log_n, machines, beta):
    p = machine_phases(log_n)
    read = 0.1 * (1 << (log_n - 20))  # the witness and the key's header, as at 2^20
    return 0.4 + read + p["q"] + sent_bytes(log_n, machines) / beta + p["m"] * machines ** -gamma()


def main():
    print(f"gamma (MSM time ~ share^gamma, from one rank at 2^18 and 2^20): {gamma():.3f}")
    print(f"beta here (rank 0's sends at 2^18, 2 ranks): {BETA_HERE / MIB:.0f} MiB/s")
    print()
    print("single-thread ranks on this 2-core machine, 2^20:")
    print("| ranks | predicted (s) | measured (s) | predicted / measured |")
    print("| ---: | ---: | --- | ---: |")
    worst = 0.0
    for ranks, runs in MEASURED_2_20.items():
        pred = predict_here(20, ranks)
        med = statistics.median(runs)
        worst = max(worst, abs(pred / med - 1))
        print(f"| {ranks} | {pred:.2f} | {', '.join(f'{t:.2f}' for t in runs)} | {pred / med:.3f} |")
    print()
    print("machines like this one (2 cores each), 10 Gb/s links, predicted seconds:")
    ns = (1, 2, 4, 8, 16, 32)
    print("| constraints | " + " | ".join(f"N={n}" for n in ns) + " | limit (N to infinity) |")
    print("| --- | " + " | ".join("---:" for _ in ns) + " | ---: |")
    for log_n in (24, 26, 28):
        row = [predict_cluster(log_n, n, BETA_10GBE) for n in ns]
        p = machine_phases(log_n)
        limit = 0.4 + 0.1 * (1 << (log_n - 20)) + p["q"] + 2 * (1 << log_n) * 32 / BETA_10GBE
        print(f"| 2^{log_n} | " + " | ".join(f"{t:.0f}" for t in row) + f" | {limit:.0f} |")
    if "--check" in sys.argv and worst > 0.25:
        print(f"the 2-rank prediction is off by {worst:.0%}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
