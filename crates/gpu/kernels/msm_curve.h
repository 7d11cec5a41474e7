/* Template: MSM kernels for the group FZ_G (after curve.h for it). */
#define GN(x) FZ_NAME(FZ_G, x)

/* Load-balanced SpMV (cuZK §4.2): a row (bucket) is cut into chunks of at most a fixed
 * number of entries, one thread per chunk, so a bucket that holds every point (clustered
 * scalars) is summed by many threads. This launch sums the chunks of buckets b0 … b1 − 1
 * (their range read from bucket_chunks on the device: the host launches enough threads
 * for the most chunks those buckets can have); chunk_start has an entry past the last
 * chunk. */
KERNEL GN(msm_chunk_sums)(GLOBAL const GN(affine) *bases, GLOBAL const u32 *entries,
                          GLOBAL const u32 *chunk_start, GLOBAL const u32 *bucket_chunks,
                          u32 b0, u32 b1, GLOBAL GN(xyzz) *partial FZ_COUNTERS) {
  FZ_COUNT_IN(FZ_K_MSM_CHUNK_SUMS);
  u32 first = bucket_chunks[b0];
  if (GLOBAL_ID() >= bucket_chunks[b1] - first) return;
  u64 t = first + GLOBAL_ID();
  GN(xyzz) acc = GN(xyzz_zero)();
  for (u32 k = chunk_start[t]; k < chunk_start[t + 1]; k++) {
    u32 e = entries[k];
    GN(affine) p = bases[e & ~FZ_SIGN];
    if (e & FZ_SIGN) p = GN(affine_neg)(p);
    acc = GN(xyzz_add_affine)(acc, p);
    FZ_COUNT_OP(FZ_OP_XYZZ_ADD_AFFINE, 1);
    FZ_READ(4 + sizeof(GN(affine)));
  }
  partial[t] = acc;
  FZ_READ(8);
  FZ_WRITE(sizeof(GN(xyzz)));
}

/* Each bucket's chunks summed, for buckets first … last − 1: bucket_chunks has an entry
 * past the last bucket. */
KERNEL GN(msm_bucket_sums)(GLOBAL const GN(xyzz) *partial, GLOBAL const u32 *bucket_chunks,
                           u32 first, u32 last, GLOBAL GN(xyzz) *out FZ_COUNTERS) {
  FZ_COUNT_IN(FZ_K_MSM_BUCKET_SUMS);
  if (GLOBAL_ID() >= last - first) return;
  u64 b = first + GLOBAL_ID();
  GN(xyzz) acc = GN(xyzz_zero)();
  for (u32 k = bucket_chunks[b]; k < bucket_chunks[b + 1]; k++) {
    acc = GN(xyzz_add)(acc, partial[k]);
    FZ_COUNT_OP(FZ_OP_XYZZ_ADD, 1);
    FZ_READ(sizeof(GN(xyzz)));
  }
  out[b] = acc;
  FZ_READ(8);
  FZ_WRITE(sizeof(GN(xyzz)));
}

/* Bucket reduction (cuZK Algorithm 4): window w's B buckets in `segments` equal segments,
 * one thread each. Segment s holds digits s·L + 1 … (s + 1)·L; walking them downwards,
 * R sums the buckets and T sums R, so T = Σ (d − s·L)·bucket_d and the segment's part of
 * Σ d·bucket_d is T + s·L·R, which the host finishes. This launch takes windows
 * w0 … w1 − 1. */
KERNEL GN(msm_reduce)(GLOBAL const GN(xyzz) *buckets, u32 half_range, u32 w0, u32 w1,
                      u32 segments, GLOBAL GN(xyzz) *running,
                      GLOBAL GN(xyzz) *weighted FZ_COUNTERS) {
  FZ_COUNT_IN(FZ_K_MSM_REDUCE);
  if (GLOBAL_ID() >= (u64)(w1 - w0) * segments) return;
  u64 t = (u64)w0 * segments + GLOBAL_ID();
  u32 w = (u32)(t / segments), s = (u32)(t % segments);
  u32 len = half_range / segments;
  GLOBAL const GN(xyzz) *row = buckets + (u64)w * half_range + (u64)s * len;
  GN(xyzz) r = GN(xyzz_zero)();
  GN(xyzz) sum = GN(xyzz_zero)();
  for (u32 j = len; j > 0; j--) {
    r = GN(xyzz_add)(r, row[j - 1]);
    sum = GN(xyzz_add)(sum, r);
    FZ_COUNT_OP(FZ_OP_XYZZ_ADD, 2);
    FZ_READ(sizeof(GN(xyzz)));
  }
  running[t] = r;
  weighted[t] = sum;
  FZ_WRITE(2 * sizeof(GN(xyzz)));
}

/* Checks of the group formulas against the host (tests): for pairs (p, q),
 * xyzz: p + q, 2p, (p + q) + 2q, (p + q) + (p + q), (p + q) + −(p + q);
 * jac: p + q, 2(p + q), (p + q) + (q + q), (p + q) + (p + q). */
KERNEL GN(check_formulas)(GLOBAL const GN(affine) *p, GLOBAL const GN(affine) *q, u32 n,
                          GLOBAL GN(xyzz) *xo, GLOBAL GN(jac) *jo FZ_COUNTERS) {
  u64 i = GLOBAL_ID();
  if (i >= n) return;
  GN(affine) a = p[i], b = q[i];
  GN(xyzz) s = GN(xyzz_add_affine)(GN(xyzz_from_affine)(a), b);
  GN(xyzz) q2 = GN(xyzz_dbl)(GN(xyzz_add_affine)(GN(xyzz_zero)(), b));
  GN(xyzz) neg = s;
  neg.y = FZ_NAME(FZ_E, neg)(s.y);
  xo[5 * i + 0] = s;
  xo[5 * i + 1] = GN(xyzz_dbl)(GN(xyzz_from_affine)(a));
  xo[5 * i + 2] = GN(xyzz_add)(s, q2);
  xo[5 * i + 3] = GN(xyzz_add)(s, s);
  xo[5 * i + 4] = GN(xyzz_add)(s, neg);
  GN(jac) j = GN(jac_add_affine)(GN(jac_zero)(), a);
  j = GN(jac_add_affine)(j, b);
  GN(jac) jq = GN(jac_add_affine)(GN(jac_zero)(), b);
  jo[4 * i + 0] = j;
  jo[4 * i + 1] = GN(jac_dbl)(j);
  jo[4 * i + 2] = GN(jac_add)(j, GN(jac_add)(jq, jq));
  jo[4 * i + 3] = GN(jac_add)(j, j);
}
#undef GN
