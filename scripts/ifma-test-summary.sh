#!/usr/bin/env bash
# Counts, from a `cargo test` log, how the IFMA engine's checks ran: on the CPU's AVX-512
# IFMA instructions (`…::on_avx512 … ok`), on the software model of the lanes
# (`…::on_model … ok`), on the FMA lanes (`…::on_fma … ok`), and ignored (with their
# reasons); how the packed Goldilocks
# backend checks ran (`…::backend_* … ok` or ignored); and how many tests of the whole run
# were ignored. Fails when no check ran on the model, which runs on every host: the IFMA
# suite must never disappear silently.
#
# usage: scripts/ifma-test-summary.sh cargo-test.log
set -euo pipefail
log=${1:?usage: $0 cargo-test.log}

real=$(grep -cE '^test .*::on_avx512 +\.\.\. ok$' "$log" || true)
model=$(grep -cE '^test .*::on_model +\.\.\. ok$' "$log" || true)
ignored=$(grep -cE '^test .*::on_avx512 +\.\.\. ignored' "$log" || true)
fma=$(grep -cE '^test .*::on_fma +\.\.\. ok$' "$log" || true)
fma_ignored=$(grep -cE '^test .*::on_fma +\.\.\. ignored' "$log" || true)
failed=$(grep -cE '^test .*::on_(avx512|model|fma) +\.\.\. FAILED' "$log" || true)
all_ignored=$(grep -oE '[0-9]+ ignored;' "$log" | awk '{s += $1} END {print s + 0}')

echo "IFMA engine checks: ${real} on the CPU's instructions, ${model} on the software model, ${fma} on the FMA lanes, ${ignored} + ${fma_ignored} ignored, ${failed} failed"
if [[ $ignored -gt 0 ]]; then
  grep -oE '::on_avx512 +\.\.\. ignored \(.*\)' "$log" | sed -E 's/.*ignored \((.*)\)/\1/' | sort | uniq -c |
    while read -r n why; do echo "  ignored on the instructions: ${n} (${why})"; done
fi
gl_ran=$(grep -cE '^test .*::backend_[a-z0-9]+ +\.\.\. ok$' "$log" || true)
gl_ignored=$(grep -cE '^test .*::backend_[a-z0-9]+ +\.\.\. ignored' "$log" || true)
echo "packed Goldilocks backend checks: ${gl_ran} ran, ${gl_ignored} ignored"
echo "ignored tests in the whole run: ${all_ignored}"
if [[ $model -eq 0 ]]; then
  echo "error: no IFMA check ran on the model" >&2
  exit 1
fi
