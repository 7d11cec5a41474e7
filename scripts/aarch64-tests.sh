#!/usr/bin/env bash
# ARM64: the fastzk binary and the field, curve and MSM conformance suites cross-compiled
# for aarch64-unknown-linux-gnu (rustc's warnings are errors there too: code behind an x86
# `cfg` must not rot) and run under qemu-user, on the test command's `ci` profile. There
# the field takes the portable path (u128 products, MUL/UMULH on aarch64). The binary runs
# its self-test, a Groth16 proof on each curve and a Spartan proof over Goldilocks, each
# verified. It is built without the WebAssembly witness runtime (wasmtime and its compiler
# were two fifths of the cross build's time; none of it is our code), and must say so
# when given a generator.
# Installs what it needs on Debian: the rustup target, gcc-aarch64-linux-gnu (the linker)
# and qemu-user. If one of them cannot be had, it says which and exits 2.
set -euo pipefail
cd "$(dirname "$0")/.."
TARGET=aarch64-unknown-linux-gnu

SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO="sudo"
if ! command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 || ! command -v qemu-aarch64 >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1; then
    echo "installing gcc-aarch64-linux-gnu and qemu-user (apt-get)"
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user >/dev/null
  fi
fi
command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 ||
  { echo "aarch64: no cross linker (Debian: apt-get install gcc-aarch64-linux-gnu)" >&2; exit 2; }
command -v qemu-aarch64 >/dev/null 2>&1 ||
  { echo "aarch64: no qemu-aarch64 (Debian: apt-get install qemu-user)" >&2; exit 2; }
if ! rustup target list --installed 2>/dev/null | grep -qx "$TARGET"; then
  rustup target add "$TARGET" ||
    { echo "aarch64: rustup could not add the $TARGET standard library" >&2; exit 2; }
fi

export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUSTFLAGS="-D warnings"
QEMU=(qemu-aarch64 -L /usr/aarch64-linux-gnu)
# Every test, a quarter of the random cases: emulation is 5-10x slower than the host, and
# the same code runs every case natively (the README's Rust suite).
export FASTZK_TEST_CASES_PERCENT=${FASTZK_TEST_CASES_PERCENT:-25}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# One build for the binary and the suites: the field and curve suites are their crates'
# `conformance` tests, the MSM suite the `conformance` module of the MSM crate's `suite`.
# (Separate commands resolved features per command and compiled the libraries up to three
# times.) Cargo's JSON names each test executable.
cargo build --profile ci --target "$TARGET" --no-default-features \
  -p fastzk-cli --bin fastzk -p fastzk-field -p fastzk-curve -p fastzk-msm \
  --test conformance --test suite --message-format=json-render-diagnostics >"$work/build.json"
suite() { # PACKAGE_DIR TEST_TARGET: the executable cargo built for it
  python3 - "$work/build.json" "$1" "$2" <<'PY'
import json, sys
path, crate, target = sys.argv[1:]
for line in open(path):
    m = json.loads(line)
    if (m.get("reason") == "compiler-artifact" and m["target"]["name"] == target
            and m["manifest_path"].endswith(f"/crates/{crate}/Cargo.toml")
            and m.get("executable")):
        print(m["executable"])
        break
else:
    sys.exit(f"aarch64: no {target} test executable for crates/{crate}")
PY
}
fastzk() { "${QEMU[@]}" "target/$TARGET/ci/fastzk" "$@"; }
fastzk info
fastzk selftest >"$work/selftest.log" || { cat "$work/selftest.log"; exit 1; }
tail -n 1 "$work/selftest.log"
# `demo` proves, verifies, and checks that a tampered statement is rejected.
fastzk demo --log-size 12 >"$work/demo.log" || { cat "$work/demo.log"; exit 1; }
fastzk demo --log-size 10 --curve bls12-381 >"$work/demo.log" ||
  { cat "$work/demo.log"; exit 1; }
echo "Groth16 on BN254 (2^12) and BLS12-381 (2^10): proved and verified"
fastzk r1cs synth --field goldilocks --log-size 12 "$work/s.r1cs" "$work/s.wtns" >/dev/null
fastzk spartan prove "$work/s.r1cs" "$work/s.wtns" "$work/proof.bin" "$work/public.json" >/dev/null
fastzk spartan verify "$work/s.r1cs" "$work/proof.bin" "$work/public.json"
echo '{}' >"$work/input.json"
echo 'not a module' >"$work/c.wasm"
if fastzk witness calculate "$work/c.wasm" "$work/input.json" "$work/w.wtns" 2>"$work/err.log" ||
  ! grep -q 'built without the WebAssembly witness runtime' "$work/err.log"; then
  echo "aarch64: a generator given to the runtime-less binary was not refused by name" >&2
  cat "$work/err.log" >&2
  exit 1
fi
echo "without the witness runtime: a generator is refused, naming the cargo feature"

for crate in field curve; do
  exe=$(suite "$crate" conformance)
  echo "fastzk-$crate conformance suite (qemu-aarch64)"
  "${QEMU[@]}" "$exe"
done
exe=$(suite msm suite)
echo "fastzk-msm conformance suite (qemu-aarch64)"
"${QEMU[@]}" "$exe" conformance::
