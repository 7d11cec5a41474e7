/* MSM, shared part (cuZK §4 as a sparse matrix): each scalar's signed c-bit digits are the
 * nonzeros of its row of the (windows·buckets) × points matrix; counting them per bucket
 * and scattering point indices into the counted slots builds the transpose in CSR form,
 * one row per bucket, without a sort. Entries carry the digit's sign in bit 31. */
#define FZ_NO_DIGIT 0xFFFFFFFFu
#define FZ_SIGN 0x80000000u

/* Scalars are canonical, four little-endian limbs each. digits[w·n + i] is bucket key
 * w·B + |d| − 1 with the sign bit (|d| − 1 when `shared`: precomputed bases, every window
 * in one set of buckets), or FZ_NO_DIGIT; counts[key] counts the digits. One launch takes
 * scalars first … first + count − 1 (a piece, while the next is uploaded). */
KERNEL fz_msm_digits(GLOBAL const u64 *scalars, u32 n, u32 first, u32 count, u32 c,
                     u32 windows, u32 shared, GLOBAL u32 *digits,
                     GLOBAL u32 *counts FZ_COUNTERS) {
  FZ_COUNT_IN(FZ_K_MSM_DIGITS);
  if (GLOBAL_ID() >= count) return;
  u64 i = first + GLOBAL_ID();
  FZ_READ(32);
  FZ_WRITE(4 * windows);
  u64 k[4];
  for (int j = 0; j < 4; j++) k[j] = scalars[4 * i + j];
  u32 half_range = 1u << (c - 1);
  u32 full = 1u << c;
  /* Each window's first key: w·B, or 0 for shared buckets (no branch in the loop, which
   * the compiler would otherwise duplicate). */
  u32 stride = shared ? 0 : half_range;
  u32 carry = 0;
  for (u32 w = 0; w < windows; w++) {
    u32 bit = w * c;
    u32 limb = bit >> 6, off = bit & 63;
    u64 v = limb < 4 ? k[limb] >> off : 0;
    if (off + c > 64 && limb + 1 < 4) v |= k[limb + 1] << (64 - off);
    u32 d = (u32)(v & (u64)(full - 1)) + carry;
    u32 sign = 0;
    carry = 0;
    if (d > half_range) {
      d = full - d;
      sign = FZ_SIGN;
      carry = 1;
    }
    u32 entry = FZ_NO_DIGIT;
    if (d != 0) {
      u32 key = w * stride + d - 1;
      ATOMIC_INC_U32(&counts[key]);
      FZ_READ(4);
      FZ_WRITE(4);
      entry = key | sign;
    }
    digits[(u64)w * n + i] = entry;
  }
}

/* cursor starts as the rows' offsets (the counts' exclusive prefix sums); each digit of
 * windows w0 … w1 − 1 takes the next slot of its bucket's row. The order inside a row varies
 * between runs; the sum does not. An entry names point i, or with `shared` (precomputed
 * bases, stored base by base) the shift i·windows + w. */
KERNEL fz_msm_scatter(GLOBAL const u32 *digits, u32 n, u32 w0, u32 w1, u32 windows,
                      u32 shared, GLOBAL u32 *cursor, GLOBAL u32 *entries FZ_COUNTERS) {
  FZ_COUNT_IN(FZ_K_MSM_SCATTER);
  if (GLOBAL_ID() >= (u64)n * (w1 - w0)) return;
  u64 t = (u64)w0 * n + GLOBAL_ID();
  u32 e = digits[t];
  FZ_READ(4);
  if (e == FZ_NO_DIGIT) return;
  FZ_READ(4);
  FZ_WRITE(8); /* the cursor's increment and the entry */
  u32 point = shared ? (u32)((t % n) * windows + t / n) : (u32)(t % n);
  u32 slot = ATOMIC_INC_U32(&cursor[e & ~FZ_SIGN]);
  entries[slot] = point | (e & FZ_SIGN);
}

/* Exclusive prefix sums within work-groups (at most FZ_SCAN_GROUP threads, one element
 * each): out[i] = Σ f(in[j]) over the group's j < i, with f(v) = ⌈v / div⌉ when div > 0
 * (a bucket's chunks) and v otherwise, and elements at or past n read as zero; sums[g] is
 * group g's total. The host scans the sums the same way and adds them back (scan_add),
 * so the counts never leave the device. */
#define FZ_SCAN_GROUP 256
KERNEL fz_scan_groups(GLOBAL const u32 *in, u32 n, u32 div, GLOBAL u32 *out,
                      GLOBAL u32 *sums FZ_COUNTERS) {
  LOCAL_DECL u32 tmp[FZ_SCAN_GROUP];
  u32 l = LOCAL_ID();
  u64 i = GLOBAL_ID();
  u32 v = i < n ? in[i] : 0;
  if (div) v = (v + div - 1) / div;
  tmp[l] = v;
  BARRIER();
  for (u32 d = 1; d < LOCAL_SIZE(); d <<= 1) {
    u32 add = l >= d ? tmp[l - d] : 0;
    BARRIER();
    tmp[l] += add;
    BARRIER();
  }
  out[i] = tmp[l] - v;
  if (l == LOCAL_SIZE() - 1) sums[GROUP_ID()] = tmp[l];
}

/* The groups' offsets (the scanned sums) added to their elements. */
KERNEL fz_scan_add(GLOBAL u32 *out, GLOBAL const u32 *offsets FZ_COUNTERS) {
  out[GLOBAL_ID()] += offsets[GROUP_ID()];
}

/* Where each chunk of at most `chunk` entries starts: bucket b's chunks are
 * bucket_chunks[b] … bucket_chunks[b + 1] − 1 and its row starts at offsets[b]; the entry
 * past the last chunk is the end of the last row. Each row's offset is also its scatter
 * cursor's start. */
KERNEL fz_msm_chunk_table(GLOBAL const u32 *offsets, GLOBAL const u32 *bucket_chunks,
                          u32 buckets, u32 chunk, GLOBAL u32 *chunk_start,
                          GLOBAL u32 *cursor FZ_COUNTERS) {
  u64 b = GLOBAL_ID();
  if (b >= buckets) return;
  u32 k0 = bucket_chunks[b], k1 = bucket_chunks[b + 1], at = offsets[b];
  cursor[b] = at;
  for (u32 k = k0; k < k1; k++) chunk_start[k] = at + (k - k0) * chunk;
  if (b == buckets - 1) chunk_start[k1] = offsets[buckets];
}
