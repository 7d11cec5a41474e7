/* Template: radix-2 NTT kernels over the field FZ_F (any field with add, sub, mul).
 * A transform is a bit-reversal permutation and log n Cooley–Tukey levels on natural-order
 * input; twiddles are the powers ω^j (j < n/2) computed on the host. Scaling (1/n, the
 * coset's powers g^i) is a pointwise product with a host-computed vector or constant. */
#define FN(x) FZ_NAME(FZ_F, x)
KERNEL FN(ntt_bit_reverse)(GLOBAL FZ_F *rows, u32 log_n, u32 count) {
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
  }
}
/* One level with half-blocks of h: butterfly t pairs (k, k + h) in its block with the
 * twiddle ω^{(t mod h)·(n / 2h)}; rows of a batch are contiguous (row = thread / (n/2)). */
KERNEL FN(ntt_level)(GLOBAL FZ_F *a, GLOBAL const FZ_F *twiddles, u32 log_n, u32 h,
                      u32 rows) {
  u64 t = GLOBAL_ID();
  u64 half_n = (u64)1 << (log_n - 1);
  if (t >= half_n * rows) return;
  u64 row = t / half_n, b = t % half_n;
  u64 j = b % h;
  u64 k = (b / h) * 2 * h + j;
  GLOBAL FZ_F *x = a + (row << log_n);
  FZ_F w = twiddles[j * (half_n / h)];
  FZ_F u = x[k];
  FZ_F v = FN(mul)(x[k + h], w);
  x[k] = FN(add)(u, v);
  x[k + h] = FN(sub)(u, v);
}
/* a[i] ·= s[i mod n] (the coset's powers), or by s[0] everywhere when n = 0. */
KERNEL FN(ntt_scale)(GLOBAL FZ_F *a, GLOBAL const FZ_F *s, u64 len, u64 n) {
  u64 i = GLOBAL_ID();
  if (i >= len) return;
  a[i] = FN(mul)(a[i], s[n == 0 ? 0 : i % n]);
}
#undef FN
