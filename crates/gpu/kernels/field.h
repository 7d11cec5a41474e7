/* Field arithmetic on the dialect. Each field is a struct of 64-bit limbs laid out as the
 * host lays it out (Montgomery form, little-endian limbs; Goldilocks canonical), so a host
 * slice uploads as it is. A template below is instantiated by defining its parameters
 * (FZ_F, FZ_N, ...) before it and undefining them after; the host assembles that text. */
#define FZ_CAT2(a, b) a##_##b
#define FZ_NAME(a, b) FZ_CAT2(a, b)

/* Goldilocks, p = 2^64 − 2^32 + 1, canonical. */
typedef struct { u64 v; } gl;
#define GL_P 0xFFFFFFFF00000001UL
#define GL_EPS 0xFFFFFFFFUL /* 2^64 mod p */
DEVICE gl gl_make(u64 v) { gl r; r.v = v; return r; }
DEVICE gl gl_zero(void) { return gl_make(0); }
DEVICE gl gl_one(void) { return gl_make(1); }
DEVICE int gl_is_zero(gl a) { return a.v == 0; }
DEVICE int gl_eq(gl a, gl b) { return a.v == b.v; }
DEVICE gl gl_add(gl a, gl b) {
  u64 s = a.v + b.v;
  if (s < a.v) s += GL_EPS; /* the carry is 2^64 ≡ 2^32 − 1; cannot carry again */
  if (s >= GL_P) s -= GL_P;
  return gl_make(s);
}
DEVICE gl gl_sub(gl a, gl b) {
  u64 d = a.v - b.v;
  if (a.v < b.v) d -= GL_EPS; /* + p, as − (2^64 − p) modulo 2^64 */
  return gl_make(d);
}
DEVICE gl gl_neg(gl a) { return gl_sub(gl_zero(), a); }
DEVICE gl gl_dbl(gl a) { return gl_add(a, a); }
/* lo + 2^64·hi with hi = hh·2^32 + hl: 2^96 ≡ −1 and 2^64 ≡ 2^32 − 1. */
DEVICE gl gl_reduce128(u64 lo, u64 hi) {
  u64 hh = hi >> 32, hl = hi & GL_EPS;
  u64 t = lo - hh;
  if (lo < hh) t -= GL_EPS;
  u64 m = hl * GL_EPS;
  u64 r = t + m;
  if (r < t) r += GL_EPS;
  if (r >= GL_P) r -= GL_P;
  return gl_make(r);
}
DEVICE gl gl_mul(gl a, gl b) { return gl_reduce128(a.v * b.v, MULHI64(a.v, b.v)); }
DEVICE gl gl_sqr(gl a) { return gl_mul(a, a); }
