#!/usr/bin/env bash
# The portable path, what a CPU without MULX/ADX or AVX-512 IFMA (an ARM64 one, say) runs:
# every test of the README's Rust test command run again with the assembly and the lanes
# switched off (FASTZK_NO_ADX=1, FASTZK_NO_IFMA=1, FASTZK_NO_FMA_LANES=1). The switches
# change only the arithmetic underneath (the field products, the MSM flush, the NTT rows,
# Plonk's round 3),
# so every prover, engine and format test then checks the portable code against the same
# references; the IFMA trials check the lanes against their software model whatever the
# switches say, and report their runs on the CPU's instructions and the FMA lanes ignored. Nothing is
# rebuilt: run it after the test command (the switches are read at run time). Every test
# with a quarter of its random cases (FASTZK_TEST_CASES_PERCENT, as under qemu): the test
# command drew them all on the same tests a moment before.
set -euo pipefail
cd "$(dirname "$0")/.."
export FASTZK_TEST_CASES_PERCENT=${FASTZK_TEST_CASES_PERCENT:-25}

log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
FASTZK_NO_ADX=1 FASTZK_NO_IFMA=1 FASTZK_NO_FMA_LANES=1 cargo test --workspace --profile ci --all-features >"$log" 2>&1 ||
  status=$?
awk '/^test result/ { p += $4; f += $6; i += $8; n++ }
     END { printf "portable path: %d test binaries, %d passed, %d failed, %d ignored\n", n, p, f, i }' "$log"
if [[ $status -ne 0 ]]; then
  grep -E '^(test .* FAILED|failures:|---- )|panicked' "$log" | head -n 60
  echo "portable path: FAILED (cargo test exit status $status)"
fi
exit $status
