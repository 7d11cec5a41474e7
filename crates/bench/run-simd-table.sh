#!/usr/bin/env bash
# The IFMA engine next to the scalar engine and gnark-crypto, in the shape of SimdMSM's
# Table 4: single-thread and two-thread times with speedups, one line per size.
#
#   crates/bench/run-simd-table.sh                 # defaults below
#   CASES="bn254/g1 bls12-381/g1 bn254/pair" SIZES="15 16 18 20" RUNS=3 crates/bench/run-simd-table.sh
#
# "scalar" is the same fast engine with the lane flushes off (FASTZK_NO_IFMA=1
# FASTZK_NO_FMA_LANES=1); "pair"
# is the G1 and G2 MSMs over one scalar vector (gnark-crypto: its G1 and G2 times added).
set -euo pipefail
cd "$(dirname "$0")/../.."
CASES=${CASES:-"bn254/g1 bls12-381/g1 bn254/g2 bn254/pair"}
SIZES=${SIZES:-"15 16 18 20"}
RUNS=${RUNS:-3}

cargo build --release -q -p fastzk-cli
FASTZK=(./target/release/fastzk bench msm --no-check --json --runs "$RUNS")
GNARK=$(mktemp -d)/gnark-msm
(cd crates/bench/gnark && go build -o "$GNARK" .)

median() { sed 's/.*"median_ms":\([0-9.]*\).*/\1/'; }
fz() { # curve group threads [env]
  env ${4:-} "${FASTZK[@]}" --curve "$1" --group "$2" --log-size "$k" --threads "$3" | median
}
gn() { # curve group threads
  if [ "$2" = pair ]; then
    a=$("$GNARK" -curve "$1" -group g1 -log-size "$k" -threads "$3" -runs "$RUNS" | median)
    b=$("$GNARK" -curve "$1" -group g2 -log-size "$k" -threads "$3" -runs "$RUNS" | median)
    awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", a + b }'
  else
    "$GNARK" -curve "$1" -group "$2" -log-size "$k" -threads "$3" -runs "$RUNS" | median
  fi
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

printf '%-14s %4s %11s %11s %7s %11s %11s %7s %11s %8s\n' case log scalar_1t simd_1t x scalar_2t simd_2t x gnark_2t simd/gn
for cg in $CASES; do
  curve=${cg%/*}; group=${cg#*/}
  for k in $SIZES; do
    s1=$(fz "$curve" "$group" 1 "FASTZK_NO_IFMA=1 FASTZK_NO_FMA_LANES=1")
    v1=$(fz "$curve" "$group" 1)
    s2=$(fz "$curve" "$group" 2 "FASTZK_NO_IFMA=1 FASTZK_NO_FMA_LANES=1")
    v2=$(fz "$curve" "$group" 2)
    g2=$(gn "$curve" "$group" 2)
    printf '%-14s %4s %11.1f %11.1f %6sx %11.1f %11.1f %6sx %11.1f %7sx\n' "$cg" "$k" \
      "$s1" "$v1" "$(ratio "$s1" "$v1")" "$s2" "$v2" "$(ratio "$s2" "$v2")" "$g2" "$(ratio "$g2" "$v2")"
  done
done
