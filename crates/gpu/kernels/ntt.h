/* Template: radix-2 NTT kernels over the field FZ_F (any field with add, sub, mul).
 * A transform is a bit-reversal permutation and log n Cooley–Tukey levels on natural-order
 * input, several levels per pass (ntt_tile); twiddles are the powers ω^j (j < n/2) computed on the host. Scaling (1/n, the
 * coset's powers g^i) is a pointwise product with a host-computed vector or constant. */
#define FN(x) FZ_NAME(FZ_F, x)
KERNEL FN(ntt_bit_reverse)(GLOBAL FZ_F *rows, u32 log_n, u32 count FZ_COUNTERS) {
  FZ_COUNT_IN(FZ_K_NTT_BIT_REVERSE);
  u64 t = GLOBAL_ID();
  u64 n = (u64)1 << log_n;
  if (t >= n * count) return;
  GLOBAL FZ_F *a = rows + (t >> log_n) * n;
  u64 i = t & (n - 1);
  u64 r = 0, x = i;
  for (u32 b = 0; b < log_n; b++) {
    r = (r << 1) | (x & 1);
    x >>= 1;
  }
  if (i < r) {
    FZ_F t = a[i];
    a[i] = a[r];
    a[r] = t;
    FZ_READ(2 * sizeof(FZ_F));
    FZ_WRITE(2 * sizeof(FZ_F));
  }
}
/* Levels s … s + k − 1 (half-blocks h = 2^s … 2^(s+k−1)) in one pass, through local
 * memory: a tile of 2^k elements at stride 2^s holds all that those levels combine, so a
 * transform reads and writes device memory once per k levels instead of once per level.
 * Tile u of a row is (hi, lo) = (u >> s, u mod 2^s): elements hi·2^(s+k) + j·2^s + lo,
 * j < 2^k. Butterflies as a level would do them: (x_i, x_{i+h}) with the twiddle
 * ω^{(i mod h)·(n/2h)}. A work-group takes `per_group` consecutive tiles (small tiles are
 * packed so that its threads have work; per_group·2^k ≤ FZ_TILE) of the `tiles` in all
 * rows; any group size works. */
DEVICE u64 FN(ntt_tile_index)(u64 tile, u32 j, u32 log_n, u32 s, u32 k) {
  u64 tiles_per_row = (u64)1 << (log_n - k);
  u64 u = tile & (tiles_per_row - 1);
  u64 lo = u & (((u64)1 << s) - 1);
  return ((tile >> (log_n - k)) << log_n) + ((u >> s) << (s + k)) + lo + ((u64)j << s);
}
KERNEL FN(ntt_tile)(GLOBAL FZ_F *a, GLOBAL const FZ_F *twiddles, u32 log_n, u32 s, u32 k,
                    u32 per_group, u64 tiles FZ_COUNTERS) {
  FZ_COUNT_IN(FZ_K_NTT_TILE);
  LOCAL_DECL FZ_F tile[FZ_TILE];
  u64 first = (u64)GROUP_ID() * per_group;
  u32 size = 1u << k;
  u32 mine = (u32)(tiles - first < per_group ? tiles - first : per_group);
  for (u32 e = LOCAL_ID(); e < mine * size; e += LOCAL_SIZE()) {
    tile[e] = a[FN(ntt_tile_index)(first + (e >> k), e & (size - 1), log_n, s, k)];
    FZ_READ(sizeof(FZ_F));
  }
  BARRIER();
  u64 half_n = (u64)1 << (log_n - 1);
  u64 lo_mask = ((u64)1 << s) - 1;
  for (u32 level = 0; level < k; level++) {
    u32 hh = 1u << level;
    u64 h = (u64)hh << s;
    for (u32 b = LOCAL_ID(); b < mine * (size / 2); b += LOCAL_SIZE()) {
      u32 in_tile = b & (size / 2 - 1);
      u32 jj = in_tile & (hh - 1);
      u32 kk = (b >> (k - 1)) * size + ((in_tile >> level) << (level + 1)) + jj;
      u64 lo = (first + (b >> (k - 1))) & lo_mask;
      FZ_F w = twiddles[(((u64)jj << s) + lo) * (half_n / h)];
      FZ_F p = tile[kk];
      FZ_F q = FN(mul)(tile[kk + hh], w);
      tile[kk] = FN(add)(p, q);
      tile[kk + hh] = FN(sub)(p, q);
      FZ_COUNT_OP(FZ_OP_BUTTERFLY, 1);
      FZ_READ(sizeof(FZ_F));
    }
    BARRIER();
  }
  for (u32 e = LOCAL_ID(); e < mine * size; e += LOCAL_SIZE()) {
    a[FN(ntt_tile_index)(first + (e >> k), e & (size - 1), log_n, s, k)] = tile[e];
    FZ_WRITE(sizeof(FZ_F));
  }
}
/* a[i] ·= s[i mod n] (the coset's powers), or by s[0] everywhere when n = 0. */
KERNEL FN(ntt_scale)(GLOBAL FZ_F *a, GLOBAL const FZ_F *s, u64 len, u64 n FZ_COUNTERS) {
  FZ_COUNT_IN(FZ_K_NTT_SCALE);
  u64 i = GLOBAL_ID();
  if (i >= len) return;
  FZ_COUNT_OP(FZ_OP_MUL, 1);
  FZ_READ(2 * sizeof(FZ_F));
  FZ_WRITE(sizeof(FZ_F));
  a[i] = FN(mul)(a[i], s[n == 0 ? 0 : i % n]);
}
#undef FN
