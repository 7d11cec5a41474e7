#!/usr/bin/env bash
# Plonk prover benchmark for BENCHMARKS.md: fastzk next to snarkjs on the same zkey and
# witness, and fastzk Plonk next to fastzk Groth16 on same-sized synthetic circuits.
#
# Each measurement is the whole process (start-up, file reading, proving, writing
# proof.json), wall-clock, with peak RSS from GNU time; runs of the provers are
# interleaved and the table shows medians. Keys come from `fastzk plonk setup
# --random-tau` (a snarkjs powers-of-tau ceremony at these sizes takes hours on two
# cores); snarkjs proves with them and verifies every proof.
#
# Env:
#   FASTZK         fastzk binary (default: cargo build --release -p fastzk-cli)
#   N              runs per prover and instance (default 3)
#   SIZES          log2 gate counts of the synthetic circuits (default "16 18 20")
#   SNARKJS_SIZES  the sizes snarkjs is timed at too (default "16 18"; 2^20 takes it
#                  many minutes a run)
#   SHA256         1 (default) to include the SHA-256 circuit
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$HERE")
cd "$HERE"

N=${N:-3}
SIZES=${SIZES-16 18 20}
SNARKJS_SIZES=${SNARKJS_SIZES-16 18}
B=build/bench-plonk
mkdir -p "$B"

if [[ -z "${FASTZK:-}" ]]; then
  (cd "$ROOT" && cargo build --release -p fastzk-cli)
  FASTZK=$ROOT/target/release/fastzk
fi
[[ -x "$FASTZK" ]] || { echo "FASTZK=$FASTZK is not an executable" >&2; exit 2; }
if ! /usr/bin/time -f %M true >/dev/null 2>&1; then
  apt-get install -y -qq time >/dev/null
fi
[[ -d node_modules ]] || npm ci --no-audit --no-fund --loglevel=error
SNARKJS=$HERE/node_modules/.bin/snarkjs
CIRCOM=$HERE/node_modules/.bin/circom2
source "$HERE/bench-lib.sh"   # quiet, run_once, median

mib() { [[ $1 == - ]] && echo - || awk -v k="$1" 'BEGIN { printf "%.0f", k / 1024 }'; }
ratio() { [[ $1 == - || $2 == - ]] && echo - || awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

ROWS=()
# bench NAME GATES ZKEY WTNS VK WITH_SNARKJS [GROTH16_ZKEY GROTH16_WTNS]
bench() {
  local name=$1 gates=$2 zkey=$3 wtns=$4 vk=$5 with_sj=$6 gzkey=${7:-} gwtns=${8:-}
  local provers=(fastzk) p i r
  [[ $with_sj == 1 ]] && provers+=(snarkjs)
  [[ -n $gzkey ]] && provers+=(groth16)
  declare -A times=() rss=()
  # First use checks every key point and remembers the key (~/.cache/fastzk).
  run_once r "$FASTZK" plonk prove "$zkey" "$wtns" "$B/proof_fastzk.json" "$B/public_fastzk.json"
  echo "  $name fastzk first use (full key check): ${r% *} s, peak RSS ${r#* } KiB" >&2
  [[ -z $gzkey ]] || run_once r "$FASTZK" groth16 prove "$gzkey" "$gwtns" "$B/gproof.json" "$B/gpublic.json"
  for ((i = 1; i <= N; i++)); do
    for p in "${provers[@]}"; do
      case $p in
        fastzk) run_once r "$FASTZK" plonk prove "$zkey" "$wtns" "$B/proof_$p.json" "$B/public_$p.json" ;;
        snarkjs) run_once r "$SNARKJS" plonk prove "$zkey" "$wtns" "$B/proof_$p.json" "$B/public_$p.json" ;;
        groth16) run_once r "$FASTZK" groth16 prove "$gzkey" "$gwtns" "$B/gproof.json" "$B/gpublic.json" ;;
      esac
      times[$p]+="${r% *} "
      rss[$p]+="${r#* } "
      echo "  $name run $i/$N $p: ${r% *} s, peak RSS ${r#* } KiB" >&2
    done
  done
  for p in fastzk snarkjs; do
    [[ -n ${times[$p]:-} ]] || continue
    "$SNARKJS" plonk verify "$vk" "$B/public_$p.json" "$B/proof_$p.json" >"$B/verify.log" 2>&1 \
      || { cat "$B/verify.log" >&2; echo "Plonk proof from $p on $name does not verify" >&2; exit 1; }
  done
  local fz sj g fzm sjm gm
  fz=$(median <<<"${times[fastzk]}") fzm=$(median <<<"${rss[fastzk]}")
  g=- gm=-
  sj=- sjm=-
  if [[ -n ${times[snarkjs]:-} ]]; then sj=$(median <<<"${times[snarkjs]}") sjm=$(median <<<"${rss[snarkjs]}"); fi
  if [[ -n ${times[groth16]:-} ]]; then g=$(median <<<"${times[groth16]}") gm=$(median <<<"${rss[groth16]}"); fi
  ROWS+=("| $name | $gates | $sj | $fz | $(ratio "$sj" "$fz") | $g | $(ratio "$fz" "$g") | $(mib "$sjm") | $(mib "$fzm") | $(mib "$gm") |")
  # The per-round breakdown of one more fastzk run.
  "$FASTZK" plonk prove "$zkey" "$wtns" "$B/proof_fastzk.json" "$B/public_fastzk.json" --timings 2>"$B/timings-${name// /_}.txt" >/dev/null
  echo "  $name fastzk rounds:" >&2
  sed 's/^/    /' "$B/timings-${name// /_}.txt" >&2
}

gates_of() { "$FASTZK" plonk setup "$@" 2>&1 | sed -n 's/^\([0-9]*\) gates.*/\1/p'; }

if [[ ${SHA256:-1} == 1 ]]; then
  c=sha256_64
  echo "SHA-256 (64-byte message): compile, witness, fastzk plonk setup (random tau)" >&2
  quiet "$CIRCOM" "circuits/$c.circom" --r1cs --wasm -l node_modules -o "$B"
  quiet "$SNARKJS" wtns calculate "$B/${c}_js/$c.wasm" "circuits/$c.input.json" "$B/$c.wtns"
  G=$(gates_of "$B/$c.r1cs" "$B/$c.zkey" --random-tau --vk "$B/$c.vk.json")
  bench "sha256 (64 B)" "$G" "$B/$c.zkey" "$B/$c.wtns" "$B/$c.vk.json" 1
fi

for K in $SIZES; do
  echo "synthetic 2^$K gates: synth --plonk, fastzk plonk setup (random tau); Groth16 2^$K" >&2
  quiet "$FASTZK" r1cs synth --plonk --log-size "$K" --seed "$K" "$B/plonk$K.r1cs" "$B/plonk$K.wtns"
  G=$(gates_of "$B/plonk$K.r1cs" "$B/plonk$K.zkey" --random-tau --vk "$B/plonk$K.vk.json")
  quiet "$FASTZK" r1cs synth --log-size "$K" --seed "$K" "$B/groth$K.r1cs" "$B/groth$K.wtns"
  quiet "$FASTZK" groth16 setup "$B/groth$K.r1cs" "$B/groth$K.zkey"
  with_sj=0
  [[ " $SNARKJS_SIZES " == *" $K "* ]] && with_sj=1
  bench "synthetic 2^$K" "$G" "$B/plonk$K.zkey" "$B/plonk$K.wtns" "$B/plonk$K.vk.json" "$with_sj" \
    "$B/groth$K.zkey" "$B/groth$K.wtns"
  rm -f "$B/groth$K.zkey"
done

echo
echo "Plonk prove, whole process, BN254, median of $N interleaved runs;" \
  "$(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), node $(node --version)," \
  "snarkjs $(node -p 'require("./node_modules/snarkjs/package.json").version')"
echo
echo "| instance | Plonk gates | snarkjs plonk (s) | fastzk plonk (s) | snarkjs / fastzk | fastzk groth16, same 2^K (s) | fastzk plonk / groth16 | snarkjs peak RSS (MiB) | fastzk plonk peak RSS (MiB) | fastzk groth16 peak RSS (MiB) |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
printf '%s\n' "${ROWS[@]}"
