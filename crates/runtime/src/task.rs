//! Tasks: collaborative heterogeneous parallelism (ZERA §4.2, §5.1). A task is a CPU
//! task (rayon) that may launch device work; it does so on a private stream taken from
//! the device's recycled pool. [`Task::join`] runs two child tasks in parallel, each on
//! its own stream, and joins their streams into the parent's through events, without
//! waiting on the host. Synchronisation is eager by default — every launch is waited for
//! and its faults reported before the call returns, as host code after it may depend on
//! it — or deferred ([`Context::deferred_task`]): launches return at once and are waited
//! for, with their faults, at [`Task::sync`] (which also waits for the joined children).

use std::marker::PhantomData;
use std::mem::MaybeUninit;
use std::sync::Arc;

use fastzk_gpu::runtime::{Event, Pinned, Stream};
use fastzk_gpu::source::from_words;
use fastzk_gpu::{Arg as GpuArg, Buffer, Device};
use rayon::prelude::*;

use crate::context::{Op, REDUCE_GROUPS};
use crate::lanes;
use crate::vec::{alloc_words, HostSlice};
use crate::{
    Arg, Context, CpuArg, Fault, FieldVec, Kernel, KernelField, ParamKind, Reducer, RuntimeError,
    Sum,
};

/// A CPU task of a [`Context`], with its private stream on the context's device.
pub struct Task<'c> {
    ctx: &'c Context,
    stream: Option<Stream<'c>>,
    deferred: bool,
    /// One fault word for the task's launches: a launch that faults writes its number
    /// (from 1), read back at the next sync.
    flag: Option<Buffer>,
    launched: Vec<&'static str>,
    /// Staging memory of uploads in flight, and the buffers launches in flight read and
    /// write, kept until the sync (dropped after the stream, which waits for its work).
    staging: Vec<Pinned<'c>>,
    holding: Vec<Arc<Buffer>>,
    /// Joined children, waited for at the sync.
    children: Vec<Task<'c>>,
}

impl<'c> Task<'c> {
    pub(crate) fn new(ctx: &'c Context, deferred: bool) -> Result<Self, RuntimeError> {
        let stream = match ctx.device_handle() {
            Some(d) => {
                let s = d.stream()?;
                ctx.counters().stream_taken();
                Some(s)
            }
            None => None,
        };
        Ok(Self {
            ctx,
            stream,
            deferred,
            flag: None,
            launched: Vec::new(),
            staging: Vec::new(),
            holding: Vec::new(),
            children: Vec::new(),
        })
    }

    pub fn context(&self) -> &'c Context {
        self.ctx
    }

    pub fn is_deferred(&self) -> bool {
        self.deferred
    }

    /// Runs `a` and `b` as parallel tasks (rayon), each with a stream of its own and this
    /// task's synchronisation mode; their streams join this one's: work this task issues
    /// afterwards runs after theirs, and this task's sync waits for them.
    pub fn join<A: Send, B: Send>(
        &mut self,
        a: impl FnOnce(&mut Task<'c>) -> A + Send,
        b: impl FnOnce(&mut Task<'c>) -> B + Send,
    ) -> Result<(A, B), RuntimeError> {
        let (ctx, deferred) = (self.ctx, self.deferred);
        let (ja, jb) = rayon::join(
            || -> Result<_, RuntimeError> {
                let mut t = Task::new(ctx, deferred)?;
                Ok((a(&mut t), t))
            },
            || -> Result<_, RuntimeError> {
                let mut t = Task::new(ctx, deferred)?;
                Ok((b(&mut t), t))
            },
        );
        let ((ra, ta), (rb, tb)) = (ja?, jb?);
        for t in [ta, tb] {
            if let (Some(me), Some(s)) = (&self.stream, &t.stream) {
                me.wait(&s.record()?)?;
            }
            self.children.push(t);
        }
        Ok((ra, rb))
    }

    /// Waits for everything this task and its joined children issued, and reports the
    /// first fault among them.
    pub fn sync(&mut self) -> Result<(), RuntimeError> {
        let mut first: Result<(), RuntimeError> = Ok(());
        for mut c in std::mem::take(&mut self.children) {
            let r = c.sync();
            if first.is_ok() {
                first = r;
            }
        }
        if let Some(s) = &self.stream {
            s.finish()?;
        }
        self.staging.clear();
        self.holding.clear();
        if let (Some(flag), Some(dev)) = (&self.flag, self.ctx.device_handle()) {
            if !self.launched.is_empty() {
                let mut w = [0u32; 2];
                dev.read(flag, &mut w)?;
                self.ctx.counters().control(8);
                if w[0] != 0 {
                    let kernel = self.launched.get(w[0] as usize - 1).copied();
                    self.launched.clear();
                    self.zero_flag()?;
                    return Err(RuntimeError::Fault {
                        kernel: kernel.unwrap_or("(unknown)"),
                    });
                }
                self.launched.clear();
            }
        }
        first
    }

    fn zero_flag(&mut self) -> Result<(), RuntimeError> {
        if let (Some(f), Some(s)) = (&self.flag, &self.stream) {
            s.zero(f, 8)?;
            s.finish()?;
        }
        Ok(())
    }

    fn eager(&mut self) -> Result<(), RuntimeError> {
        if self.deferred {
            Ok(())
        } else {
            self.sync()
        }
    }

    /// A new vector of `n` elements, element `i` the kernel's output at `i` (map over one
    /// input, zip over several, or any indexing into them).
    pub fn map<F: KernelField, K: Kernel<F>>(
        &mut self,
        kernel: K,
        n: usize,
        args: &[Arg<'_, F>],
    ) -> Result<FieldVec<F>, RuntimeError> {
        if K::OUTPUTS != 1 {
            return Err(RuntimeError::Call {
                kernel: K::NAME,
                what: format!(
                    "gives {} elements per index: map makes one vector (use run or map_reduce)",
                    K::OUTPUTS
                ),
            });
        }
        let (mut v, _) = self.run(kernel, Sum, n, 1, args)?;
        v.pop()
            .ok_or_else(|| RuntimeError::Internal("run made no vector".into()))
    }

    /// The kernel's outputs over `0..n`, each of its `OUTPUTS` components reduced with
    /// `R` (the identity when `n` is 0). Its result is on the host, so it synchronises
    /// this task, deferred or not.
    pub fn map_reduce<F: KernelField, K: Kernel<F>, R: Reducer<F>>(
        &mut self,
        kernel: K,
        reducer: R,
        n: usize,
        args: &[Arg<'_, F>],
    ) -> Result<Vec<F>, RuntimeError> {
        Ok(self.run(kernel, reducer, n, 0, args)?.1)
    }

    /// The general loop, in one pass over `0..n`: the kernel's first `vectors` output
    /// components become vectors (component `k` at index `i` is element `i` of vector
    /// `k`), the others are reduced with `R` — a fold that writes the bound tables and
    /// sums the next message at once, say. Synchronises when anything is reduced.
    pub fn run<F: KernelField, K: Kernel<F>, R: Reducer<F>>(
        &mut self,
        _kernel: K,
        _reducer: R,
        n: usize,
        vectors: usize,
        args: &[Arg<'_, F>],
    ) -> Result<(Vec<FieldVec<F>>, Vec<F>), RuntimeError> {
        self.ctx.check::<F, K>(args)?;
        let k = K::OUTPUTS;
        if vectors > k {
            return Err(RuntimeError::Call {
                kernel: K::NAME,
                what: format!("gives {k} elements per index, not {vectors} vectors"),
            });
        }
        let reduced = k - vectors;
        let combine = |mut a: Vec<F>, b: &[F]| {
            for (x, y) in a.iter_mut().zip(b) {
                *x = R::combine(*x, *y);
            }
            a
        };
        let Some(dev) = self.ctx.device_handle() else {
            let held = host_copies(args)?;
            let cpu = cpu_args(args, &held);
            let fault = Fault::default();
            let body = K::body(&cpu, &fault);
            let (ctx, lanes) = (self.ctx, self.ctx.lanes());
            // Outputs are written once each, so they are not zeroed first.
            let mut outs: Vec<Vec<F>> = (0..vectors).map(|_| Vec::with_capacity(n)).collect();
            // Each task takes a chunk of indices and the matching chunk of every output.
            let mut chunks: Vec<Vec<&mut [MaybeUninit<F>]>> =
                (0..n.div_ceil(CPU_CHUNK)).map(|_| Vec::new()).collect();
            for o in outs.iter_mut() {
                for (c, piece) in o.spare_capacity_mut()[..n]
                    .chunks_mut(CPU_CHUNK)
                    .enumerate()
                {
                    chunks[c].push(piece);
                }
            }
            let sums = chunks
                .into_par_iter()
                .enumerate()
                .map(|(c, pieces)| {
                    let start = c * CPU_CHUNK;
                    let range = (start, (start + CPU_CHUNK).min(n));
                    let mut sink = ChunkOut::<F, R> {
                        pieces,
                        acc: vec![R::identity(); reduced],
                        vectors,
                        reducer: PhantomData,
                    };
                    let groups =
                        lanes::fill::<F, K, _, _>(lanes, &cpu, &fault, &body, range, &mut sink);
                    ctx.count_lane_groups(groups);
                    sink.acc
                })
                .reduce(|| vec![R::identity(); reduced], |a, b| combine(a, &b));
            for o in outs.iter_mut() {
                // SAFETY: the chunks cover `0..n` and each wrote every element of its
                // range of every output (a panic in a body unwinds past this line).
                unsafe { o.set_len(n) };
            }
            faulted::<F, K>(&fault)?;
            return Ok((outs.into_iter().map(|o| self.ctx.vec(o)).collect(), sums));
        };
        let prog = self.ctx.program::<F, K, R>(
            dev,
            Op {
                vectors,
                reducer: (R::NAME, R::DEVICE_C),
            },
        )?;
        let groups = n.div_ceil(dev.group_size()).clamp(1, REDUCE_GROUPS);
        let threads = groups * dev.group_size();
        let dst = (0..vectors)
            .map(|_| alloc_words(dev, n * F::WORDS).map(Arc::new))
            .collect::<Result<Vec<_>, _>>()?;
        let partial_words = groups * reduced * F::WORDS;
        // A loop that reduces nothing writes no partials: no buffer for them.
        let partial = match reduced {
            0 => None,
            _ => Some(Arc::new(alloc_words(dev, partial_words)?)),
        };
        if n > 0 {
            self.launch::<F, K>(dev, &prog, n, threads, args, &dst, partial.as_ref())?;
        }
        let ready = Arc::new(self.stream().record()?);
        let vecs = dst
            .into_iter()
            .map(|b| FieldVec::from_device(self.ctx.shared(), n, b, ready.clone()))
            .collect();
        let Some(partial) = partial.filter(|_| n > 0) else {
            self.eager()?;
            return Ok((vecs, vec![R::identity(); reduced]));
        };
        let mut pinned = dev.pinned(8 * partial_words)?;
        self.stream().download(&partial, 0, &mut pinned)?;
        let parts = from_words::<F>(pinned.as_slice::<u64>()?);
        self.ctx.counters().control(8 * partial_words);
        self.sync()?;
        let sums = parts
            .chunks_exact(reduced)
            .fold(vec![R::identity(); reduced], combine);
        Ok((vecs, sums))
    }

    /// An event for everything this task issued so far.
    pub(crate) fn record(&self) -> Result<Event, RuntimeError> {
        Ok(self.stream().record()?)
    }

    fn stream(&self) -> &Stream<'c> {
        self.stream
            .as_ref()
            .expect("a task of a device context has a stream")
    }

    /// `words` into a new buffer, copied on this task's stream through pinned staging
    /// memory (kept until the sync); the event marks the copy's end.
    pub(crate) fn upload(
        &mut self,
        dev: &'c Device,
        words: &[u64],
    ) -> Result<(Buffer, Event), RuntimeError> {
        let buf = alloc_words(dev, words.len())?;
        if !words.is_empty() {
            let mut pinned = dev.pinned(8 * words.len())?;
            pinned.as_mut_slice::<u64>()?.copy_from_slice(words);
            self.stream().upload(&buf, 0, &mut pinned)?;
            self.staging.push(pinned);
        }
        Ok((buf, self.stream().record()?))
    }

    /// `v`'s device copy (uploaded on this task's stream if it has none) and its length,
    /// for work this task issues next (its stream waits for the copy).
    fn on_device<G: KernelField>(
        &mut self,
        dev: &'c Device,
        v: &FieldVec<G>,
    ) -> Result<(Arc<Buffer>, usize), RuntimeError> {
        let (buf, ready) = v.device_copy(|w| self.upload(dev, w))?;
        self.stream().wait(&ready)?;
        Ok((buf, v.len()))
    }

    /// Issues the kernel's `fzk_run` over `threads` threads for `n` indices on this task's stream, after
    /// its vector arguments are on the device (moved there on this stream, or waited for
    /// where another stream is making them).
    #[allow(clippy::too_many_arguments)]
    fn launch<F: KernelField, K: Kernel<F>>(
        &mut self,
        dev: &'c Device,
        prog: &fastzk_gpu::Program,
        n: usize,
        threads: usize,
        args: &[Arg<'_, F>],
        dst: &[Arc<Buffer>],
        partial: Option<&Arc<Buffer>>,
    ) -> Result<(), RuntimeError> {
        let mut bufs = Vec::new();
        for a in args {
            match a {
                Arg::Vec(v) => bufs.push(self.on_device(dev, v)?),
                Arg::BaseVec(v) => bufs.push(self.on_device(dev, v)?),
                _ => {}
            }
        }
        if self.flag.is_none() {
            self.flag = Some(alloc_words(dev, 1)?);
            self.zero_flag()?;
        }
        self.launched.push(K::NAME);
        let launch_id = self.launched.len() as u32;
        let mut uniform_words = Vec::new();
        let mut gpu_args = vec![GpuArg::U64(n as u64)];
        let mut next = bufs.iter();
        for (a, kind) in args.iter().zip(K::PARAMS) {
            match (a, kind) {
                (Arg::Vec(_), ParamKind::Input) | (Arg::BaseVec(_), ParamKind::BaseInput) => {
                    let (b, len) = next.next().expect("one buffer per vector");
                    gpu_args.push(GpuArg::Buf(b));
                    gpu_args.push(GpuArg::U64(*len as u64));
                }
                // A field element crosses as its words, as kernel arguments.
                (Arg::Field(x), ParamKind::Field) => {
                    uniform_words.clear();
                    x.push_words(&mut uniform_words);
                    gpu_args.extend(uniform_words.iter().map(|w| GpuArg::U64(*w)));
                }
                (Arg::Int(x), ParamKind::Int) => gpu_args.push(GpuArg::U64(*x as u64)),
                _ => return Err(RuntimeError::Internal("arguments checked".into())),
            }
        }
        let flag = self.flag.as_ref().expect("made above");
        gpu_args.extend(dst.iter().map(|b| GpuArg::Buf(b)));
        // (Without partials the kernel never reads this argument; the flag fills it.)
        gpu_args.push(GpuArg::Buf(partial.map_or(flag, |p| &**p)));
        gpu_args.push(GpuArg::Buf(flag));
        gpu_args.push(GpuArg::U32(launch_id));
        self.stream().launch(prog, "fzk_run", threads, &gpu_args)?;
        self.ctx.counters().launched();
        self.holding.extend(bufs.into_iter().map(|(b, _)| b));
        self.holding.extend(dst.iter().cloned());
        self.holding.extend(partial.cloned());
        Ok(())
    }
}

/// Indices a CPU task takes at a time.
const CPU_CHUNK: usize = 1024;

/// A CPU chunk's outputs: its part of each vector, and its reductions.
struct ChunkOut<'p, F, R> {
    pieces: Vec<&'p mut [MaybeUninit<F>]>,
    acc: Vec<F>,
    vectors: usize,
    reducer: PhantomData<R>,
}

impl<F: KernelField, R: Reducer<F>> lanes::Sink<F> for ChunkOut<'_, F, R> {
    #[inline(always)]
    fn one(&mut self, j: usize, out: &[F]) {
        for (p, x) in self.pieces.iter_mut().zip(out) {
            p[j].write(*x);
        }
        for (a, x) in self.acc.iter_mut().zip(&out[self.vectors..]) {
            *a = R::combine(*a, *x);
        }
    }
    #[inline(always)]
    fn eight(&mut self, j: usize, out: &[[F; lanes::LANES]]) {
        for (p, x) in self.pieces.iter_mut().zip(out) {
            for (p, x) in p[j..j + lanes::LANES].iter_mut().zip(x) {
                p.write(*x);
            }
        }
        for (a, x) in self.acc.iter_mut().zip(&out[self.vectors..]) {
            for x in x {
                *a = R::combine(*a, *x);
            }
        }
    }
}

/// The host copies of the vector arguments (over the field, then over its base), held
/// while the CPU loop reads them.
type HostCopies<F> = (Vec<HostSlice<F>>, Vec<HostSlice<<F as KernelField>::Base>>);

fn host_copies<F: KernelField>(args: &[Arg<'_, F>]) -> Result<HostCopies<F>, RuntimeError> {
    let (mut field, mut base) = (Vec::new(), Vec::new());
    for a in args {
        match a {
            Arg::Vec(v) => field.push(v.host()?),
            Arg::BaseVec(v) => base.push(v.host()?),
            _ => {}
        }
    }
    Ok((field, base))
}

fn cpu_args<'a, F: KernelField>(
    args: &[Arg<'_, F>],
    held: &'a HostCopies<F>,
) -> Vec<CpuArg<'a, F>> {
    let (mut field, mut base) = (held.0.iter(), held.1.iter());
    args.iter()
        .map(|a| match a {
            Arg::Vec(_) => CpuArg::Input(field.next().map_or(&[][..], |v| &v[..])),
            Arg::BaseVec(_) => CpuArg::BaseInput(base.next().map_or(&[][..], |v| &v[..])),
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
