#!/usr/bin/env bash
# The Node-free pipeline for BENCHMARKS.md: `fastzk groth16 fullprove` next to
# `snarkjs groth16 fullprove`, and `fastzk witness calculate` next to `snarkjs wtns
# calculate`, on circomlib's SHA-256 (64-byte message) with the same .wasm, input and
# zkey. Whole process, wall clock, runs interleaved, medians; peak RSS from GNU time.
# fastzk's first run (compiling the .wasm, checking the key's points) is reported
# apart: later runs use the compiled module and the validated-key mark in the cache.
#
# Env:
#   FASTZK     fastzk binary (default: cargo build --release -p fastzk-cli)
#   N          runs per command (default 5)
#   SHA_SETUP  where the zkey comes from: "fastzk" (default: random setup, seconds) or
#              "snarkjs" (a powers-of-tau ceremony and groth16 setup: many minutes)
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$HERE")
cd "$HERE"

N=${N:-5}
SHA_SETUP=${SHA_SETUP:-fastzk}
B=build/bench-fullprove
mkdir -p "$B"

if [[ -z "${FASTZK:-}" ]]; then
  (cd "$ROOT" && cargo build --release -p fastzk-cli)
  FASTZK=$ROOT/target/release/fastzk
fi
if ! /usr/bin/time -f %M true >/dev/null 2>&1; then
  apt-get install -y -qq time >/dev/null
fi
[[ -d node_modules ]] || npm ci --no-audit --no-fund --loglevel=error
SNARKJS=$HERE/node_modules/.bin/snarkjs
CIRCOM=$HERE/node_modules/.bin/circom2
TOOL="node $HERE/tools/interop.js"
source "$HERE/bench-lib.sh"   # quiet, run_once, median

c=sha256_64
WASM=$B/${c}_js/$c.wasm INPUT=circuits/$c.input.json ZKEY=$B/$c.zkey VK=$B/$c.vk.json
quiet "$CIRCOM" "circuits/$c.circom" --r1cs --wasm -l node_modules -o "$B"
case $SHA_SETUP in
  fastzk) quiet "$FASTZK" groth16 setup "$B/$c.r1cs" "$ZKEY" --vk "$VK" ;;
  snarkjs)
    POWER=$($TOOL ptau-power "$B/$c.r1cs")
    quiet "$SNARKJS" powersoftau new bn128 "$POWER" "$B/pot_0.ptau"
    quiet "$SNARKJS" powersoftau contribute "$B/pot_0.ptau" "$B/pot_1.ptau" --name=bench -e="fastzk bench entropy"
    quiet "$SNARKJS" powersoftau prepare phase2 "$B/pot_1.ptau" "$B/pot.ptau"
    quiet "$SNARKJS" groth16 setup "$B/$c.r1cs" "$B/pot.ptau" "$ZKEY"
    quiet "$SNARKJS" zkey export verificationkey "$ZKEY" "$VK" ;;
  *) echo "SHA_SETUP must be fastzk or snarkjs" >&2; exit 2 ;;
esac

# First use: a fresh cache folder, so the module is compiled and the key checked.
export FASTZK_CACHE_DIR=$B/cache
rm -rf "$FASTZK_CACHE_DIR"
run_once r "$FASTZK" groth16 fullprove "$INPUT" "$WASM" "$ZKEY" "$B/fz_proof.json" "$B/fz_public.json"
echo "fastzk fullprove, first use (compile the .wasm, check the key): ${r% *} s, peak RSS ${r#* } KiB" >&2
rm -rf "$FASTZK_CACHE_DIR/wasm"
run_once r "$FASTZK" witness calculate "$WASM" "$INPUT" "$B/fz.wtns"
echo "fastzk witness calculate, first use (compile the .wasm): ${r% *} s, peak RSS ${r#* } KiB" >&2

declare -A times=() rss=()
for ((i = 1; i <= N; i++)); do
  for p in fz-fullprove sj-fullprove fz-wtns sj-wtns; do
    case $p in
      fz-fullprove) run_once r "$FASTZK" groth16 fullprove "$INPUT" "$WASM" "$ZKEY" "$B/fz_proof.json" "$B/fz_public.json" ;;
      sj-fullprove) run_once r "$SNARKJS" groth16 fullprove "$INPUT" "$WASM" "$ZKEY" "$B/sj_proof.json" "$B/sj_public.json" ;;
      fz-wtns) run_once r "$FASTZK" witness calculate "$WASM" "$INPUT" "$B/fz.wtns" ;;
      sj-wtns) run_once r "$SNARKJS" wtns calculate "$WASM" "$INPUT" "$B/sj.wtns" ;;
    esac
    times[$p]+="${r% *} "
    rss[$p]+="${r#* } "
    echo "  run $i/$N $p: ${r% *} s, peak RSS ${r#* } KiB" >&2
  done
done
cmp "$B/fz.wtns" "$B/sj.wtns" || { echo "the witnesses differ" >&2; exit 1; }
for p in fz sj; do
  "$SNARKJS" groth16 verify "$VK" "$B/${p}_public.json" "$B/${p}_proof.json" >"$B/verify.log" 2>&1 \
    || { cat "$B/verify.log" >&2; echo "the $p fullprove proof does not verify" >&2; exit 1; }
done

m() { median <<<"${times[$1]}"; }
mib() { awk -v k="$(median <<<"${rss[$1]}")" 'BEGIN { printf "%.0f", k / 1024 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a / b }'; }
CPU=$(grep -m1 "model name" /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
echo
echo "SHA-256 (64-byte message), BN254, zkey from $SHA_SETUP setup; whole process, median of $N interleaved runs; $(nproc) cores, $CPU, node $(node --version), snarkjs $("$SNARKJS" --version 2>/dev/null | head -n1 | grep -o '[0-9.]*' | head -n1)"
echo
echo "| command | snarkjs (s) | fastzk (s) | snarkjs / fastzk | snarkjs peak RSS (MiB) | fastzk peak RSS (MiB) |"
echo "|---|---:|---:|---:|---:|---:|"
echo "| groth16 fullprove | $(m sj-fullprove) | $(m fz-fullprove) | $(ratio "$(m sj-fullprove)" "$(m fz-fullprove)") | $(mib sj-fullprove) | $(mib fz-fullprove) |"
echo "| wtns calculate / witness calculate | $(m sj-wtns) | $(m fz-wtns) | $(ratio "$(m sj-wtns)" "$(m fz-wtns)") | $(mib sj-wtns) | $(mib fz-wtns) |"
