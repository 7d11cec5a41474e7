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
      u32 key = (shared ? 0 : w * half_range) + d - 1;
      ATOMIC_INC_U32(&counts[key]);
      FZ_READ(4);
      FZ_WRITE(4);
      entry = key | sign;
    }
    digits[(u64)w * n + i] = entry;
  }
}

/* cursor starts as the exclusive prefix sums of counts; each digit of windows w0 … w1 − 1
 * takes the next slot of its bucket's row. The order inside a row varies between runs; the
 * sum does not. An entry names point i, or with `shared` (precomputed bases, stored base
 * by base) the shift i·windows + w. */
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
