#!/usr/bin/env bash
# The base fields' Montgomery product and square: fastzk next to halo2curves (BN254),
# blst (BLS12-381), arkworks and gnark-crypto (goff's assembly), same loops, interleaved.
#
#   crates/bench/run-field-comparison.sh          ROUNDS=3 RUNS=5 by default
#
# Each round runs gnark-crypto's loops (`crates/bench/gnark -field`), then the Rust
# ones (`cargo bench -p fastzk-bench --bench field_peers`, which checks every peer's
# product against fastzk's first); a row is the median over the rounds of each round's
# median of RUNS samples. Cycles at the clock the Rust harness measures (dependent
# additions, one a cycle).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${ROUNDS:-3}
RUNS=${RUNS:-5}
OUT=$(mktemp -d)
GNARK=$OUT/gnark-msm
(cd crates/bench/gnark && go build -o "$GNARK" .)
cargo bench -q -p fastzk-bench --bench field_peers --no-run 2>/dev/null

for ((round = 1; round <= ROUNDS; round++)); do
  echo "round $round/$ROUNDS" >&2
  "$GNARK" -field -runs "$RUNS" >>"$OUT/lines"
  FASTZK_BENCH_ROUNDS=$RUNS cargo bench -q -p fastzk-bench --bench field_peers -- --json \
    2>/dev/null >>"$OUT/lines"
done

echo "Field products, single thread, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); median of $ROUNDS interleaved round(s) of $RUNS"
# One row per (field, operation): fastzk's ns and cycles, then each peer's ns and its
# time over fastzk's.
sed 's/[{}"]//g; s/,/ /g' "$OUT/lines" | awk '
  {
    for (i = 1; i <= NF; i++) { split($i, kv, ":"); f[kv[1]] = kv[2] }
    key = f["field"] " " f["op"]
    if (!(key in seen)) { seen[key] = 1; keys[++nk] = key }
    if (!((key, f["impl"]) in nimpl)) { nimpl[key, f["impl"]] = 0; if (!(f["impl"] in known)) { known[f["impl"]] = 1; impls[++ni] = f["impl"] } }
    v[key, f["impl"], ++nimpl[key, f["impl"]]] = f["ns"]
    if (f["ghz"] != "") ghz[++ng] = f["ghz"]
    delete f
  }
  function med(key, who,   n, i, j, t, a) {
    n = nimpl[key, who]
    for (i = 1; i <= n; i++) a[i] = v[key, who, i]
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  END {
    for (i = 1; i <= ng; i++) g[i] = ghz[i]
    for (i = 1; i <= ng; i++) for (j = i + 1; j <= ng; j++) if (g[j] < g[i]) { t = g[i]; g[i] = g[j]; g[j] = t }
    clock = g[int((ng + 1) / 2)]
    printf "clock %.2f GHz; ns (cycles), and each peer against fastzk\n", clock
    for (k = 1; k <= nk; k++) {
      key = keys[k]; base = med(key, "fastzk")
      line = sprintf("%-13s %-13s fastzk %6.2f (%5.1f)", substr(key, 1, index(key, " ") - 1), substr(key, index(key, " ") + 1), base, base * clock)
      for (i = 1; i <= ni; i++) {
        who = impls[i]
        if (who == "fastzk" || !((key, who) in nimpl)) continue
        m = med(key, who)
        line = line sprintf("  %s %6.2f (%5.1f) %.2fx", who, m, m * clock, m / base)
      }
      print line
    }
  }'
rm -rf "$OUT"
