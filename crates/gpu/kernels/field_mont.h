/* Template: a prime field in Montgomery form with FZ_N limbs, named FZ_F. The prelude
 * defines FZ_F_P (modulus), FZ_F_R (one, R mod p) and FZ_F_INV (−p⁻¹ mod 2^64), taken from
 * the host's field so that the two cannot disagree. The modulus leaves a spare top bit
 * (the host refuses a field without one), so additions need no carry word and the
 * product is the "no-carry" CIOS, as on the host — here on 32-bit words, the width of the
 * GPU's multiplier, written as the carry-flag chains of dialect.h. */
#define FN(x) FZ_NAME(FZ_F, x)
typedef struct { u64 l[FZ_N]; } FZ_F;
DEVICE FZ_F FN(zero)(void) {
  FZ_F r;
  for (int i = 0; i < FZ_N; i++) r.l[i] = 0;
  return r;
}
DEVICE FZ_F FN(one)(void) {
  FZ_F r;
  for (int i = 0; i < FZ_N; i++) r.l[i] = FN(R)[i];
  return r;
}
DEVICE int FN(is_zero)(FZ_F a) {
  u64 x = 0;
  for (int i = 0; i < FZ_N; i++) x |= a.l[i];
  return x == 0;
}
DEVICE int FN(eq)(FZ_F a, FZ_F b) {
  u64 x = 0;
  for (int i = 0; i < FZ_N; i++) x |= a.l[i] ^ b.l[i];
  return x == 0;
}
#define FZ_W (2 * FZ_N)
/* The limbs as 32-bit words, least significant first (free on a GPU: a 64-bit value is a
 * register pair). */
DEVICE void FN(words)(FZ_F a, u32 *w) {
#pragma unroll
  for (int i = 0; i < FZ_N; i++) {
    w[2 * i] = (u32)a.l[i];
    w[2 * i + 1] = (u32)(a.l[i] >> 32);
  }
}
DEVICE u32 FN(p_word)(int j) { return (u32)(FN(P)[j / 2] >> (32 * (j % 2))); }
/* From words t < 2p: t − p if t ≥ p. */
DEVICE FZ_F FN(reduce_words)(const u32 *t) {
  u32 d[FZ_W], cf = 0;
  d[0] = fz_sub_cc(t[0], FN(p_word)(0), &cf);
#pragma unroll
  for (int j = 1; j < FZ_W; j++) d[j] = fz_subc_cc(t[j], FN(p_word)(j), &cf);
  u32 below = fz_subc(0, 0, &cf); /* all ones when t < p */
  FZ_F r;
#pragma unroll
  for (int i = 0; i < FZ_N; i++) {
    u32 lo = d[2 * i] ^ ((d[2 * i] ^ t[2 * i]) & below);
    u32 hi = d[2 * i + 1] ^ ((d[2 * i + 1] ^ t[2 * i + 1]) & below);
    r.l[i] = ((u64)hi << 32) | lo;
  }
  return r;
}
DEVICE FZ_F FN(reduce_once)(FZ_F a) {
  u32 t[FZ_W];
  FN(words)(a, t);
  return FN(reduce_words)(t);
}
DEVICE FZ_F FN(add)(FZ_F a, FZ_F b) {
  u32 x[FZ_W], y[FZ_W], cf = 0;
  FN(words)(a, x);
  FN(words)(b, y);
  x[0] = fz_add_cc(x[0], y[0], &cf);
#pragma unroll
  for (int j = 1; j < FZ_W; j++) x[j] = fz_addc_cc(x[j], y[j], &cf);
  return FN(reduce_words)(x);
}
DEVICE FZ_F FN(sub)(FZ_F a, FZ_F b) {
  u32 x[FZ_W], y[FZ_W], cf = 0;
  FN(words)(a, x);
  FN(words)(b, y);
  x[0] = fz_sub_cc(x[0], y[0], &cf);
#pragma unroll
  for (int j = 1; j < FZ_W; j++) x[j] = fz_subc_cc(x[j], y[j], &cf);
  u32 wrapped = fz_subc(0, 0, &cf); /* all ones when a < b: add p back */
  x[0] = fz_add_cc(x[0], FN(p_word)(0) & wrapped, &cf);
#pragma unroll
  for (int j = 1; j < FZ_W; j++) x[j] = fz_addc_cc(x[j], FN(p_word)(j) & wrapped, &cf);
  FZ_F r;
#pragma unroll
  for (int i = 0; i < FZ_N; i++) r.l[i] = ((u64)x[2 * i + 1] << 32) | x[2 * i];
  return r;
}
DEVICE FZ_F FN(neg)(FZ_F a) { return FN(sub)(FN(zero)(), a); }
DEVICE FZ_F FN(dbl)(FZ_F a) { return FN(add)(a, a); }
/* t += x·y over words, t has FZ_W + 1 words and the sum fits them. The products x_j·y at
 * even j cover word pairs (j, j+1) that do not overlap, and so do those at odd j: two
 * chains of 64-bit additions, each a low and a high half of one product that the GPU
 * fuses into one wide multiply-add with carry. */
DEVICE void FN(mac_row)(u32 *t, const u32 *x, u32 y) {
  u32 cf = 0;
  t[0] = fz_mad_lo_cc(x[0], y, t[0], &cf);
  t[1] = fz_madc_hi_cc(x[0], y, t[1], &cf);
#pragma unroll
  for (int j = 2; j < FZ_W; j += 2) {
    t[j] = fz_madc_lo_cc(x[j], y, t[j], &cf);
    t[j + 1] = fz_madc_hi_cc(x[j], y, t[j + 1], &cf);
  }
  t[FZ_W] = fz_addc(t[FZ_W], 0, &cf);
  t[1] = fz_mad_lo_cc(x[1], y, t[1], &cf);
#pragma unroll
  for (int j = 1; j < FZ_W - 2; j += 2) {
    t[j + 1] = fz_madc_hi_cc(x[j], y, t[j + 1], &cf);
    t[j + 2] = fz_madc_lo_cc(x[j + 2], y, t[j + 2], &cf);
  }
  t[FZ_W] = fz_madc_hi(x[FZ_W - 1], y, t[FZ_W], &cf);
}
/* a·b·2^(−64·FZ_N): per word of b, t += a·b_i, then t += m·p with m making the low word
 * zero, and a shift by a word. With p < 2^(64·FZ_N − 1), t < 2p between rounds and the
 * round's sum < 2^33·p fits FZ_W + 1 words. */
DEVICE FZ_F FN(mul)(FZ_F a, FZ_F b) {
  u32 x[FZ_W], y[FZ_W], p[FZ_W], t[FZ_W + 1];
  FN(words)(a, x);
  FN(words)(b, y);
#pragma unroll
  for (int j = 0; j < FZ_W; j++) p[j] = FN(p_word)(j);
#pragma unroll
  for (int j = 0; j <= FZ_W; j++) t[j] = 0;
#pragma unroll
  for (int i = 0; i < FZ_W; i++) {
    FN(mac_row)(t, x, y[i]);
    FN(mac_row)(t, p, t[0] * (u32)FN(INV));
#pragma unroll
    for (int j = 0; j < FZ_W; j++) t[j] = t[j + 1];
    t[FZ_W] = 0;
  }
  return FN(reduce_words)(t);
}
DEVICE FZ_F FN(sqr)(FZ_F a) { return FN(mul)(a, a); }
#undef FZ_W
#undef FN
