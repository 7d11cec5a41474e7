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
/* Montgomery multiplication on 32-bit words, arranged so that every partial product is one
 * wide multiply-add into an aligned register pair. The running sum T (< 2p between rounds)
 * is held in two arrays: x with x[k] at word k, and z with z[k] at word k − 1 (z[0] = 0).
 * A round for the multiplier word y:
 *  A. x[0] += z[1]; the products a_j·y at odd j land on words (j, j+1), which are the
 *     aligned pairs (j − 1, j) of an array one word up: z is rewritten in place as that
 *     array o (o[k] at word k + 1), picking up z's remaining words two places down;
 *  B. the products at even j into x's aligned pairs (j, j + 1); the carry goes to o;
 *  C. m = x[0]·(−p⁻¹), and m·p the same way (odd words of p into o, even into x), which
 *     clears word 0;
 * so that T/2^32 has o at its words and x one word up: the two arrays swap roles. The
 * round's sum stays below 2^33·p < 2^(32·FZ_W + 32), so no chain carries out of the words
 * it owns (the modulus leaves a spare bit). Both arrays have a last word that stays 0. */
DEVICE void FN(mont_round)(u32 *x, u32 *z, const u32 *a, u32 y, const u32 *p) {
  u32 cf = 0;
  x[0] = fz_add_cc(x[0], z[1], &cf);
#pragma unroll
  for (int j = 1; j < FZ_W - 1; j += 2) {
    z[j - 1] = fz_madc_lo_cc(a[j], y, z[j + 1], &cf);
    z[j] = fz_madc_hi_cc(a[j], y, z[j + 2], &cf);
  }
  z[FZ_W - 2] = fz_madc_lo_cc(a[FZ_W - 1], y, z[FZ_W], &cf);
  z[FZ_W - 1] = fz_madc_hi(a[FZ_W - 1], y, 0, &cf);
  x[0] = fz_mad_lo_cc(a[0], y, x[0], &cf);
  x[1] = fz_madc_hi_cc(a[0], y, x[1], &cf);
#pragma unroll
  for (int j = 2; j < FZ_W; j += 2) {
    x[j] = fz_madc_lo_cc(a[j], y, x[j], &cf);
    x[j + 1] = fz_madc_hi_cc(a[j], y, x[j + 1], &cf);
  }
  z[FZ_W - 1] = fz_addc(z[FZ_W - 1], 0, &cf);
  u32 m = x[0] * (u32)FN(INV);
  z[0] = fz_mad_lo_cc(p[1], m, z[0], &cf);
  z[1] = fz_madc_hi_cc(p[1], m, z[1], &cf);
#pragma unroll
  for (int j = 3; j < FZ_W; j += 2) {
    z[j - 1] = fz_madc_lo_cc(p[j], m, z[j - 1], &cf);
    z[j] = fz_madc_hi_cc(p[j], m, z[j], &cf);
  }
  x[0] = fz_mad_lo_cc(p[0], m, x[0], &cf);
  x[1] = fz_madc_hi_cc(p[0], m, x[1], &cf);
#pragma unroll
  for (int j = 2; j < FZ_W; j += 2) {
    x[j] = fz_madc_lo_cc(p[j], m, x[j], &cf);
    x[j + 1] = fz_madc_hi_cc(p[j], m, x[j + 1], &cf);
  }
  z[FZ_W - 1] = fz_addc(z[FZ_W - 1], 0, &cf);
}
/* a·b·2^(−64·FZ_N) mod p. */
DEVICE FZ_F FN(mul)(FZ_F a, FZ_F b) {
  u32 x[FZ_W], y[FZ_W], p[FZ_W], s[FZ_W + 1], t[FZ_W + 1];
  FN(words)(a, x);
  FN(words)(b, y);
#pragma unroll
  for (int j = 0; j < FZ_W; j++) p[j] = FN(p_word)(j);
#pragma unroll
  for (int j = 0; j <= FZ_W; j++) s[j] = t[j] = 0;
#pragma unroll
  for (int i = 0; i < FZ_W; i += 2) {
    FN(mont_round)(s, t, x, y[i], p);
    FN(mont_round)(t, s, x, y[i + 1], p);
  }
  /* T = s + t/2^32 (t[0] = 0), below 2p: one addition, then the final subtraction. */
  u32 cf = 0;
  s[0] = fz_add_cc(s[0], t[1], &cf);
#pragma unroll
  for (int j = 1; j < FZ_W; j++) s[j] = fz_addc_cc(s[j], t[j + 1], &cf);
  return FN(reduce_words)(s);
}
DEVICE FZ_F FN(sqr)(FZ_F a) { return FN(mul)(a, a); }
#undef FZ_W
#undef FN
