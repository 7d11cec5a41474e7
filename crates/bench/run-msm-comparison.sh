#!/usr/bin/env bash
# fastzk MSM next to gnark-crypto (Go) in one run, interleaved, same sizes and threads.
#
#   crates/bench/run-msm-comparison.sh [LOG_SIZES...]      (default: 16 18 20)
#   THREADS=2 RUNS=5 CASES="bn254/g1 bls12-381/g1 bn254/g2" SCALARS="random clustered" ...
#   LEVELS="ifma adx portable" ROUNDS=3 ...
#
# LEVELS: the CPU feature levels fastzk runs at, each a row of its own (default "default":
# what the CPU has; adx is FASTZK_NO_IFMA=1, portable FASTZK_NO_ADX=1 FASTZK_NO_IFMA=1
# FASTZK_NO_FMA_LANES=1).
# ROUNDS: how many times the whole interleaved sequence (gnark, then each level) repeats;
# a row shows the median over the rounds of each round's median of RUNS runs, and the
# ratio of those medians.
# Uses `fastzk bench msm` (release build of fastzk-cli).
set -euo pipefail
cd "$(dirname "$0")/../.."
SIZES=${*:-"16 18 20"}
THREADS=${THREADS:-2}
RUNS=${RUNS:-5}
ROUNDS=${ROUNDS:-1}
CASES=${CASES:-"bn254/g1 bls12-381/g1 bn254/g2"}
SCALARS=${SCALARS:-"random clustered"}
LEVELS=${LEVELS:-default}

source scripts/feature-levels.sh   # level_env, check_levels
source interop/bench-lib.sh        # median
check_levels "$LEVELS"

cargo build --release -q -p fastzk-cli
FASTZK=$PWD/target/release/fastzk
GNARK=$(mktemp -d)/gnark-msm
(cd crates/bench/gnark && go build -o "$GNARK" .)
median_ms() { sed 's/.*"median_ms":\([0-9.]*\).*/\1/'; }

declare -A ms=() info=()
for ((round = 1; round <= ROUNDS; round++)); do
  for k in $SIZES; do
    for cg in $CASES; do
      curve=${cg%/*}; group=${cg#*/}
      for s in $SCALARS; do
        row="$cg $s $k"
        g=$("$GNARK" -curve "$curve" -group "$group" -log-size "$k" -scalars "$s" \
              -threads "$THREADS" -runs "$RUNS" | median_ms)
        ms[$row gnark]+="$g "
        echo "round $round/$ROUNDS $row gnark-crypto: $g ms" >&2
        for level in $LEVELS; do
          # shellcheck disable=SC2046 # the switches are words by design
          f=$(env $(level_env "$level") "$FASTZK" bench msm --curve "$curve" --group "$group" \
                --log-size "$k" --scalars "$s" --threads "$THREADS" --runs "$RUNS" --no-check --json)
          ms[$row $level]+="$(median_ms <<<"$f") "
          info[$row $level]=$(echo "$f" | sed 's/.*"engine":"\([^"]*\)","window":\([0-9]*\),"glv":\([a-z]*\),"grouped":\([a-z]*\).*/\1 c=\2 glv=\3 grouped=\4/')
          echo "round $round/$ROUNDS $row fastzk $level: $(median_ms <<<"$f") ms" >&2
        done
      done
    done
  done
done

echo "MSM, $THREADS threads, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); median of $ROUNDS interleaved round(s) of $RUNS runs"
printf '%-22s %-10s %4s %-9s %12s %12s %8s  %s\n' case scalars log level fastzk_ms gnark_ms ratio "fastzk engine/window"
for k in $SIZES; do
  for cg in $CASES; do
    for s in $SCALARS; do
      row="$cg $s $k"
      gm=$(median <<<"${ms[$row gnark]}")
      for level in $LEVELS; do
        fm=$(median <<<"${ms[$row $level]}")
        ratio=$(awk -v a="$gm" -v b="$fm" 'BEGIN { printf "%.2f", a / b }')
        printf '%-22s %-10s %4s %-9s %12.1f %12.1f %7sx  %s\n' "$cg" "$s" "$k" "$level" "$fm" "$gm" "$ratio" "${info[$row $level]}"
      done
    done
  done
done
