#!/usr/bin/env bash
# Runs the fuzz targets in fuzz/ (cargo-fuzz on libFuzzer, stable toolchain: the targets
# are built without a sanitizer, `-s none`, which needs no nightly compiler; with `-a`,
# debug assertions and integer-overflow checks on, so Rust's own checks catch what a
# sanitizer would in safe code).
#
#   scripts/fuzz.sh RUNS [TARGET...]       each target for RUNS executions
#   scripts/fuzz.sh --seconds S [TARGET...] each target for S seconds (CI's smoke run)
#
# Seeds are the real files the tests use (crates/testing/data), copied into
# fuzz/seeds/<target>; what libFuzzer learns goes to fuzz/corpus/<target> (not in git).
# Prints one line per target: executions, seconds, and the result (libFuzzer's output
# in fuzz/logs/<target>.log). A crash, hang (-timeout) or out-of-memory (-rss_limit_mb)
# stops the target, leaves the input in fuzz/artifacts/<target>/, and makes the script
# exit non-zero.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"

LIMIT=(-runs=10000000)
if [[ ${1:-} == --seconds ]]; then
  LIMIT=(-max_total_time="$2"); shift 2
elif [[ $# -gt 0 ]]; then
  LIMIT=(-runs="$1"); shift
fi
ALL=(r1cs wtns zkey_groth16 zkey_plonk ptau json_groth16 json_plonk json_public input_json spartan_proof wasm_patch)
TARGETS=("${@:-${ALL[@]}}")
[[ ${#TARGETS[@]} -gt 0 ]] || TARGETS=("${ALL[@]}")

if ! command -v cargo-fuzz >/dev/null 2>&1; then
  cargo install cargo-fuzz --locked --version 0.13.2
fi

D=../crates/testing/data
seed() { # seed TARGET FILE...: copies the files that exist, prefixed by their folder
  local target=$1 f; shift
  mkdir -p "seeds/$target"
  for f in "$@"; do
    if [[ -f $f ]]; then cp "$f" "seeds/$target/$(basename "$(dirname "$f")")_$(basename "$f")"; fi
  done
}
seed r1cs $D/bn254/*.r1cs $D/bls12_381/*.r1cs
seed wtns $D/bn254/*.wtns $D/bls12_381/*.wtns
seed zkey_groth16 $D/bn254/multiplier_final.zkey $D/bls12_381/multiplier_final.zkey
seed zkey_plonk $D/bn254/multiplier_plonk.zkey $D/bls12_381/multiplier_plonk.zkey
seed ptau $D/bls12_381/*.ptau $D/bn254/*.ptau
seed json_groth16 $D/bn254/multiplier_proof.json $D/bls12_381/multiplier_proof.json $D/bls12_381/multiplier_vk.json $D/bn254/multiplier_vk.json
seed json_plonk $D/bn254/multiplier_plonk_proof.json $D/bn254/multiplier_plonk_vk.json $D/bls12_381/multiplier_plonk_proof.json $D/bls12_381/multiplier_plonk_vk.json
seed json_public $D/bn254/multiplier_public.json $D/bls12_381/multiplier_public.json
seed input_json $D/multiplier_input.json $D/poly_input.json ../interop/circuits/*.json
seed spartan_proof $D/spartan/*.proof $D/spartan/*.skey
# circom's generators where the interop suite or the benchmarks compiled them (none in git).
seed wasm_patch ../interop/build/*/*_js/*.wasm ../interop/build/*/*/*_js/*.wasm

# -a: debug assertions on (integer overflow checks included), as in the tests.
cargo fuzz build -s none -O -a
# One thread each: libFuzzer runs one input at a time, and rayon's hand-offs would cost
# more than the parsing of these small inputs. Targets run side by side, one per core
# (FUZZ_JOBS overrides), each printing its line when it ends.
export RAYON_NUM_THREADS=1
JOBS=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}
mkdir -p logs
fuzz_one() { # fuzz_one TARGET: runs it, prints its line; non-zero on a finding
  local t=$1 log=logs/$1.log start=$SECONDS rc=0 runs
  mkdir -p "corpus/$t"
  cargo fuzz run -s none -O -a "$t" "corpus/$t" "seeds/$t" -- "${LIMIT[@]}" \
    -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 >"$log" 2>&1 || rc=$?
  runs=$(grep -o "Done [0-9]* runs" "$log" | grep -o "[0-9]*" || echo "?")
  [[ $runs == "?" ]] && runs=$(grep -o "stat::number_of_executed_units: *[0-9]*" "$log" | grep -o "[0-9]*$" || echo "?")
  if [[ $rc -eq 0 ]]; then
    echo "$t: $runs executions in $((SECONDS - start)) s, no crash, hang or out-of-memory"
  else
    echo "$t: FAILED after $runs executions (exit $rc); see fuzz/$log and fuzz/artifacts/$t/"
    tail -n 30 "$log" >&2
    return 1
  fi
}
FAILED=0
running=0
for t in "${TARGETS[@]}"; do
  if [[ $running -ge $JOBS ]]; then
    wait -n || FAILED=1
    running=$((running - 1))
  fi
  fuzz_one "$t" &
  running=$((running + 1))
done
while [[ $running -gt 0 ]]; do
  wait -n || FAILED=1
  running=$((running - 1))
done
exit $FAILED
