//! The slice loops every vector backend shares: whole vectors through the backend's lane
//! arithmetic, the tail through the scalar code.

/// Defines the slice kernels (`add_assign`, `sub_assign`, `mul_assign`, `scale`,
/// `butterfly_ct`, `butterfly_gs`, `butterfly_gs_scaled`) for a backend of `$lanes` lanes
/// compiled with `#[target_feature(enable = $feature)]`. The invoking module provides the
/// vector type's `ld`, `st`, `add`, `sub`, `mul`, `mul_hi` (a product with the high halves
/// of the second factor given) and `splat` (a constant and its high halves).
macro_rules! slice_kernels {
    ($feature:literal, $lanes:literal) => {
        slice_kernels!(@binary $feature, $lanes, add_assign, add);
        slice_kernels!(@binary $feature, $lanes, sub_assign, sub);
        slice_kernels!(@binary $feature, $lanes, mul_assign, mul);

        #[target_feature(enable = $feature)]
        pub(super) unsafe fn scale(a: &mut [u64], s: u64) {
            let full = a.len() - a.len() % $lanes;
            let (sv, sh) = splat(s);
            let pa = a.as_mut_ptr();
            for i in (0..full).step_by($lanes) {
                st(pa.add(i), mul_hi(ld(pa.add(i)), sv, sh));
            }
            super::scalar::scale(&mut a[full..], s);
        }

        slice_kernels!(@pairs $feature, $lanes, butterfly_ct, (u, v, sv, sh) => {
            let v = mul_hi(v, sv, sh);
            (add(u, v), sub(u, v))
        });
        slice_kernels!(@pairs $feature, $lanes, butterfly_gs, (u, v, sv, sh) => {
            (add(u, v), mul_hi(sub(u, v), sv, sh))
        });

        /// [`butterfly_gs`] with both outputs then multiplied by `c` (`sc = s·c`).
        #[target_feature(enable = $feature)]
        pub(super) unsafe fn butterfly_gs_scaled(lo: &mut [u64], hi: &mut [u64], sc: u64, c: u64) {
            let (n, full) = pair_lengths(lo, hi, $lanes);
            let (s, c_v) = (splat(sc), splat(c));
            let (pl, ph) = (lo.as_mut_ptr(), hi.as_mut_ptr());
            for i in (0..full).step_by($lanes) {
                let (u, v) = (ld(pl.add(i)), ld(ph.add(i)));
                st(pl.add(i), mul_hi(add(u, v), c_v.0, c_v.1));
                st(ph.add(i), mul_hi(sub(u, v), s.0, s.1));
            }
            super::scalar::butterfly_gs_scaled(&mut lo[full..n], &mut hi[full..n], sc, c);
        }
    };
    (@binary $feature:literal, $lanes:literal, $name:ident, $op:ident) => {
        /// `a[i] op= b[i]` over the common length.
        #[target_feature(enable = $feature)]
        pub(super) unsafe fn $name(a: &mut [u64], b: &[u64]) {
            let n = a.len().min(b.len());
            let full = n - n % $lanes;
            let (pa, pb) = (a.as_mut_ptr(), b.as_ptr());
            for i in (0..full).step_by($lanes) {
                st(pa.add(i), $op(ld(pa.add(i)), ld(pb.add(i))));
            }
            super::scalar::$name(&mut a[full..n], &b[full..n]);
        }
    };
    (@pairs $feature:literal, $lanes:literal, $name:ident,
        ($u:ident, $v:ident, $sv:ident, $sh:ident) => $body:block) => {
        /// One butterfly with twiddle `s` on each pair `(lo[i], hi[i])`.
        #[target_feature(enable = $feature)]
        pub(super) unsafe fn $name(lo: &mut [u64], hi: &mut [u64], s: u64) {
            let (n, full) = pair_lengths(lo, hi, $lanes);
            let ($sv, $sh) = splat(s);
            let (pl, ph) = (lo.as_mut_ptr(), hi.as_mut_ptr());
            for i in (0..full).step_by($lanes) {
                let ($u, $v) = (ld(pl.add(i)), ld(ph.add(i)));
                let (l, h) = $body;
                st(pl.add(i), l);
                st(ph.add(i), h);
            }
            super::scalar::$name(&mut lo[full..n], &mut hi[full..n], s);
        }
    };
}

/// The common length of two slices, and the part of it in whole vectors of `lanes`.
pub(super) fn pair_lengths(lo: &[u64], hi: &[u64], lanes: usize) -> (usize, usize) {
    let n = lo.len().min(hi.len());
    (n, n - n % lanes)
}
