/* Goldilocks' cubic extension gl3 = F[x]/(x³ − 7), c0 + c1·x + c2·x², as on the host. */
typedef struct { gl c0, c1, c2; } gl3;
DEVICE gl gl_mul7(gl a) {
  gl d = gl_dbl(a), q = gl_dbl(d);
  return gl_add(gl_add(q, d), a);
}
DEVICE gl3 gl3_make(gl c0, gl c1, gl c2) {
  gl3 r;
  r.c0 = c0;
  r.c1 = c1;
  r.c2 = c2;
  return r;
}
DEVICE gl3 gl3_zero(void) { return gl3_make(gl_zero(), gl_zero(), gl_zero()); }
DEVICE gl3 gl3_one(void) { return gl3_make(gl_one(), gl_zero(), gl_zero()); }
DEVICE int gl3_is_zero(gl3 a) { return gl_is_zero(a.c0) && gl_is_zero(a.c1) && gl_is_zero(a.c2); }
DEVICE int gl3_eq(gl3 a, gl3 b) { return gl_eq(a.c0, b.c0) && gl_eq(a.c1, b.c1) && gl_eq(a.c2, b.c2); }
DEVICE gl3 gl3_add(gl3 a, gl3 b) {
  return gl3_make(gl_add(a.c0, b.c0), gl_add(a.c1, b.c1), gl_add(a.c2, b.c2));
}
DEVICE gl3 gl3_sub(gl3 a, gl3 b) {
  return gl3_make(gl_sub(a.c0, b.c0), gl_sub(a.c1, b.c1), gl_sub(a.c2, b.c2));
}
DEVICE gl3 gl3_mul(gl3 a, gl3 b) {
  /* Schoolbook; x³ folds back as 7. */
  gl c0 = gl_add(gl_mul(a.c0, b.c0), gl_mul7(gl_add(gl_mul(a.c1, b.c2), gl_mul(a.c2, b.c1))));
  gl c1 = gl_add(gl_add(gl_mul(a.c0, b.c1), gl_mul(a.c1, b.c0)), gl_mul7(gl_mul(a.c2, b.c2)));
  gl c2 = gl_add(gl_add(gl_mul(a.c0, b.c2), gl_mul(a.c1, b.c1)), gl_mul(a.c2, b.c0));
  return gl3_make(c0, c1, c2);
}
DEVICE gl3 gl3_neg(gl3 a) { return gl3_sub(gl3_zero(), a); }
DEVICE gl3 gl3_dbl(gl3 a) { return gl3_add(a, a); }
DEVICE gl3 gl3_sqr(gl3 a) { return gl3_mul(a, a); }
DEVICE gl3 gl3_from_base(gl b) { return gl3_make(b, gl_zero(), gl_zero()); }
DEVICE gl3 gl3_mul_base(gl3 a, gl b) { return gl3_make(gl_mul(a.c0, b), gl_mul(a.c1, b), gl_mul(a.c2, b)); }
