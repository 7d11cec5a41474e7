#!/usr/bin/env bash
# Groth16 prover benchmark for BENCHMARKS.md: snarkjs vs fastzk (and a
# rapidsnark-style prover if one is given) on the same zkey and witness.
#
# Each measurement is the whole process (start-up, file reading, proving,
# writing proof.json), wall-clock, with peak RSS from GNU time. Runs of the
# different provers are interleaved so that drift in machine load hits all of
# them alike; the table shows medians.
#
# Env:
#   FASTZK       fastzk binary (default: cargo build --release -p fastzk-cli)
#   N            runs per prover and instance (default 5)
#   SIZES        log2 sizes of the synthetic instances (default "16 18 20";
#                "" to skip them)
#   SHA_SETUP    where the SHA-256 zkey comes from: "fastzk" (default:
#                fastzk groth16 setup, random, seconds) or "snarkjs" (a 2^16
#                powers-of-tau ceremony + groth16 setup, cached in build/bench;
#                on 2 cores `powersoftau prepare phase2` alone ran over 17 minutes
#                at 2^16 without finishing, hence not the default)
#   SNARKJS_ONLY 1 to time snarkjs alone
#   PROVER_EXTRA path of another prover taking rapidsnark's arguments
#                (<zkey> <wtns> <proof> <public>); added to the SHA-256 rows
#   LEVELS       the CPU feature levels fastzk runs at, each a row of its own,
#                interleaved with the other provers (default "default": what the
#                CPU has; "ifma adx portable" for all three: adx is
#                FASTZK_NO_IFMA=1, portable FASTZK_NO_ADX=1 FASTZK_NO_IFMA=1)
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$HERE")
cd "$HERE"

N=${N:-5}
LEVELS=${LEVELS:-default}
SIZES=${SIZES-16 18 20}
SHA_SETUP=${SHA_SETUP:-fastzk}
SNARKJS_ONLY=${SNARKJS_ONLY:-0}
B=build/bench
mkdir -p "$B"

# fastzk is needed unless only snarkjs is timed on a snarkjs-made zkey.
if [[ $SNARKJS_ONLY != 1 || $SHA_SETUP == fastzk ]]; then
  if [[ -z "${FASTZK:-}" ]]; then
    (cd "$ROOT" && cargo build --release -p fastzk-cli)
    FASTZK=$ROOT/target/release/fastzk
  fi
  [[ -x "$FASTZK" ]] || { echo "FASTZK=$FASTZK is not an executable" >&2; exit 2; }
fi

# GNU time gives the peak RSS (%M, KiB); the shell keyword cannot.
if ! /usr/bin/time -f %M true >/dev/null 2>&1; then
  echo "GNU time not found at /usr/bin/time; installing the Debian package 'time'" >&2
  apt-get install -y -qq time >/dev/null
fi

[[ -d node_modules ]] || npm ci --no-audit --no-fund --loglevel=error
SNARKJS=$HERE/node_modules/.bin/snarkjs
CIRCOM=$HERE/node_modules/.bin/circom2
TOOL="node $HERE/tools/interop.js"

source "$HERE/bench-lib.sh"   # quiet, run_once, median

source "$ROOT/scripts/feature-levels.sh"   # level_env, check_levels
check_levels "$LEVELS"

ROWS=()
# bench NAME CONSTRAINTS ZKEY WTNS VK: interleaved runs of each prover, then
# one correctness check of every prover's last proof with snarkjs.
bench() {
  local name=$1 nc=$2 zkey=$3 wtns=$4 vk=$5
  local provers=(snarkjs) p i r level
  if [[ $SNARKJS_ONLY != 1 ]]; then
    for level in $LEVELS; do provers+=("fastzk@$level"); done
  fi
  [[ -n ${PROVER_EXTRA:-} && $name == sha256* ]] && provers+=(extra)
  declare -A times=() rss=()
  # fastzk checks every point of a key it has not seen and then remembers the file
  # (~/.cache/fastzk); time that first use apart so the medians are steady-state.
  if [[ $SNARKJS_ONLY != 1 ]]; then
    run_once r "$FASTZK" groth16 prove "$zkey" "$wtns" "$B/proof_fastzk.json" "$B/public_fastzk.json"
    echo "  $name fastzk first use (full key check): ${r% *} s, peak RSS ${r#* } KiB" >&2
  fi
  for ((i = 1; i <= N; i++)); do
    for p in "${provers[@]}"; do
      case $p in
        snarkjs) run_once r "$SNARKJS" groth16 prove "$zkey" "$wtns" "$B/proof_$p.json" "$B/public_$p.json" ;;
        fastzk@*)
          # shellcheck disable=SC2046 # the switches are words by design
          run_once r env $(level_env "${p#fastzk@}") "$FASTZK" groth16 prove "$zkey" "$wtns" \
            "$B/proof_$p.json" "$B/public_$p.json" ;;
        extra) run_once r "$PROVER_EXTRA" "$zkey" "$wtns" "$B/proof_$p.json" "$B/public_$p.json" ;;
      esac
      times[$p]+="${r% *} "
      rss[$p]+="${r#* } "
      echo "  $name run $i/$N $p: ${r% *} s, peak RSS ${r#* } KiB" >&2
    done
  done
  for p in "${provers[@]}"; do
    "$SNARKJS" groth16 verify "$vk" "$B/public_$p.json" "$B/proof_$p.json" >"$B/verify.log" 2>&1 \
      || { cat "$B/verify.log" >&2; echo "proof from $p on $name does not verify" >&2; exit 1; }
  done
  local sj sjm ex exm row_name
  sj=$(median <<<"${times[snarkjs]}")
  sjm=$(median <<<"${rss[snarkjs]}")
  ex=- exm=-
  if [[ -n ${times[extra]:-} ]]; then
    ex=$(median <<<"${times[extra]}")
    exm=$(median <<<"${rss[extra]}")
  fi
  mib() { [[ $1 == - ]] && echo - || awk -v k="$1" 'BEGIN { printf "%.0f", k / 1024 }'; }
  ratio() { [[ $1 == - || $2 == - ]] && echo - || awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1fx", a / b }'; }
  # One row per fastzk level (one row with no fastzk when only snarkjs is timed).
  local levels=$LEVELS
  [[ $SNARKJS_ONLY != 1 ]] || levels=none
  for level in $levels; do
    local fz=- fzm=-
    if [[ -n ${times[fastzk@$level]:-} ]]; then
      fz=$(median <<<"${times[fastzk@$level]}")
      fzm=$(median <<<"${rss[fastzk@$level]}")
    fi
    row_name=$name
    [[ $LEVELS == default || $level == none ]] || row_name="$name, $level"
    if [[ -n ${PROVER_EXTRA:-} ]]; then
      ROWS+=("| $row_name | $nc | $sj | $fz | $(ratio "$sj" "$fz") | $ex | $(ratio "$ex" "$fz") | $(mib "$sjm") | $(mib "$fzm") | $(mib "$exm") |")
    else
      ROWS+=("| $row_name | $nc | $sj | $fz | $(ratio "$sj" "$fz") | $(mib "$sjm") | $(mib "$fzm") |")
    fi
  done
  echo "  $name snarkjs runs: ${times[snarkjs]}" >&2
  for p in "${provers[@]}"; do
    if [[ $p == fastzk@* ]]; then echo "  $name $p runs: ${times[$p]}" >&2; fi
  done
  [[ -z ${times[extra]:-} ]] || echo "  $name extra runs: ${times[extra]}" >&2
}

nconstraints() { $TOOL r1cs-header "$1" | node -pe 'JSON.parse(require("fs").readFileSync(0)).nConstraints'; }

# --- (i) SHA-256 of a 64-byte message ------------------------------------------
c=sha256_64
echo "SHA-256 (64-byte message): compile, witness, zkey via $SHA_SETUP" >&2
quiet "$CIRCOM" "circuits/$c.circom" --r1cs --wasm -l node_modules -o "$B"
quiet "$SNARKJS" wtns calculate "$B/${c}_js/$c.wasm" "circuits/$c.input.json" "$B/$c.wtns"
NC=$(nconstraints "$B/$c.r1cs")
POWER=$($TOOL ptau-power "$B/$c.r1cs")
echo "  $NC constraints, domain 2^$POWER" >&2
if [[ $SHA_SETUP == snarkjs ]]; then
  # The ceremony is slow in snarkjs, so keep its result between runs.
  PTAU=$B/pot$POWER.ptau
  if [[ ! -f $PTAU ]]; then
    SECONDS=0
    quiet "$SNARKJS" powersoftau new bn128 "$POWER" "$B/pot_0.ptau"
    quiet "$SNARKJS" powersoftau contribute "$B/pot_0.ptau" "$B/pot_1.ptau" --name=bench -e="fastzk bench entropy"
    quiet "$SNARKJS" powersoftau prepare phase2 "$B/pot_1.ptau" "$PTAU.tmp"
    mv "$PTAU.tmp" "$PTAU"
    rm -f "$B/pot_0.ptau" "$B/pot_1.ptau"
    echo "  snarkjs powers of tau 2^$POWER: $SECONDS s" >&2
  fi
  if [[ ! -f $B/$c.zkey || $B/$c.zkey -ot $B/$c.r1cs ]]; then
    SECONDS=0
    quiet "$SNARKJS" groth16 setup "$B/$c.r1cs" "$PTAU" "$B/${c}_0.zkey"
    quiet "$SNARKJS" zkey contribute "$B/${c}_0.zkey" "$B/$c.zkey" --name=bench -e="fastzk bench zkey"
    rm -f "$B/${c}_0.zkey"
    echo "  snarkjs groth16 setup + contribute: $SECONDS s" >&2
  fi
  quiet "$SNARKJS" zkey export verificationkey "$B/$c.zkey" "$B/$c.vk.json"
else
  quiet "$FASTZK" groth16 setup "$B/$c.r1cs" "$B/$c.zkey" --vk "$B/$c.vk.json"
fi
bench "sha256 (64 B)" "$NC" "$B/$c.zkey" "$B/$c.wtns" "$B/$c.vk.json"
$TOOL sha256-check "$B/public_snarkjs.json" "circuits/$c.input.json" >&2

# --- (ii) synthetic instances ------------------------------------------------------
if [[ $SNARKJS_ONLY != 1 ]]; then
  for K in $SIZES; do
    echo "synthetic 2^$K: synth, fastzk setup (random)" >&2
    quiet "$FASTZK" r1cs synth --log-size "$K" "$B/synth$K.r1cs" "$B/synth$K.wtns"
    quiet "$FASTZK" groth16 setup "$B/synth$K.r1cs" "$B/synth$K.zkey" --vk "$B/synth$K.vk.json"
    bench "synthetic 2^$K" "$(nconstraints "$B/synth$K.r1cs")" "$B/synth$K.zkey" "$B/synth$K.wtns" "$B/synth$K.vk.json"
  done
fi

# --- Table ------------------------------------------------------------------------------
echo
echo "Groth16 prove, whole process, BN254, median of $N interleaved runs;" \
  "$(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), node $(node --version)," \
  "snarkjs $(node -p 'require("./node_modules/snarkjs/package.json").version')"
echo
if [[ -n ${PROVER_EXTRA:-} ]]; then
  echo "| instance | constraints | snarkjs (s) | fastzk (s) | snarkjs / fastzk | $(basename "$PROVER_EXTRA") (s) | $(basename "$PROVER_EXTRA") / fastzk | snarkjs peak RSS (MiB) | fastzk peak RSS (MiB) | $(basename "$PROVER_EXTRA") peak RSS (MiB) |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
else
  echo "| instance | constraints | snarkjs (s) | fastzk (s) | snarkjs / fastzk | snarkjs peak RSS (MiB) | fastzk peak RSS (MiB) |"
  echo "|---|---:|---:|---:|---:|---:|---:|"
fi
printf '%s\n' "${ROWS[@]}"
