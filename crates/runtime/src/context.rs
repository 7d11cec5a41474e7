//! Where kernels run: the CPU (rayon) or one device, and the device programs each
//! kernel becomes there.

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use fastzk_gpu::{Device, DeviceChoice, DeviceField, GpuError, Program, Source};

use crate::lanes::{LaneChoice, LaneGroups};
use crate::task::Task;
use crate::vec::{Counters, Shared};
use crate::{FieldVec, Kernel, KernelField, ParamKind, Reducer, Traffic};

/// A failure of the layer: a device error, a kernel that faulted, or a call that does
/// not match its kernel.
#[derive(Debug, thiserror::Error)]
pub enum RuntimeError {
    #[error(transparent)]
    Gpu(#[from] GpuError),
    #[error(transparent)]
    Poly(#[from] fastzk_poly::PolyError),
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
pub enum Arg<'a, F: KernelField> {
    Vec(&'a FieldVec<F>),
    /// A vector over the base field, for a `&[F::Base]` parameter.
    BaseVec(&'a FieldVec<F::Base>),
    Field(F),
    Int(usize),
}

impl<F: KernelField> Clone for Arg<'_, F> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<F: KernelField> Copy for Arg<'_, F> {}

impl<F: KernelField> Arg<'_, F> {
    fn kind(&self) -> ParamKind {
        match self {
            Arg::Vec(_) => ParamKind::Input,
            Arg::BaseVec(_) => ParamKind::BaseInput,
            Arg::Field(_) => ParamKind::Field,
            Arg::Int(_) => ParamKind::Int,
        }
    }

    /// Whether a vector argument is of another context than `shared`'s.
    fn foreign(&self, shared: &Arc<Shared>) -> bool {
        match self {
            Arg::Vec(v) => !v.belongs_to(shared),
            Arg::BaseVec(v) => !v.belongs_to(shared),
            _ => false,
        }
    }
}

/// A program: the kernel, the field, the reducer and the vectors stored.
type ProgramKey = (TypeId, TypeId, TypeId, usize);

/// A library engine: its type and what it was made for (a transform's size, root and coset).
type EngineKey = (TypeId, Vec<u8>);
type Engines = HashMap<EngineKey, Arc<dyn std::any::Any + Send + Sync>>;

/// Runs kernels on the CPU or on one device; the vectors it makes live there.
pub struct Context {
    shared: Arc<Shared>,
    programs: Mutex<HashMap<ProgramKey, Arc<Program>>>,
    /// Library engines (NTT domains, device transforms) by type and what they are for.
    engines: Mutex<Engines>,
    /// How the CPU loop runs kernels (`crate::lanes`), and what it ran on lanes so far.
    lanes: LaneChoice,
    lane_groups: [AtomicU64; 2],
}

/// Threads of a reduction on a device: enough to fill it, few enough that the partial
/// results (one per work-group) are cheap to finish on the host.
pub(crate) const REDUCE_GROUPS: usize = 1024;

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
            engines: Mutex::new(HashMap::new()),
            lanes: LaneChoice::detect(),
            lane_groups: Default::default(),
        }
    }

    /// This context with its CPU loop on `lanes` (tests and benchmarks; the default is
    /// [`LaneChoice::detect`]'s); refused where the CPU lacks them.
    #[doc(hidden)]
    pub fn with_lanes(mut self, lanes: LaneChoice) -> Result<Self, RuntimeError> {
        if !lanes.is_supported() {
            return Err(RuntimeError::Internal(format!(
                "this CPU cannot run the {lanes:?} lanes"
            )));
        }
        self.lanes = lanes;
        Ok(self)
    }

    /// How the CPU loop runs kernels.
    #[doc(hidden)]
    pub fn lanes(&self) -> LaneChoice {
        self.lanes
    }

    /// Groups of eight indices the CPU loop ran on lanes so far, and those it gave up on.
    #[doc(hidden)]
    pub fn lane_groups(&self) -> LaneGroups {
        LaneGroups {
            ran: self.lane_groups[0].load(Ordering::Relaxed),
            gave_up: self.lane_groups[1].load(Ordering::Relaxed),
        }
    }

    pub(crate) fn count_lane_groups(&self, g: LaneGroups) {
        self.lane_groups[0].fetch_add(g.ran, Ordering::Relaxed);
        self.lane_groups[1].fetch_add(g.gave_up, Ordering::Relaxed);
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

    pub(crate) fn shared(&self) -> Arc<Shared> {
        self.shared.clone()
    }

    pub(crate) fn counters(&self) -> &Counters {
        &self.shared.counters
    }

    /// A task with a private stream, synchronising eagerly: each launch is waited for
    /// (and its faults reported) before the call returns.
    pub fn task(&self) -> Result<Task<'_>, RuntimeError> {
        Task::new(self, false)
    }

    /// A task whose launches return at once, waited for (with their faults) at
    /// [`Task::sync`]; its joined children defer too.
    pub fn deferred_task(&self) -> Result<Task<'_>, RuntimeError> {
        Task::new(self, true)
    }

    /// [`Task::map`] on a task of its own.
    pub fn map<F: KernelField, K: Kernel<F>>(
        &self,
        kernel: K,
        n: usize,
        args: &[Arg<'_, F>],
    ) -> Result<FieldVec<F>, RuntimeError> {
        self.task()?.map(kernel, n, args)
    }

    /// [`Task::map_reduce`] on a task of its own.
    pub fn map_reduce<F: KernelField, K: Kernel<F>, R: Reducer<F>>(
        &self,
        kernel: K,
        reducer: R,
        n: usize,
        args: &[Arg<'_, F>],
    ) -> Result<Vec<F>, RuntimeError> {
        self.task()?.map_reduce(kernel, reducer, n, args)
    }

    /// A vector of this context, on the host.
    pub fn vec<F: KernelField>(&self, v: Vec<F>) -> FieldVec<F> {
        FieldVec::from_host(self.shared.clone(), Arc::new(v))
    }

    /// A vector of this context over host data shared with its owner, not copied (a
    /// vector never changes, so neither side can see the other write).
    pub fn vec_shared<F: KernelField>(&self, v: Arc<Vec<F>>) -> FieldVec<F> {
        FieldVec::from_host(self.shared.clone(), v)
    }

    pub(crate) fn check<F: KernelField, K: Kernel<F>>(
        &self,
        args: &[Arg<'_, F>],
    ) -> Result<(), RuntimeError> {
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
            if a.foreign(&self.shared) {
                return Err(RuntimeError::Call {
                    kernel: K::NAME,
                    what: format!("`{name}` is a vector of another context"),
                });
            }
        }
        Ok(())
    }

    /// The program of kernel `K` over `F` for `op`, built once per context.
    pub(crate) fn program<F: KernelField, K: Kernel<F>, R: 'static>(
        &self,
        dev: &Device,
        op: Op,
    ) -> Result<Arc<Program>, RuntimeError> {
        let key = (
            TypeId::of::<K>(),
            TypeId::of::<F>(),
            TypeId::of::<R>(),
            op.vectors,
        );
        if let Some(p) = self.lock_programs().get(&key) {
            return Ok(p.clone());
        }
        let src = device_source::<F, K>(op, dev.group_size());
        let p = dev.program(&src)?;
        self.lock_programs().insert(key, p.clone());
        Ok(p)
    }

    pub(crate) fn lock_engines(&self) -> std::sync::MutexGuard<'_, Engines> {
        self.engines.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn lock_programs(&self) -> std::sync::MutexGuard<'_, HashMap<ProgramKey, Arc<Program>>> {
        self.programs.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// What a program's `fzk_run` does with the kernel's outputs: the first `vectors` are
/// stored, the rest reduced with `reducer` (its name and C).
#[derive(Clone, Copy)]
pub(crate) struct Op {
    pub vectors: usize,
    pub reducer: (&'static str, &'static str),
}

/// The helpers every translated kernel calls (checked reads, checked division). `KF`
/// names the field's operations, `KB` its base field's.
const HELPERS: &str = r#"
#define KF(x) FZ_NAME(FZ_F, x)
#define KB(x) FZ_NAME(FZ_B, x)
DEVICE FZ_F KF(k_at)(GLOBAL const FZ_F *a, u64 len, u64 i, u32 *fault) {
  if (i < len) return a[i];
  *fault = 1;
  return KF(zero)();
}
DEVICE FZ_B KF(k_at_base)(GLOBAL const FZ_B *a, u64 len, u64 i, u32 *fault) {
  if (i < len) return a[i];
  *fault = 1;
  return KB(zero)();
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

/// `KF(from_base)` and `KF(mul_base)` where `F`'s definition has none: an extension's
/// brings its products by the base; a prime field is its own base.
pub(crate) fn base_products<F: KernelField>() -> &'static str {
    if <F::Base as DeviceField>::DEVICE_NAME == F::DEVICE_NAME {
        "DEVICE FZ_F KF(from_base)(FZ_B b) { return b; }\n\
         DEVICE FZ_F KF(mul_base)(FZ_F a, FZ_B b) { return KF(mul)(a, b); }\n"
    } else {
        ""
    }
}

/// The program a device context builds for kernel `K` over `F` storing `vectors` outputs
/// and reducing the rest with `R`, for work-groups of `group` threads (a power of two):
/// to compile it elsewhere (NVRTC in CI, the static model).
pub fn program_source<F: KernelField, K: Kernel<F>, R: Reducer<F>>(
    vectors: usize,
    group: usize,
) -> String {
    device_source::<F, K>(
        Op {
            vectors,
            reducer: (R::NAME, R::DEVICE_C),
        },
        group,
    )
}

/// The device program of kernel `K` over `F`: the field, the helpers, the translated body
/// and an entry point for `op`.
fn device_source<F: KernelField, K: Kernel<F>>(op: Op, group: usize) -> String {
    let mut src = Source::new();
    src.field::<F>();
    let mut c = format!(
        "#define FZ_F {}\n#define FZ_B {}\n#define FZ_GROUP {group}\n",
        F::DEVICE_NAME,
        <F::Base as DeviceField>::DEVICE_NAME
    );
    c.push_str(HELPERS);
    c.push_str(base_products::<F>());
    c.push_str(K::DEVICE_C);
    // Parameters and the call's arguments, in the kernel's order, named by position: a
    // name of the kernel's own, with a suffix, could be another of its names (`v_len`
    // beside `v`).
    let (mut params, mut call, mut unpack) = (Vec::new(), Vec::new(), String::new());
    for (p, kind) in K::PARAMS.iter().enumerate() {
        match kind {
            ParamKind::Input | ParamKind::BaseInput => {
                let ty = if *kind == ParamKind::Input {
                    "FZ_F"
                } else {
                    "FZ_B"
                };
                params.push(format!("GLOBAL const {ty} *a{p}, u64 a{p}_len"));
                call.push(format!("a{p}, a{p}_len"));
            }
            // A field element arrives as its words, put back together in a union.
            ParamKind::Field => {
                let w: Vec<String> = (0..F::WORDS).map(|j| format!("u64 a{p}_{j}")).collect();
                params.push(w.join(", "));
                let set: String = (0..F::WORDS)
                    .map(|j| format!("u{p}.w[{j}] = a{p}_{j}; "))
                    .collect();
                unpack.push_str(&format!(
                    "  union {{ FZ_F f; u64 w[{}]; }} u{p};\n  {set}\n",
                    F::WORDS
                ));
                call.push(format!("u{p}.f"));
            }
            ParamKind::Int => {
                params.push(format!("u64 a{p}"));
                call.push(format!("a{p}"));
            }
        }
    }
    let params: String = params.iter().map(|p| format!(", {p}")).collect();
    let call: String = call.iter().map(|a| format!(", {a}")).collect();
    let (name, k, m) = (K::NAME, K::OUTPUTS, op.vectors);
    let reduced = k - m;
    let (r, rc) = op.reducer;
    let dsts: String = (0..m)
        .map(|j| format!("GLOBAL FZ_F *fz_dst{j}, "))
        .collect();
    let stores: String = (0..m)
        .map(|j| format!("    fz_dst{j}[i] = out[{j}];\n"))
        .collect();
    // Reduced components: each thread's accumulators over its indices, then a tree in
    // local memory per component, one partial result per work-group.
    let (acc_decl, acc_add, tree) = if reduced == 0 {
        Default::default()
    } else {
        c.push_str(rc);
        (
            format!(
                "  LOCAL_DECL FZ_F tmp[FZ_GROUP];\n  FZ_F acc[{reduced}];\n  for (int j = 0; j < {reduced}; j++) acc[j] = KF(r_{r}_identity)();\n"
            ),
            format!("    for (int j = 0; j < {reduced}; j++) acc[j] = KF(r_{r})(acc[j], out[{m} + j]);\n"),
            format!(
                "  u32 l = LOCAL_ID();
  for (int j = 0; j < {reduced}; j++) {{
    tmp[l] = acc[j];
    BARRIER();
    for (u32 s = FZ_GROUP / 2; s > 0; s >>= 1) {{
      if (l < s) tmp[l] = KF(r_{r})(tmp[l], tmp[l + s]);
      BARRIER();
    }}
    if (l == 0) fz_partial[(u64)GROUP_ID() * {reduced} + j] = tmp[0];
    BARRIER();
  }}
"
            ),
        )
    };
    c.push_str(&format!(
        "KERNEL fzk_run(u64 n{params}, {dsts}GLOBAL FZ_F *fz_partial, GLOBAL u32 *fz_flag, u32 fz_launch FZ_COUNTERS) {{
{acc_decl}{unpack}  u64 stride = (u64)FZ_GROUP * {REDUCE_GROUPS};
  u32 fault = 0;
  FZ_F out[{k}];
  for (u64 i = GLOBAL_ID(); i < n; i += stride) {{
    KF(k_{name})(i{call}, &fault, out);
{stores}{acc_add}  }}
  if (fault) *fz_flag = fz_launch;
{tree}}}
"
    ));
    c.push_str("#undef KF\n#undef KB\n#undef FZ_GROUP\n#undef FZ_B\n#undef FZ_F\n");
    src.append(&c);
    src.text().to_string()
}
