//! No eight-lane flush off x86-64: the type exists so signatures are the same, but no
//! value of it is ever made.

use fastzk_curve::{Affine, CurveConfig};

/// Never constructed on this architecture.
pub struct SimdKernel<C: CurveConfig> {
    pub(crate) flush: unsafe fn(&mut FlushJob<'_, C>),
    pub(crate) to_ifma: fn(C::Base) -> C::Base,
    pub(crate) from_ifma: fn(C::Base) -> C::Base,
}

impl<C: CurveConfig> SimdKernel<C> {
    pub fn point_to_ifma(&self, p: &Affine<C>) -> Affine<C> {
        Affine {
            x: (self.to_ifma)(p.x),
            y: (self.to_ifma)(p.y),
            infinity: p.infinity,
        }
    }
    pub fn point_from_ifma(&self, p: &Affine<C>) -> Affine<C> {
        Affine {
            x: (self.from_ifma)(p.x),
            y: (self.from_ifma)(p.y),
            infinity: p.infinity,
        }
    }
}

pub(crate) struct FlushJob<'a, C: CurveConfig> {
    pub slots: *mut u8,
    pub stride: usize,
    pub y_offset: usize,
    pub idx: &'a [u32],
    pub pts: &'a [Affine<C>],
    pub scratch: &'a mut Vec<[u64; 8]>,
    pub group_masks: &'a mut Vec<u8>,
    pub exceptional: &'a mut Vec<u32>,
}
