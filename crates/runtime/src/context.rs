//! Where kernels run: the CPU (rayon) or one device, and the device programs each
//! kernel becomes there.

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use fastzk_gpu::source::{from_words, to_words};
use fastzk_gpu::{Arg as GpuArg, Device, DeviceChoice, GpuError, Program, Source};
use rayon::prelude::*;

use crate::vec::{alloc_words, download, upload, Counters, Shared};
use crate::{CpuArg, Fault, FieldVec, Kernel, KernelField, ParamKind, Reducer, Traffic};

/// A failure of the layer: a device error, a kernel that faulted, or a call that does
/// not match its kernel.
#[derive(Debug, thiserror::Error)]
pub enum RuntimeError {
    #[error(transparent)]
    Gpu(#[from] GpuError),
    #[error("kernel `{kernel}` read past the end of an array or divided by zero")]
    Fault { kernel: &'static str },
    #[error("kernel `{kernel}` takes {expected} arguments after its index, {given} given")]
    Arity {
        kernel: &'static str,
        expected: usize,
        given: usize,
    },
    #[error("kernel `{kernel}`: argument `{param}` is {expected:?}, {given:?} given")]
    Kind {
        kernel: &'static str,
        param: &'static str,
        expected: ParamKind,
        given: ParamKind,
    },
    #[error("kernel `{kernel}`: {what}")]
    Call { kernel: &'static str, what: String },
    #[error("runtime: {0}")]
    Internal(String),
}

/// An argument of a kernel call, in the order of the kernel's parameters after its index.
#[derive(Clone, Copy)]
pub enum Arg<'a, F> {
    Vec(&'a FieldVec<F>),
    Field(F),
    Int(usize),
}

impl<F> Arg<'_, F> {
    fn kind(&self) -> ParamKind {
        match self {
            Arg::Vec(_) => ParamKind::Input,
            Arg::Field(_) => ParamKind::Field,
            Arg::Int(_) => ParamKind::Int,
        }
    }
}

/// Runs kernels on the CPU or on one device; the vectors it makes live there.
pub struct Context {
    shared: Arc<Shared>,
    programs: Mutex<HashMap<(TypeId, TypeId, TypeId), Arc<Program>>>,
}

/// Threads of a reduction on a device: enough to fill it, few enough that the partial
/// results (one per work-group) are cheap to finish on the host.
const REDUCE_GROUPS: usize = 1024;

impl Context {
    pub fn cpu() -> Self {
        Self::with(None)
    }

    pub fn device(device: Arc<Device>) -> Self {
        Self::with(Some(device))
    }

    /// The device `choice` names (`cpu`, `cuda`, `opencl`, `auto`), as
    /// [`DeviceChoice::open`] picks it.
    pub fn open(choice: DeviceChoice) -> Result<Self, RuntimeError> {
        Ok(Self::with(choice.open()?.map(Arc::new)))
    }

    fn with(device: Option<Arc<Device>>) -> Self {
        Self {
            shared: Arc::new(Shared {
                device,
                counters: Counters::default(),
            }),
            programs: Mutex::new(HashMap::new()),
        }
    }

    /// The device, `None` on the CPU.
    pub fn device_handle(&self) -> Option<&Arc<Device>> {
        self.shared.device.as_ref()
    }

    /// `cpu`, or the device's name.
    pub fn describe(&self) -> String {
        match &self.shared.device {
            None => "cpu".into(),
            Some(d) => d.info().to_string(),
        }
    }

    /// Data moved so far.
    pub fn traffic(&self) -> Traffic {
        self.shared.counters.snapshot()
    }

    /// A vector of this context, on the host.
    pub fn vec<F: KernelField>(&self, v: Vec<F>) -> FieldVec<F> {
        FieldVec::from_host(self.shared.clone(), v)
    }

    fn check<F: KernelField, K: Kernel<F>>(&self, args: &[Arg<'_, F>]) -> Result<(), RuntimeError> {
        if args.len() != K::PARAMS.len() {
            return Err(RuntimeError::Arity {
                kernel: K::NAME,
                expected: K::PARAMS.len(),
                given: args.len(),
            });
        }
        for ((a, &p), &name) in args.iter().zip(K::PARAMS).zip(K::PARAM_NAMES) {
            if a.kind() != p {
                return Err(RuntimeError::Kind {
                    kernel: K::NAME,
                    param: name,
                    expected: p,
                    given: a.kind(),
                });
            }
            if let Arg::Vec(v) = a {
                if !v.belongs_to(&self.shared) {
                    return Err(RuntimeError::Call {
                        kernel: K::NAME,
                        what: format!("`{name}` is a vector of another context"),
                    });
                }
            }
        }
        Ok(())
    }

    /// A new vector of `n` elements, element `i` the kernel's output at `i` (map over one
    /// input, zip over several, or any indexing into them).
    pub fn map<F: KernelField, K: Kernel<F>>(
        &self,
        _kernel: K,
        n: usize,
        args: &[Arg<'_, F>],
    ) -> Result<FieldVec<F>, RuntimeError> {
        self.check::<F, K>(args)?;
        if K::OUTPUTS != 1 {
            return Err(RuntimeError::Call {
                kernel: K::NAME,
                what: format!(
                    "gives {} elements per index: map makes one vector (use map_reduce)",
                    K::OUTPUTS
                ),
            });
        }
        match &self.shared.device {
            None => {
                let held = host_copies(args)?;
                let cpu = cpu_args(args, &held);
                let fault = Fault::default();
                let mut out = vec![F::ZERO; n];
                out.par_chunks_mut(CPU_CHUNK)
                    .enumerate()
                    .for_each(|(c, chunk)| {
                        for (j, o) in chunk.iter_mut().enumerate() {
                            K::run(c * CPU_CHUNK + j, &cpu, &fault, std::slice::from_mut(o));
                        }
                    });
                faulted::<F, K>(&fault)?;
                Ok(self.vec(out))
            }
            Some(dev) => {
                let prog = self.program::<F, K, ()>(dev, Op::Map)?;
                let out = alloc_words(dev, n * F::WORDS)?;
                self.launch::<F, K>(dev, &prog, "fzk_map", n, n, args, &out)?;
                Ok(FieldVec::from_device(self.shared.clone(), n, out))
            }
        }
    }

    /// The kernel's outputs over `0..n`, each of its `OUTPUTS` components reduced with
    /// `R` (the identity when `n` is 0).
    pub fn map_reduce<F: KernelField, K: Kernel<F>, R: Reducer<F>>(
        &self,
        _kernel: K,
        _reducer: R,
        n: usize,
        args: &[Arg<'_, F>],
    ) -> Result<Vec<F>, RuntimeError> {
        self.check::<F, K>(args)?;
        let k = K::OUTPUTS;
        let combine = |mut a: Vec<F>, b: Vec<F>| {
            for (x, y) in a.iter_mut().zip(b) {
                *x = R::combine(*x, y);
            }
            a
        };
        match &self.shared.device {
            None => {
                let held = host_copies(args)?;
                let cpu = cpu_args(args, &held);
                let fault = Fault::default();
                let out = (0..n)
                    .into_par_iter()
                    .with_min_len(CPU_CHUNK)
                    .fold(
                        || (vec![R::identity(); k], vec![F::ZERO; k]),
                        |(acc, mut tmp), i| {
                            K::run(i, &cpu, &fault, &mut tmp);
                            (combine(acc, tmp.clone()), tmp)
                        },
                    )
                    .map(|(acc, _)| acc)
                    .reduce(|| vec![R::identity(); k], combine);
                faulted::<F, K>(&fault)?;
                Ok(out)
            }
            Some(dev) => {
                if n == 0 {
                    return Ok(vec![R::identity(); k]);
                }
                let prog = self.program::<F, K, R>(dev, Op::Reduce(R::NAME, R::DEVICE_C))?;
                let groups = n.div_ceil(dev.group_size()).min(REDUCE_GROUPS);
                let threads = groups * dev.group_size();
                let partial = alloc_words(dev, groups * k * F::WORDS)?;
                self.launch::<F, K>(dev, &prog, "fzk_reduce", n, threads, args, &partial)?;
                let words = download(dev, &partial, groups * k * F::WORDS)?;
                self.shared.counters.control(words.len() * 8);
                let parts = from_words::<F>(&words);
                Ok(parts
                    .chunks_exact(k)
                    .fold(vec![R::identity(); k], |a, b| combine(a, b.to_vec())))
            }
        }
    }

    /// The program of kernel `K` over `F` for `op`, built once per context.
    fn program<F: KernelField, K: Kernel<F>, R: 'static>(
        &self,
        dev: &Device,
        op: Op,
    ) -> Result<Arc<Program>, RuntimeError> {
        let key = (TypeId::of::<K>(), TypeId::of::<F>(), TypeId::of::<R>());
        if let Some(p) = self.lock_programs().get(&key) {
            return Ok(p.clone());
        }
        let src = device_source::<F, K>(op, dev.group_size());
        let p = dev.program(&src)?;
        self.lock_programs().insert(key, p.clone());
        Ok(p)
    }

    fn lock_programs(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<(TypeId, TypeId, TypeId), Arc<Program>>> {
        self.programs.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Launches `entry` over `threads` threads for `n` indices, the inputs moved to the
    /// device first, then waits and reports a fault.
    #[allow(clippy::too_many_arguments)]
    fn launch<F: KernelField, K: Kernel<F>>(
        &self,
        dev: &Device,
        prog: &Program,
        entry: &str,
        n: usize,
        threads: usize,
        args: &[Arg<'_, F>],
        out: &fastzk_gpu::Buffer,
    ) -> Result<(), RuntimeError> {
        let mut bufs = Vec::new();
        let mut uniforms = Vec::new();
        for a in args {
            match a {
                Arg::Vec(v) => bufs.push((v.device()?, v.len())),
                Arg::Field(x) => uniforms.push(*x),
                Arg::Int(_) => {}
            }
        }
        let uniform_words = to_words(&uniforms);
        let uniform = upload(dev, &uniform_words)?;
        let fault = upload(dev, &[0u64])?;
        let counters = &self.shared.counters;
        counters.control(uniform_words.len() * 8 + 8);
        let mut gpu_args = vec![GpuArg::U64(n as u64)];
        let mut next = bufs.iter();
        for a in args {
            match a {
                Arg::Vec(_) => {
                    let (b, len) = next.next().expect("one buffer per vector");
                    gpu_args.push(GpuArg::Buf(b));
                    gpu_args.push(GpuArg::U64(*len as u64));
                }
                Arg::Field(_) => {}
                Arg::Int(x) => gpu_args.push(GpuArg::U64(*x as u64)),
            }
        }
        gpu_args.push(GpuArg::Buf(&uniform));
        gpu_args.push(GpuArg::Buf(out));
        gpu_args.push(GpuArg::Buf(&fault));
        dev.launch(prog, entry, threads, &gpu_args)?;
        counters
            .launches
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        dev.finish()?;
        let flag = download(dev, &fault, 1)?;
        counters.control(8);
        if flag[0] != 0 {
            return Err(RuntimeError::Fault { kernel: K::NAME });
        }
        Ok(())
    }
}

/// Indices a CPU task takes at a time.
const CPU_CHUNK: usize = 1024;

/// The host copies of the vector arguments, held while the CPU loop reads them.
fn host_copies<F: KernelField>(args: &[Arg<'_, F>]) -> Result<Vec<Arc<Vec<F>>>, RuntimeError> {
    args.iter()
        .filter_map(|a| match a {
            Arg::Vec(v) => Some(v.host()),
            _ => None,
        })
        .collect()
}

fn cpu_args<'a, F: KernelField>(
    args: &[Arg<'_, F>],
    held: &'a [Arc<Vec<F>>],
) -> Vec<CpuArg<'a, F>> {
    let mut next = held.iter();
    args.iter()
        .map(|a| match a {
            Arg::Vec(_) => CpuArg::Input(next.next().map_or(&[][..], |v| &v[..])),
            Arg::Field(x) => CpuArg::Field(*x),
            Arg::Int(x) => CpuArg::Int(*x),
        })
        .collect()
}

fn faulted<F: KernelField, K: Kernel<F>>(fault: &Fault) -> Result<(), RuntimeError> {
    if fault.is_set() {
        Err(RuntimeError::Fault { kernel: K::NAME })
    } else {
        Ok(())
    }
}

#[derive(Clone, Copy)]
enum Op {
    Map,
    /// The reducer's name and C.
    Reduce(&'static str, &'static str),
}

/// The helpers every translated kernel calls (checked reads, checked division).
const HELPERS: &str = r#"
#define KF(x) FZ_NAME(FZ_F, x)
DEVICE FZ_F KF(k_at)(GLOBAL const FZ_F *a, u64 len, u64 i, u32 *fault) {
  if (i < len) return a[i];
  *fault = 1;
  return KF(zero)();
}
DEVICE u64 fz_local_index(u64 i, u64 len, u32 *fault) {
  if (i < len) return i;
  *fault = 1;
  return 0;
}
DEVICE u64 fz_div(u64 a, u64 b, u32 *fault) {
  if (b != 0) return a / b;
  *fault = 1;
  return 0;
}
DEVICE u64 fz_rem(u64 a, u64 b, u32 *fault) {
  if (b != 0) return a % b;
  *fault = 1;
  return 0;
}
"#;

/// The device program of kernel `K` over `F`: the field, the helpers, the translated body
/// and an entry point for `op`.
fn device_source<F: KernelField, K: Kernel<F>>(op: Op, group: usize) -> String {
    let mut src = Source::new();
    src.field::<F>();
    let mut c = format!(
        "#define FZ_F {}\n#define FZ_GROUP {group}\n",
        F::DEVICE_NAME
    );
    c.push_str(HELPERS);
    c.push_str(K::DEVICE_C);
    // Parameters and the call's arguments, in the kernel's order.
    let (mut params, mut call, mut field) = (Vec::new(), Vec::new(), 0);
    for (kind, name) in K::PARAMS.iter().zip(K::PARAM_NAMES) {
        match kind {
            ParamKind::Input => {
                params.push(format!("GLOBAL const FZ_F *a_{name}, u64 a_{name}_len"));
                call.push(format!("a_{name}, a_{name}_len"));
            }
            ParamKind::Field => {
                call.push(format!("fz_uniform[{field}]"));
                field += 1;
            }
            ParamKind::Int => {
                params.push(format!("u64 a_{name}"));
                call.push(format!("a_{name}"));
            }
        }
    }
    let params: String = params.iter().map(|p| format!(", {p}")).collect();
    let call: String = call.iter().map(|a| format!(", {a}")).collect();
    let (name, k) = (K::NAME, K::OUTPUTS);
    match op {
        Op::Map => c.push_str(&format!(
            "KERNEL fzk_map(u64 n{params}, GLOBAL const FZ_F *fz_uniform, GLOBAL FZ_F *fz_dst, GLOBAL u32 *fz_flag FZ_COUNTERS) {{
  u64 i = GLOBAL_ID();
  if (i >= n) return;
  u32 fault = 0;
  FZ_F out[1];
  KF(k_{name})(i{call}, &fault, out);
  fz_dst[i] = out[0];
  if (fault) *fz_flag = 1;
}}
"
        )),
        Op::Reduce(r, rc) => {
            c.push_str(rc);
            c.push_str(&format!(
                "KERNEL fzk_reduce(u64 n{params}, GLOBAL const FZ_F *fz_uniform, GLOBAL FZ_F *fz_partial, GLOBAL u32 *fz_flag FZ_COUNTERS) {{
  LOCAL_DECL FZ_F tmp[FZ_GROUP];
  u64 stride = (u64)FZ_GROUP * {REDUCE_GROUPS};
  u32 fault = 0;
  FZ_F acc[{k}], out[{k}];
  for (int j = 0; j < {k}; j++) acc[j] = KF(r_{r}_identity)();
  for (u64 i = GLOBAL_ID(); i < n; i += stride) {{
    KF(k_{name})(i{call}, &fault, out);
    for (int j = 0; j < {k}; j++) acc[j] = KF(r_{r})(acc[j], out[j]);
  }}
  if (fault) *fz_flag = 1;
  u32 l = LOCAL_ID();
  for (int j = 0; j < {k}; j++) {{
    tmp[l] = acc[j];
    BARRIER();
    for (u32 s = FZ_GROUP / 2; s > 0; s >>= 1) {{
      if (l < s) tmp[l] = KF(r_{r})(tmp[l], tmp[l + s]);
      BARRIER();
    }}
    if (l == 0) fz_partial[(u64)GROUP_ID() * {k} + j] = tmp[0];
    BARRIER();
  }}
}}
"
            ));
        }
    }
    c.push_str("#undef KF\n#undef FZ_GROUP\n#undef FZ_F\n");
    src.append(&c);
    src.text().to_string()
}
