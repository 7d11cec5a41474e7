#!/usr/bin/env bash
# fastzk MSM next to gnark-crypto (Go) in one run, interleaved, same sizes and threads.
#
#   crates/bench/run-msm-comparison.sh [LOG_SIZES...]      (default: 16 18 20)
#   THREADS=2 RUNS=5 CASES="bn254/g1 bls12-381/g1 bn254/g2" SCALARS="random clustered" ...
#
# Uses `fastzk bench msm` (release build of fastzk-cli).
set -euo pipefail
cd "$(dirname "$0")/../.."
SIZES=${*:-"16 18 20"}
THREADS=${THREADS:-2}
RUNS=${RUNS:-5}
CASES=${CASES:-"bn254/g1 bls12-381/g1 bn254/g2"}
SCALARS=${SCALARS:-"random clustered"}

cargo build --release -q -p fastzk-cli
FASTZK=(./target/release/fastzk bench msm)
GNARK=$(mktemp -d)/gnark-msm
(cd crates/bench/gnark && go build -o "$GNARK" .)

printf '%-22s %-10s %6s %12s %12s %8s  %s\n' case scalars log fastzk_ms gnark_ms ratio "fastzk engine/window"
for k in $SIZES; do
  for cg in $CASES; do
    curve=${cg%/*}; group=${cg#*/}
    for s in $SCALARS; do
      f=$("${FASTZK[@]}" --curve "$curve" --group "$group" --log-size "$k" --scalars "$s" \
            --threads "$THREADS" --runs "$RUNS" --no-check --json)
      g=$("$GNARK" -curve "$curve" -group "$group" -log-size "$k" -scalars "$s" \
            -threads "$THREADS" -runs "$RUNS")
      fm=$(echo "$f" | sed 's/.*"median_ms":\([0-9.]*\).*/\1/')
      gm=$(echo "$g" | sed 's/.*"median_ms":\([0-9.]*\).*/\1/')
      info=$(echo "$f" | sed 's/.*"engine":"\([^"]*\)","window":\([0-9]*\),"glv":\([a-z]*\),"grouped":\([a-z]*\).*/\1 c=\2 glv=\3 grouped=\4/')
      ratio=$(awk -v a="$gm" -v b="$fm" 'BEGIN { printf "%.2f", a / b }')
      printf '%-22s %-10s %6s %12.1f %12.1f %7sx  %s\n' "$cg" "$s" "$k" "$fm" "$gm" "$ratio" "$info"
    done
  done
done
