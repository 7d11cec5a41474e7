/* Template: a short-Weierstrass group y² = x³ + b (a = 0: every pairing group here) named
 * FZ_G over the coordinate field FZ_E. Affine (the point at infinity is never stored: the
 * host skips it), XYZZ (x = X/ZZ, y = Y/ZZZ, ZZ³ = ZZZ², infinity when ZZ = 0, as the
 * host's Xyzz) and Jacobian (x = X/Z², y = Y/Z³, infinity when Z = 0). Additions handle
 * equal and opposite inputs, so repeated points in a bucket are correct. */
#define GN(x) FZ_NAME(FZ_G, x)
#define EN(x) FZ_NAME(FZ_E, x)
typedef struct { FZ_E x, y; } GN(affine);
typedef struct { FZ_E x, y, zz, zzz; } GN(xyzz);
typedef struct { FZ_E x, y, z; } GN(jac);

DEVICE GN(affine) GN(affine_neg)(GN(affine) p) {
  p.y = EN(neg)(p.y);
  return p;
}
DEVICE GN(xyzz) GN(xyzz_zero)(void) {
  GN(xyzz) r;
  r.x = EN(one)();
  r.y = EN(one)();
  r.zz = EN(zero)();
  r.zzz = EN(zero)();
  return r;
}
DEVICE int GN(xyzz_is_zero)(GN(xyzz) p) { return EN(is_zero)(p.zz); }
DEVICE GN(xyzz) GN(xyzz_from_affine)(GN(affine) p) {
  GN(xyzz) r;
  r.x = p.x;
  r.y = p.y;
  r.zz = EN(one)();
  r.zzz = EN(one)();
  return r;
}
/* 2·(x, y) for an affine point (mdbl-2008-s-1). */
DEVICE_CALLED GN(xyzz) GN(affine_dbl)(GN(affine) p) {
  FZ_E u = EN(dbl)(p.y);
  FZ_E v = EN(sqr)(u);
  FZ_E w = EN(mul)(u, v);
  FZ_E s = EN(mul)(p.x, v);
  FZ_E x2 = EN(sqr)(p.x);
  FZ_E m = EN(add)(EN(dbl)(x2), x2);
  GN(xyzz) r;
  r.x = EN(sub)(EN(sqr)(m), EN(dbl)(s));
  r.y = EN(sub)(EN(mul)(m, EN(sub)(s, r.x)), EN(mul)(w, p.y));
  r.zz = v;
  r.zzz = w;
  return r;
}
/* dbl-2008-s-1 with a = 0. */
DEVICE_CALLED GN(xyzz) GN(xyzz_dbl)(GN(xyzz) p) {
  if (GN(xyzz_is_zero)(p)) return p;
  FZ_E u = EN(dbl)(p.y);
  FZ_E v = EN(sqr)(u);
  FZ_E w = EN(mul)(u, v);
  FZ_E s = EN(mul)(p.x, v);
  FZ_E x2 = EN(sqr)(p.x);
  FZ_E m = EN(add)(EN(dbl)(x2), x2);
  GN(xyzz) r;
  r.x = EN(sub)(EN(sqr)(m), EN(dbl)(s));
  r.y = EN(sub)(EN(mul)(m, EN(sub)(s, r.x)), EN(mul)(w, p.y));
  r.zz = EN(mul)(v, p.zz);
  r.zzz = EN(mul)(w, p.zzz);
  return r;
}
/* p + q for an affine q (madd-2008-s). */
DEVICE_CALLED GN(xyzz) GN(xyzz_add_affine)(GN(xyzz) p, GN(affine) q) {
  if (GN(xyzz_is_zero)(p)) return GN(xyzz_from_affine)(q);
  FZ_E u2 = EN(mul)(q.x, p.zz);
  FZ_E s2 = EN(mul)(q.y, p.zzz);
  FZ_E pp_ = EN(sub)(u2, p.x);
  FZ_E r_ = EN(sub)(s2, p.y);
  if (EN(is_zero)(pp_)) {
    if (EN(is_zero)(r_)) return GN(affine_dbl)(q);
    return GN(xyzz_zero)();
  }
  FZ_E pp = EN(sqr)(pp_);
  FZ_E ppp = EN(mul)(pp_, pp);
  FZ_E qq = EN(mul)(p.x, pp);
  GN(xyzz) r;
  r.x = EN(sub)(EN(sub)(EN(sqr)(r_), ppp), EN(dbl)(qq));
  r.y = EN(sub)(EN(mul)(r_, EN(sub)(qq, r.x)), EN(mul)(p.y, ppp));
  r.zz = EN(mul)(p.zz, pp);
  r.zzz = EN(mul)(p.zzz, ppp);
  return r;
}
/* p + q (add-2008-s). */
DEVICE_CALLED GN(xyzz) GN(xyzz_add)(GN(xyzz) p, GN(xyzz) q) {
  if (GN(xyzz_is_zero)(p)) return q;
  if (GN(xyzz_is_zero)(q)) return p;
  FZ_E u1 = EN(mul)(p.x, q.zz);
  FZ_E u2 = EN(mul)(q.x, p.zz);
  FZ_E s1 = EN(mul)(p.y, q.zzz);
  FZ_E s2 = EN(mul)(q.y, p.zzz);
  FZ_E pp_ = EN(sub)(u2, u1);
  FZ_E r_ = EN(sub)(s2, s1);
  if (EN(is_zero)(pp_)) {
    if (EN(is_zero)(r_)) return GN(xyzz_dbl)(p);
    return GN(xyzz_zero)();
  }
  FZ_E pp = EN(sqr)(pp_);
  FZ_E ppp = EN(mul)(pp_, pp);
  FZ_E qq = EN(mul)(u1, pp);
  GN(xyzz) r;
  r.x = EN(sub)(EN(sub)(EN(sqr)(r_), ppp), EN(dbl)(qq));
  r.y = EN(sub)(EN(mul)(r_, EN(sub)(qq, r.x)), EN(mul)(s1, ppp));
  r.zz = EN(mul)(EN(mul)(p.zz, q.zz), pp);
  r.zzz = EN(mul)(EN(mul)(p.zzz, q.zzz), ppp);
  return r;
}
DEVICE GN(jac) GN(jac_zero)(void) {
  GN(jac) r;
  r.x = EN(one)();
  r.y = EN(one)();
  r.z = EN(zero)();
  return r;
}
/* dbl-2009-l (a = 0). */
DEVICE_CALLED GN(jac) GN(jac_dbl)(GN(jac) p) {
  if (EN(is_zero)(p.z)) return p;
  FZ_E a = EN(sqr)(p.x);
  FZ_E b = EN(sqr)(p.y);
  FZ_E c = EN(sqr)(b);
  FZ_E d = EN(dbl)(EN(sub)(EN(sub)(EN(sqr)(EN(add)(p.x, b)), a), c));
  FZ_E e = EN(add)(EN(dbl)(a), a);
  FZ_E f = EN(sqr)(e);
  GN(jac) r;
  r.x = EN(sub)(f, EN(dbl)(d));
  FZ_E c8 = EN(dbl)(EN(dbl)(EN(dbl)(c)));
  r.y = EN(sub)(EN(mul)(e, EN(sub)(d, r.x)), c8);
  r.z = EN(dbl)(EN(mul)(p.y, p.z));
  return r;
}
/* p + q for an affine q (madd-2007-bl). */
DEVICE_CALLED GN(jac) GN(jac_add_affine)(GN(jac) p, GN(affine) q) {
  if (EN(is_zero)(p.z)) {
    GN(jac) r;
    r.x = q.x;
    r.y = q.y;
    r.z = EN(one)();
    return r;
  }
  FZ_E z1z1 = EN(sqr)(p.z);
  FZ_E u2 = EN(mul)(q.x, z1z1);
  FZ_E s2 = EN(mul)(EN(mul)(q.y, p.z), z1z1);
  FZ_E h = EN(sub)(u2, p.x);
  FZ_E rr = EN(dbl)(EN(sub)(s2, p.y));
  if (EN(is_zero)(h)) {
    if (EN(is_zero)(rr)) return GN(jac_dbl)(p);
    return GN(jac_zero)();
  }
  FZ_E hh = EN(sqr)(h);
  FZ_E i = EN(dbl)(EN(dbl)(hh));
  FZ_E j = EN(mul)(h, i);
  FZ_E v = EN(mul)(p.x, i);
  GN(jac) r;
  r.x = EN(sub)(EN(sub)(EN(sqr)(rr), j), EN(dbl)(v));
  r.y = EN(sub)(EN(mul)(rr, EN(sub)(v, r.x)), EN(dbl)(EN(mul)(p.y, j)));
  r.z = EN(sub)(EN(sub)(EN(sqr)(EN(add)(p.z, h)), z1z1), hh);
  return r;
}
/* p + q (add-2007-bl). */
DEVICE_CALLED GN(jac) GN(jac_add)(GN(jac) p, GN(jac) q) {
  if (EN(is_zero)(p.z)) return q;
  if (EN(is_zero)(q.z)) return p;
  FZ_E z1z1 = EN(sqr)(p.z);
  FZ_E z2z2 = EN(sqr)(q.z);
  FZ_E u1 = EN(mul)(p.x, z2z2);
  FZ_E u2 = EN(mul)(q.x, z1z1);
  FZ_E s1 = EN(mul)(EN(mul)(p.y, q.z), z2z2);
  FZ_E s2 = EN(mul)(EN(mul)(q.y, p.z), z1z1);
  FZ_E h = EN(sub)(u2, u1);
  FZ_E rr = EN(dbl)(EN(sub)(s2, s1));
  if (EN(is_zero)(h)) {
    if (EN(is_zero)(rr)) return GN(jac_dbl)(p);
    return GN(jac_zero)();
  }
  FZ_E i = EN(sqr)(EN(dbl)(h));
  FZ_E j = EN(mul)(h, i);
  FZ_E v = EN(mul)(u1, i);
  GN(jac) r;
  r.x = EN(sub)(EN(sub)(EN(sqr)(rr), j), EN(dbl)(v));
  r.y = EN(sub)(EN(mul)(rr, EN(sub)(v, r.x)), EN(dbl)(EN(mul)(s1, j)));
  r.z = EN(mul)(EN(sub)(EN(sub)(EN(sqr)(EN(add)(p.z, q.z)), z1z1), z2z2), h);
  return r;
}
#undef GN
#undef EN
