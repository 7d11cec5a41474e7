/* Template: a kernel checking the field FZ_F against the host (tests): for pairs (a, b),
 * out[5i…] = a + b, a − b, a·b, a², −a. */
#define FN(x) FZ_NAME(FZ_F, x)
KERNEL FN(check_arith)(GLOBAL const FZ_F *a, GLOBAL const FZ_F *b, u32 n, GLOBAL FZ_F *out FZ_COUNTERS) {
  u64 i = GLOBAL_ID();
  if (i >= n) return;
  FZ_F x = a[i], y = b[i];
  out[5 * i + 0] = FN(add)(x, y);
  out[5 * i + 1] = FN(sub)(x, y);
  out[5 * i + 2] = FN(mul)(x, y);
  out[5 * i + 3] = FN(sqr)(x);
  out[5 * i + 4] = FN(neg)(x);
}
#undef FN
