//! Plonk keys in snarkjs' shape, and proofs.

use std::ops::Range;
use std::sync::Arc;

use fastzk_formats::error::{Ctx, ErrorKind, FormatError};

use crate::source::ByteSource;
use crate::{Fr, PairingCurve, G1, G2};

/// What `verification_key.json` holds (and the zkey's header section).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyingKey<E: PairingCurve> {
    pub n_public: usize,
    /// `log₂` of the domain size `n`.
    pub power: u32,
    /// The coset shifts of the second and third wire columns.
    pub k1: Fr<E>,
    pub k2: Fr<E>,
    /// Commitments to the selectors, in snarkjs' order `[Qm, Ql, Qr, Qo, Qc]`.
    pub q: [G1<E>; 5],
    /// Commitments to the permutation polynomials `[S1, S2, S3]`.
    pub s: [G1<E>; 3],
    /// `[τ]₂`.
    pub x_2: G2<E>,
}

impl<E: PairingCurve> VerifyingKey<E> {
    pub fn domain_size(&self) -> usize {
        1 << self.power
    }

    /// snarkjs' primitive `n`-th root of unity (`w` in the JSON).
    pub fn omega(&self) -> Fr<E> {
        crate::root_of_unity::<E>(self.power)
    }
}

/// One of snarkjs' "additions": an internal wire `factor_a·w[a] + factor_b·w[b]` that
/// splits a long linear combination into gates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Addition<F> {
    pub a: u32,
    pub b: u32,
    pub factor_a: F,
    pub factor_b: F,
}

/// The polynomials whose `4n` evaluations the key holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Extended {
    /// Selector `i` of `[Qm, Ql, Qr, Qo, Qc]`.
    Q(usize),
    /// Permutation polynomial `i` of `[S1, S2, S3]`.
    Sigma(usize),
}

impl Extended {
    pub(crate) fn describe(self) -> String {
        match self {
            Extended::Q(i) => format!("section {} (Q{})", 7 + i, ["m", "l", "r", "o", "c"][i]),
            Extended::Sigma(i) => format!("section 12 (sigma {})", i + 1),
        }
    }
}

/// Where the `4n` evaluations live: they are the bulk of a key (eight `4n` vectors), so
/// a key read from a file leaves them there and the prover reads them a block at a
/// time; a key built in memory holds them. (The key's Lagrange polynomials, one per
/// public input, are not kept at all: they depend on the domain only, the prover does
/// not need them, and the writer recomputes them.)
#[derive(Clone)]
pub enum ExtendedStore<F> {
    Memory {
        q: [Vec<F>; 5],
        sigma: [Vec<F>; 3],
    },
    Source {
        source: Arc<dyn ByteSource>,
        file: String,
        /// Byte offset of each polynomial's first evaluation.
        q: [u64; 5],
        sigma: [u64; 3],
    },
}

impl<F> core::fmt::Debug for ExtendedStore<F> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            ExtendedStore::Memory { .. } => f.write_str("ExtendedStore::Memory"),
            ExtendedStore::Source { file, .. } => write!(f, "ExtendedStore::Source({file})"),
        }
    }
}

impl<F: fastzk_field::PrimeField + fastzk_curve::serialize::Coordinate> ExtendedStore<F> {
    /// Evaluations `range` (indices into the `4n` domain) of `which` into `out`.
    pub fn read(
        &self,
        which: Extended,
        range: Range<usize>,
        out: &mut [F],
    ) -> Result<(), FormatError> {
        debug_assert_eq!(range.len(), out.len());
        self.read_every(which, range.start, 1, &mut [out])
    }

    /// Every fourth evaluation from `4·first` on (`out.len()` of them): the values on
    /// `H`, since `ω₄ₙ⁴ = ω`.
    pub fn read_on_h(
        &self,
        which: Extended,
        first: usize,
        out: &mut [F],
    ) -> Result<(), FormatError> {
        self.read_every(which, 4 * first, 4, &mut [out])
    }

    /// The values on the consecutive cosets `ω₄ₙʲ·H`, `j = first, first + 1, …` (into
    /// `outs[j − first]`, equally long), from their point `point` on: the evaluations
    /// `4·(point + k) + j`, read as one span.
    pub fn read_on_cosets(
        &self,
        which: Extended,
        first: usize,
        point: usize,
        outs: &mut [&mut [F]],
    ) -> Result<(), FormatError> {
        assert!(
            first + outs.len() <= 4,
            "a coset of the 4n domain past the fourth"
        );
        self.read_every(which, 4 * point + first, 4, outs)
    }

    /// Evaluations `start + r + step·k` into `outs[r][k]` (`outs.len() ≤ step`, the rows
    /// equally long): the span is read once and only the values used are decoded.
    /// Inlined so that `read`'s loop is specialised to `step = 1` (measured: the
    /// quotient's reads are on its hot path).
    #[inline(always)]
    fn read_every(
        &self,
        which: Extended,
        start: usize,
        step: usize,
        outs: &mut [&mut [F]],
    ) -> Result<(), FormatError> {
        match self {
            ExtendedStore::Memory { q, sigma } => {
                let v = match which {
                    Extended::Q(i) => &q[i],
                    Extended::Sigma(i) => &sigma[i],
                };
                for (r, out) in outs.iter_mut().enumerate() {
                    for (k, o) in out.iter_mut().enumerate() {
                        *o = v[start + r + step * k];
                    }
                }
                Ok(())
            }
            ExtendedStore::Source {
                source,
                file,
                q,
                sigma,
            } => {
                let base = match which {
                    Extended::Q(i) => q[i],
                    Extended::Sigma(i) => sigma[i],
                };
                let what = which.describe();
                read_elements(source.as_ref(), file, &what, base, start, step, outs)
            }
        }
    }

    /// All `4n` evaluations of `which`.
    pub fn read_all(&self, which: Extended, n4: usize) -> Result<Vec<F>, FormatError> {
        let mut v = vec![F::ZERO; n4];
        self.read(which, 0..n4, &mut v)?;
        Ok(v)
    }
}

/// Elements `start + r + step·k` into `outs[r][k]` (`r < outs.len() ≤ step`, the rows
/// equally long) of the vector at byte `base` of a key file: the span is read once and
/// only the values used are decoded, each checked `< r`; errors name `what` and the
/// element's index. Inlined so that callers' loops are specialised to their step (the
/// quotient's reads are on its hot path).
#[inline(always)]
fn read_elements<F: fastzk_field::PrimeField + fastzk_curve::serialize::Coordinate>(
    source: &dyn ByteSource,
    file: &str,
    what: &str,
    base: u64,
    start: usize,
    step: usize,
    outs: &mut [&mut [F]],
) -> Result<(), FormatError> {
    let n8 = F::BYTES;
    let rows = outs.len();
    let len = outs.first().map_or(0, |o| o.len());
    debug_assert!(rows <= step && outs.iter().all(|o| o.len() == len));
    let span = if len == 0 { 0 } else { step * (len - 1) + rows };
    let mut buf = vec![0u8; span * n8];
    source
        .read_at(base + (start * n8) as u64, &mut buf)
        .map_err(|e| FormatError::new(file, ErrorKind::Io(e)))?;
    let ctx = Ctx::new(file).section(what);
    for (r, out) in outs.iter_mut().enumerate() {
        let values = buf[r * n8..].chunks_exact(n8).step_by(step);
        for (k, (o, b)) in out.iter_mut().zip(values).enumerate() {
            *o = fastzk_formats::codec::read_mont(b, &ctx)
                .map_err(|e| e.at((start + r + step * k) as u64))?;
        }
    }
    Ok(())
}

/// What a snarkjs Plonk `.zkey` holds.
#[derive(Clone, Debug)]
pub struct ProvingKey<E: PairingCurve> {
    pub vk: VerifyingKey<E>,
    /// Wires: the circuit's signals followed by the additions' outputs.
    pub n_vars: usize,
    /// Gates actually used (the rest of the domain is padding).
    pub n_constraints: usize,
    pub additions: Vec<Addition<Fr<E>>>,
    /// The wire of each gate's `a`, `b`, `c` (`n_constraints` entries each).
    pub maps: [Vec<u32>; 3],
    /// Coefficients (`n` each) of `[Qm, Ql, Qr, Qo, Qc]` (empty when they stay in the
    /// file: [`Self::in_file`]).
    pub q: [Vec<Fr<E>>; 5],
    /// Coefficients (`n` each) of `[S1, S2, S3]` (likewise).
    pub sigma: [Vec<Fr<E>>; 3],
    pub extended: ExtendedStore<Fr<E>>,
    /// `[τ^i]₁` for `i < n + 6` (empty when they stay in the file: [`Self::in_file`]).
    pub ptau: Vec<G1<E>>,
    /// For a key read from a file: where its coefficients are there (`q` and `sigma` are
    /// then empty: the prover reads them a block at a time, when it uses them — reading
    /// `8n` field elements up front into fresh memory cost more than the whole linearisation),
    /// and, for a key opened for bounded memory ([`ProvingKey::open_lean_with`]), its
    /// powers of tau too.
    pub in_file: Option<InFile>,
}

/// Offsets of the parts of a key left in its file.
#[derive(Clone)]
pub struct InFile {
    pub(crate) source: Arc<dyn ByteSource>,
    pub(crate) file: String,
    /// First coefficient of each selector and permutation polynomial.
    pub(crate) q: [u64; 5],
    pub(crate) sigma: [u64; 3],
    /// First point of section 14, when the powers of tau stay in the file too.
    pub(crate) ptau: Option<u64>,
}

impl core::fmt::Debug for InFile {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "InFile({})", self.file)
    }
}

impl<E: PairingCurve> ProvingKey<E> {
    pub fn domain_size(&self) -> usize {
        self.vk.domain_size()
    }

    pub fn n_public(&self) -> usize {
        self.vk.n_public
    }

    /// Coefficients `start..start + out.len()` of a selector or permutation polynomial,
    /// from memory or from the file.
    pub fn read_coefficients(
        &self,
        which: Extended,
        start: usize,
        out: &mut [Fr<E>],
    ) -> Result<(), FormatError> {
        let Some(f) = &self.in_file else {
            let v = match which {
                Extended::Q(i) => &self.q[i],
                Extended::Sigma(i) => &self.sigma[i],
            };
            out.copy_from_slice(&v[start..start + out.len()]);
            return Ok(());
        };
        let base = match which {
            Extended::Q(i) => f.q[i],
            Extended::Sigma(i) => f.sigma[i],
        };
        let what = format!("{} coefficients", which.describe());
        read_elements(
            f.source.as_ref(),
            &f.file,
            &what,
            base,
            start,
            1,
            &mut [out],
        )
    }

    /// Powers of tau `start..start + count` (checked when the key was opened).
    pub fn read_ptau(&self, start: usize, count: usize) -> Result<Vec<G1<E>>, FormatError> {
        let Some((f, at)) = self.in_file.as_ref().and_then(|f| Some((f, f.ptau?))) else {
            return Ok(self.ptau[start..start + count].to_vec());
        };
        let len = fastzk_formats::codec::point_len::<E::G1>();
        let mut buf = vec![0u8; count * len];
        f.source
            .read_at(at + (start * len) as u64, &mut buf)
            .map_err(|e| FormatError::new(&f.file, ErrorKind::Io(e)))?;
        let ctx = Ctx::new(&f.file).section("section 14 (powers of tau)");
        fastzk_formats::codec::decode_points::<E::G1>(
            &buf,
            count as u64,
            fastzk_formats::codec::PointCheck::Prevalidated,
            &ctx,
        )
    }

    /// Whether the powers of tau stay in the key's file (a key opened for bounded memory):
    /// the prover then reads them a chunk at a time for each round.
    pub fn ptau_in_file(&self) -> bool {
        self.in_file.as_ref().is_some_and(|f| f.ptau.is_some())
    }

    /// All `n` coefficients of a selector or permutation polynomial.
    pub fn coefficients(&self, which: Extended) -> Result<Vec<Fr<E>>, FormatError> {
        let mut v = vec![<Fr<E> as fastzk_field::Field>::ZERO; self.domain_size()];
        self.read_coefficients(which, 0, &mut v)?;
        Ok(v)
    }

    /// Signals the witness file carries (the wires less the additions).
    pub fn n_signals(&self) -> usize {
        self.n_vars - self.additions.len()
    }

    /// Checks that the parts agree with each other (lengths and indices).
    pub fn check_shape(&self) -> Result<(), String> {
        let n = self.domain_size();
        if self.vk.power < 3 {
            return Err(format!(
                "domain 2^{} is below snarkjs' minimum 2^3",
                self.vk.power
            ));
        }
        if self.n_constraints > n {
            return Err(format!(
                "{} gates do not fit a domain of {n}",
                self.n_constraints
            ));
        }
        if self.n_public() > self.n_constraints {
            return Err(format!(
                "{} public inputs need as many gates, the key has {}",
                self.n_public(),
                self.n_constraints
            ));
        }
        if self.n_vars < self.additions.len() + self.n_public() + 1 {
            return Err(format!(
                "{} wires cannot hold {} additions and {} public inputs",
                self.n_vars,
                self.additions.len(),
                self.n_public()
            ));
        }
        for (name, m) in ["A", "B", "C"].iter().zip(&self.maps) {
            if m.len() != self.n_constraints {
                return Err(format!(
                    "{name} map has {} entries, expected {}",
                    m.len(),
                    self.n_constraints
                ));
            }
            if let Some((i, w)) = m
                .iter()
                .enumerate()
                .find(|(_, &w)| w as usize >= self.n_vars)
            {
                return Err(format!(
                    "{name} map entry {i} names wire {w}, past {}",
                    self.n_vars
                ));
            }
        }
        let n_signals = self.n_signals();
        for (i, ad) in self.additions.iter().enumerate() {
            // An addition reads signals or earlier additions only.
            let limit = n_signals + i;
            if ad.a as usize >= limit || ad.b as usize >= limit {
                return Err(format!(
                    "addition {i} reads wire {} or {}, not yet defined (limit {limit})",
                    ad.a, ad.b
                ));
            }
        }
        if let Some(f) = &self.in_file {
            // Sizes were checked against the file's sections when it was opened.
            if f.ptau.is_some() {
                return Ok(());
            }
            return self.check_ptau_len();
        }
        for (name, v) in ["Qm", "Ql", "Qr", "Qo", "Qc"].iter().zip(&self.q) {
            if v.len() != n {
                return Err(format!("{name} has {} coefficients, expected {n}", v.len()));
            }
        }
        for (i, v) in self.sigma.iter().enumerate() {
            if v.len() != n {
                return Err(format!(
                    "S{} has {} coefficients, expected {n}",
                    i + 1,
                    v.len()
                ));
            }
        }
        if let ExtendedStore::Memory { q, sigma } = &self.extended {
            if q.iter().chain(sigma).any(|v| v.len() != 4 * n) {
                return Err(format!(
                    "an extended evaluation vector does not have {} entries",
                    4 * n
                ));
            }
        }
        self.check_ptau_len()
    }

    fn check_ptau_len(&self) -> Result<(), String> {
        let n = self.domain_size();
        if self.ptau.len() != n + 6 {
            return Err(format!(
                "{} powers of tau, expected n + 6 = {}",
                self.ptau.len(),
                n + 6
            ));
        }
        Ok(())
    }
}

/// A Plonk proof as snarkjs writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Proof<E: PairingCurve> {
    pub a: G1<E>,
    pub b: G1<E>,
    pub c: G1<E>,
    pub z: G1<E>,
    pub t1: G1<E>,
    pub t2: G1<E>,
    pub t3: G1<E>,
    pub wxi: G1<E>,
    pub wxiw: G1<E>,
    pub eval_a: Fr<E>,
    pub eval_b: Fr<E>,
    pub eval_c: Fr<E>,
    pub eval_s1: Fr<E>,
    pub eval_s2: Fr<E>,
    pub eval_zw: Fr<E>,
}

impl<E: PairingCurve> Proof<E> {
    /// The nine commitments in snarkjs' JSON order, with their names.
    pub fn commitments(&self) -> [(&'static str, &G1<E>); 9] {
        [
            ("A", &self.a),
            ("B", &self.b),
            ("C", &self.c),
            ("Z", &self.z),
            ("T1", &self.t1),
            ("T2", &self.t2),
            ("T3", &self.t3),
            ("Wxi", &self.wxi),
            ("Wxiw", &self.wxiw),
        ]
    }

    /// The six evaluations in snarkjs' JSON order, with their names.
    pub fn evaluations(&self) -> [(&'static str, &Fr<E>); 6] {
        [
            ("eval_a", &self.eval_a),
            ("eval_b", &self.eval_b),
            ("eval_c", &self.eval_c),
            ("eval_s1", &self.eval_s1),
            ("eval_s2", &self.eval_s2),
            ("eval_zw", &self.eval_zw),
        ]
    }
}
