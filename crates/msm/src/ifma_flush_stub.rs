//! No eight-lane flush off x86-64: the type exists so signatures are the same, but it
//! has no values (it holds an `Infallible`), so none of this code can run.

use core::convert::Infallible;
use core::marker::PhantomData;

use fastzk_curve::{Affine, CurveConfig};

use crate::bucket::FlushJob;

/// Uninhabited on this architecture.
pub struct IfmaFlush<C: CurveConfig> {
    never: Infallible,
    _c: PhantomData<C>,
}

impl<C: CurveConfig> IfmaFlush<C> {
    /// # Safety
    /// Never callable: the type has no values.
    pub(crate) unsafe fn run_flush(&self, _job: &mut FlushJob<'_, C>) {
        match self.never {}
    }
    pub(crate) fn coord_from_ifma(&self, _x: C::Base) -> C::Base {
        match self.never {}
    }
    pub fn point_to_ifma(&self, _p: &Affine<C>) -> Affine<C> {
        match self.never {}
    }
    pub fn point_from_ifma(&self, _p: &Affine<C>) -> Affine<C> {
        match self.never {}
    }
    pub fn convert_points(&self, _pts: &mut [Affine<C>], _to_ifma: bool) {
        match self.never {}
    }
    /// # Safety
    /// Never callable: the type has no values.
    pub(crate) unsafe fn convert_raw(
        &self,
        _: *mut u8,
        _: usize,
        _: usize,
        _: usize,
        _: usize,
        _: bool,
    ) {
        match self.never {}
    }
}
