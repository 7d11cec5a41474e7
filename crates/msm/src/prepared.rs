//! Bases shared by several MSMs, prepared once. A Plonk proof makes nine commitments
//! over the same powers of tau; the IFMA flush wants its points in its own form, and
//! converting them for every MSM (a 64 MiB copy at 2^20 points, in fresh memory each
//! time) cost more than the conversion itself.

use fastzk_curve::{Affine, Jacobian};
use rayon::prelude::*;

use crate::fast::{msm_fast_limbs, pippenger_flush_form, to_flush_form, FastOptions, FastReport};
use crate::ifma_flush::IfmaFlush;
use crate::planner;
use crate::scalar::bit_len;
use crate::{MsmConfig, MsmCurve, MsmError};

/// Bases ready for repeated MSMs over any prefix of them.
pub struct PreparedBases<'a, C: MsmCurve> {
    bases: &'a [Affine<C>],
    /// The bases in the flush's form, where the fast engine takes the lanes
    /// ([`planner::default_lane_flush`]).
    flush: Option<(Vec<Affine<C>>, &'static IfmaFlush<C>)>,
}

impl<'a, C: MsmCurve> PreparedBases<'a, C> {
    pub fn new(bases: &'a [Affine<C>]) -> Self {
        let flush = planner::default_lane_flush::<C>().map(|k| (to_flush_form(bases, k), k));
        Self { bases, flush }
    }

    pub fn len(&self) -> usize {
        self.bases.len()
    }

    pub fn is_empty(&self) -> bool {
        self.bases.is_empty()
    }

    /// Whether MSMs use the prepared copy (the flush exists here).
    pub fn is_prepared(&self) -> bool {
        self.flush.is_some()
    }

    /// `Σ scalars[i]·bases[i]` over the first `scalars.len()` bases: [`crate::msm`]'s
    /// result. Dense large scalars take the prepared points; where the planner would
    /// use GLV, or without the flush, this is [`crate::msm`] itself.
    pub fn msm(&self, scalars: &[C::Scalar]) -> Result<Jacobian<C>, MsmError> {
        self.msm_glv(scalars, None)
    }

    /// [`Self::msm`] with GLV forced on or off (`None`: the planner's choice), as
    /// [`MsmConfig::glv`]; off always takes the prepared points where they exist.
    pub fn msm_glv(
        &self,
        scalars: &[C::Scalar],
        glv: Option<bool>,
    ) -> Result<Jacobian<C>, MsmError> {
        let m = scalars.len();
        if m > self.bases.len() {
            return Err(MsmError::LengthMismatch {
                bases: self.bases.len(),
                scalars: m,
            });
        }
        let Some((points, kernel)) = &self.flush else {
            let cfg = MsmConfig {
                glv,
                ..MsmConfig::default()
            };
            return crate::msm_with(&self.bases[..m], scalars, &cfg).map(|o| o.result);
        };
        let limbs: Vec<[u64; 4]> = scalars.par_iter().map(C::scalar_limbs).collect();
        let bits = limbs.par_iter().map(|k| bit_len(k)).max().unwrap_or(0);
        let use_glv = glv.unwrap_or_else(|| planner::glv_pays_with::<C>(m, bits, true));
        if bits <= 64 || use_glv {
            // The fast engine as `msm` runs it, on the scalars already converted.
            let opts = FastOptions {
                glv,
                ..FastOptions::default()
            };
            let r = msm_fast_limbs(&self.bases[..m], &limbs, &opts, &mut FastReport::default());
            return Ok(Jacobian::from(r));
        }
        let c = planner::plan_window_with::<C>(m, bits, true).window;
        let r = pippenger_flush_form(&points[..m], &limbs, bits, c, Some(kernel));
        Ok(Jacobian::from(r))
    }
}
