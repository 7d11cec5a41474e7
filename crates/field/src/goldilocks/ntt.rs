//! NTT butterflies for Goldilocks on the packed lanes ([`super::packed`]: AVX-512F,
//! AVX2 or scalar, chosen at run time), with the last three levels fused in registers.

use super::packed::{self, Backend};
use super::Goldilocks;
use crate::ntt::{NttField, NttResult};

impl NttField for Goldilocks {
    const FUSED_LAST3: bool = true;

    #[inline]
    fn ct_rows(lo: &mut [Self], hi: &mut [Self], s: Self, _last: bool) -> NttResult {
        Backend::detect().butterfly_ct(lo, hi, s)
    }

    fn ct_last3(x: &mut [Self], w: &[Self], g0: usize) -> NttResult {
        Backend::detect().ntt_ct_last3(x, w, g0)
    }

    #[inline]
    fn gs_rows(
        lo: &mut [Self],
        hi: &mut [Self],
        s: Self,
        c: Option<Self>,
        _last: bool,
    ) -> NttResult {
        Backend::detect().butterfly_gs(lo, hi, s, c)
    }

    fn gs_first3(x: &mut [Self], w_inv: &[Self], g0: usize) -> NttResult {
        Backend::detect().ntt_gs_first3(x, w_inv, g0)
    }

    #[inline]
    fn mul_assign_slice(a: &mut [Self], b: &[Self]) -> NttResult {
        packed::mul_assign(a, b)
    }
}
