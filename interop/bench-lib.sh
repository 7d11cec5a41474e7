# Helpers shared by the prover benchmarks (sourced; expects $B to be set).

quiet() { # run a preparation command, showing its output only if it fails
  local log=$B/last-step.log
  if ! "$@" >"$log" 2>&1; then cat "$log" >&2; echo "failed: $*" >&2; exit 2; fi
}

# run_once OUTVAR CMD...: time one run; sets OUTVAR to "seconds rss_kib".
run_once() {
  local __out=$1; shift
  local t0 t1 rss
  t0=$(date +%s%N)
  /usr/bin/time -f %M -o "$B/rss.txt" "$@" >"$B/run.log" 2>&1 \
    || { cat "$B/run.log" >&2; echo "benchmark command failed: $*" >&2; exit 2; }
  t1=$(date +%s%N)
  rss=$(tail -n1 "$B/rss.txt")
  printf -v "$__out" '%s %s' "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')" "$rss"
}

median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

