# The CPU feature levels BENCHMARKS.md measures fastzk at (sourced by the benchmark
# scripts; `fastzk info` names the level in use):
#   ifma      what an AVX-512 IFMA CPU runs (no switch; "default" is whatever the CPU has)
#   adx       what a CPU without AVX-512 runs: MULX/ADX products, the MSM flush on FMA
#             lanes for BN254 G1 (AVX2) and scalar for the rest: FASTZK_NO_IFMA=1
#   adx-scalar  the same with the scalar flush for every group (the adx level before the
#             FMA lanes): FASTZK_NO_IFMA=1 FASTZK_NO_FMA_LANES=1
#   portable  u128 products and the scalar flush, what ARM64 runs:
#             FASTZK_NO_ADX=1 FASTZK_NO_IFMA=1 FASTZK_NO_FMA_LANES=1

# level_env LEVEL: the environment switches that put fastzk at LEVEL (words for `env`).
level_env() {
  case $1 in
    default | ifma) ;;
    adx) echo "FASTZK_NO_IFMA=1" ;;
    adx-scalar) echo "FASTZK_NO_IFMA=1 FASTZK_NO_FMA_LANES=1" ;;
    portable) echo "FASTZK_NO_ADX=1 FASTZK_NO_IFMA=1 FASTZK_NO_FMA_LANES=1" ;;
    *) echo "LEVELS: unknown level '$1' (default, ifma, adx, adx-scalar, portable)" >&2; return 2 ;;
  esac
}

# check_levels "LEVEL...": exits 2 on an unknown level, or on ifma where the CPU has none.
check_levels() {
  local level
  for level in $1; do level_env "$level" >/dev/null || exit 2; done
  if [[ " $1 " == *" ifma "* ]] && ! grep -qw avx512ifma /proc/cpuinfo; then
    echo "LEVELS: this CPU has no AVX-512 IFMA, so it has no ifma level" >&2
    exit 2
  fi
}
