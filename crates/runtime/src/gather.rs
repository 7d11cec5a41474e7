//! `out[i] = v[idx[i]]`: a lookup by integer indices (Spark's `eq(r, row_k)`), a library
//! call because the kernel subset reads its arrays only at computed positions, not at
//! indices read from another array.

use std::sync::Arc;

use fastzk_gpu::runtime::{Arg, Program};
use fastzk_gpu::source::Source;
use rayon::prelude::*;

use crate::{FieldVec, KernelField, RuntimeError, Task};

const GATHER_C: &str = r#"
KERNEL fzg_gather(GLOBAL const FZ_F *v, GLOBAL const u32 *idx, u32 n, GLOBAL FZ_F *out FZ_COUNTERS) {
  u64 i = GLOBAL_ID();
  if (i >= n) return;
  out[i] = v[idx[i]];
}
"#;

impl Task<'_> {
    /// The vector of `v[indices[i]]`, every index checked against `v`'s length first. On
    /// a device the gather runs where `v` is and the result stays there (the call
    /// synchronises this task).
    pub fn gather<F: KernelField>(
        &mut self,
        v: &FieldVec<F>,
        indices: &[u32],
    ) -> Result<FieldVec<F>, RuntimeError> {
        if let Some(bad) = indices.iter().find(|&&i| i as usize >= v.len()) {
            return Err(RuntimeError::Call {
                kernel: "gather",
                what: format!("index {bad} into a vector of {} elements", v.len()),
            });
        }
        let ctx = self.context();
        let n = indices.len();
        let dev = match ctx.device_handle() {
            Some(dev) if n > 0 => dev,
            _ => {
                let h = v.host()?;
                return Ok(ctx.vec(indices.par_iter().map(|&i| h[i as usize]).collect()));
            }
        };
        let Ok(n32) = u32::try_from(n) else {
            return Err(RuntimeError::Call {
                kernel: "gather",
                what: format!("{n} indices on a device"),
            });
        };
        let engine = ctx.cached(vec![], || GatherEngine::<F>::new(dev))?;
        let (vb, ready) = v.device_copy(|w| self.upload(dev, w))?;
        self.sync()?;
        ready.wait()?;
        let ib = dev.upload(indices)?;
        ctx.counters().uploaded(4 * n);
        let out = dev.alloc(n * F::WORDS * 8)?;
        dev.launch(
            &engine.program,
            "fzg_gather",
            n,
            &[Arg::Buf(&vb), Arg::Buf(&ib), Arg::U32(n32), Arg::Buf(&out)],
        )?;
        dev.finish()?;
        Ok(FieldVec::from_device(
            ctx.shared(),
            n,
            Arc::new(out),
            Arc::new(self.record()?),
        ))
    }
}

/// The device program of [`Task::gather`] over `F`.
pub fn gather_source<F: KernelField>() -> String {
    let mut src = Source::new();
    src.field::<F>();
    src.append(&format!(
        "#define FZ_F {}\n{GATHER_C}#undef FZ_F\n",
        F::DEVICE_NAME
    ));
    src.text().to_string()
}

struct GatherEngine<F> {
    program: Arc<Program>,
    _field: std::marker::PhantomData<F>,
}

impl<F: KernelField> GatherEngine<F> {
    fn new(device: &Arc<fastzk_gpu::Device>) -> Result<Self, RuntimeError> {
        Ok(Self {
            program: device.program(&gather_source::<F>())?,
            _field: std::marker::PhantomData,
        })
    }
}
