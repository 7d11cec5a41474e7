#!/usr/bin/env bash
# The portable path, what a CPU without MULX/ADX or AVX-512 IFMA (an ARM64 one, say) runs:
# the field, curve and MSM test binaries that `cargo test --workspace --profile ci
# --all-features` built, run again with the assembly and the lanes switched off
# (FASTZK_NO_ADX=1, FASTZK_NO_IFMA=1) — except the `ifma` ones, which check the lanes
# against their software model whatever the switches say. Those switches change only the field arithmetic
# underneath, and these suites test it against num-bigint and arkworks on every shape;
# the provers above call the same functions. Nothing is rebuilt: run it after the test
# command (it runs `cargo test … --no-run` only to list the binaries).
set -euo pipefail
cd "$(dirname "$0")/.."

mapfile -t tests < <(
  cargo test --workspace --profile ci --all-features --no-run --message-format=json 2>/dev/null |
    python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") != "compiler-artifact" or not m.get("executable"):
        continue
    package = m["package_id"].split("#")[-1].split("@")[0]
    if m["profile"]["test"] and package in ("fastzk-field", "fastzk-curve", "fastzk-msm") \
            and m["target"]["name"] != "ifma":
        print(m["executable"])
')
[[ ${#tests[@]} -gt 0 ]] || { echo "no field, curve or MSM test binaries found" >&2; exit 2; }

export FASTZK_NO_ADX=1 FASTZK_NO_IFMA=1
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
for t in "${tests[@]}"; do
  if "$t" -q >"$log" 2>&1; then
    echo "portable path: $(basename "$t"): $(grep -E '^test result' "$log" | tail -n 1)"
  else
    echo "portable path: $(basename "$t"): FAILED"
    cat "$log"
    status=1
  fi
done
exit $status
