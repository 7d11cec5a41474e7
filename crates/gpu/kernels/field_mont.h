/* Template: a prime field in Montgomery form with FZ_N limbs, named FZ_F. The prelude
 * defines FZ_F_P (modulus), FZ_F_R (one, R mod p) and FZ_F_INV (−p⁻¹ mod 2^64), taken from
 * the host's field so that the two cannot disagree. The modulus leaves a spare top bit
 * (the host refuses a field without one), so additions need no carry word and the
 * product is the "no-carry" CIOS, as on the host. */
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
/* t − p if t ≥ p (t < 2p). */
DEVICE FZ_F FN(reduce_once)(FZ_F t) {
  FZ_F d;
  u64 borrow = 0;
  for (int i = 0; i < FZ_N; i++) d.l[i] = fz_subb(t.l[i], FN(P)[i], &borrow);
  return borrow ? t : d;
}
DEVICE FZ_F FN(add)(FZ_F a, FZ_F b) {
  FZ_F t;
  u64 carry = 0;
  for (int i = 0; i < FZ_N; i++) t.l[i] = fz_addc(a.l[i], b.l[i], &carry);
  return FN(reduce_once)(t);
}
DEVICE FZ_F FN(sub)(FZ_F a, FZ_F b) {
  FZ_F t;
  u64 borrow = 0;
  for (int i = 0; i < FZ_N; i++) t.l[i] = fz_subb(a.l[i], b.l[i], &borrow);
  if (borrow) {
    u64 carry = 0;
    for (int i = 0; i < FZ_N; i++) t.l[i] = fz_addc(t.l[i], FN(P)[i], &carry);
  }
  return t;
}
DEVICE FZ_F FN(neg)(FZ_F a) { return FN(sub)(FN(zero)(), a); }
DEVICE FZ_F FN(dbl)(FZ_F a) { return FN(add)(a, a); }
DEVICE FZ_F FN(mul)(FZ_F a, FZ_F b) {
  u64 t[FZ_N];
  for (int i = 0; i < FZ_N; i++) t[i] = 0;
  for (int i = 0; i < FZ_N; i++) {
    u64 c = 0;
    for (int j = 0; j < FZ_N; j++) t[j] = fz_mac(t[j], a.l[j], b.l[i], &c);
    u64 top = c;
    u64 m = t[0] * FN(INV);
    c = 0;
    (void)fz_mac(t[0], m, FN(P)[0], &c);
    for (int j = 1; j < FZ_N; j++) t[j - 1] = fz_mac(t[j], m, FN(P)[j], &c);
    t[FZ_N - 1] = top + c;
  }
  FZ_F r;
  for (int i = 0; i < FZ_N; i++) r.l[i] = t[i];
  return FN(reduce_once)(r);
}
DEVICE FZ_F FN(sqr)(FZ_F a) { return FN(mul)(a, a); }
#undef FN
