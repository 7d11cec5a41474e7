/* Template: the quadratic extension FZ_E = FZ_B[u]/(u² − β) over the field FZ_B, with
 * FZ_E_BETA_IS_MINUS_ONE (Fq2 of BN254 and BLS12-381) or FZ_E_BETA the small β (Goldilocks:
 * 7) as a base-field function FZ_E_beta_mul. Coordinates c0 + c1·u, as on the host. */
#define EN(x) FZ_NAME(FZ_E, x)
#define BN(x) FZ_NAME(FZ_B, x)
typedef struct { FZ_B c0, c1; } FZ_E;
DEVICE FZ_E EN(make)(FZ_B c0, FZ_B c1) {
  FZ_E r;
  r.c0 = c0;
  r.c1 = c1;
  return r;
}
DEVICE FZ_E EN(zero)(void) { return EN(make)(BN(zero)(), BN(zero)()); }
DEVICE FZ_E EN(one)(void) { return EN(make)(BN(one)(), BN(zero)()); }
DEVICE int EN(is_zero)(FZ_E a) { return BN(is_zero)(a.c0) && BN(is_zero)(a.c1); }
DEVICE int EN(eq)(FZ_E a, FZ_E b) { return BN(eq)(a.c0, b.c0) && BN(eq)(a.c1, b.c1); }
DEVICE FZ_E EN(add)(FZ_E a, FZ_E b) { return EN(make)(BN(add)(a.c0, b.c0), BN(add)(a.c1, b.c1)); }
DEVICE FZ_E EN(sub)(FZ_E a, FZ_E b) { return EN(make)(BN(sub)(a.c0, b.c0), BN(sub)(a.c1, b.c1)); }
DEVICE FZ_E EN(neg)(FZ_E a) { return EN(make)(BN(neg)(a.c0), BN(neg)(a.c1)); }
DEVICE FZ_E EN(dbl)(FZ_E a) { return EN(add)(a, a); }
/* Karatsuba: (a0b0 + β·a1b1) + ((a0 + a1)(b0 + b1) − a0b0 − a1b1)·u. */
DEVICE_CALLED FZ_E EN(mul)(FZ_E a, FZ_E b) {
  FZ_B v0 = BN(mul)(a.c0, b.c0);
  FZ_B v1 = BN(mul)(a.c1, b.c1);
  FZ_B m = BN(mul)(BN(add)(a.c0, a.c1), BN(add)(b.c0, b.c1));
  FZ_B c1 = BN(sub)(BN(sub)(m, v0), v1);
  return EN(make)(EN(beta_mul_add)(v0, v1), c1);
}
DEVICE FZ_E EN(sqr)(FZ_E a) { return EN(mul)(a, a); }
/* The base field inside: kernels over the extension read base-field tables. */
DEVICE FZ_E EN(from_base)(FZ_B b) { return EN(make)(b, BN(zero)()); }
DEVICE FZ_E EN(mul_base)(FZ_E a, FZ_B b) { return EN(make)(BN(mul)(a.c0, b), BN(mul)(a.c1, b)); }
#undef EN
#undef BN
