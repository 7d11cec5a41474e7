//! Kernel programs assembled from the dialect and the templates in `kernels/`, with every
//! constant (moduli, Montgomery constants) written from the host's own field types, so a
//! device field cannot disagree with the CPU's.

use std::collections::HashSet;

use fastzk_curve::{Affine, Jacobian, Xyzz};
use fastzk_field::{bls12_381, bn254, Field, Goldilocks, GoldilocksExt2, MontConfig, NttField};
use fastzk_msm::MsmCurve;

const DIALECT: &str = include_str!("../kernels/dialect.h");
const FIELD: &str = include_str!("../kernels/field.h");
const FIELD_MONT: &str = include_str!("../kernels/field_mont.h");
const FIELD_QUAD: &str = include_str!("../kernels/field_quad.h");
const FIELD_CUBIC: &str = include_str!("../kernels/field_cubic.h");
const FIELD_CHECK: &str = include_str!("../kernels/field_check.h");
const CURVE: &str = include_str!("../kernels/curve.h");
const MSM: &str = include_str!("../kernels/msm.h");
const MSM_CURVE: &str = include_str!("../kernels/msm_curve.h");
const NTT: &str = include_str!("../kernels/ntt.h");
const SPMV: &str = include_str!("../kernels/spmv.h");

/// A field the kernels know: its C type, and its elements as the 64-bit words that type
/// holds (the host's Montgomery limbs; Goldilocks canonical).
pub trait DeviceField: Field {
    /// The C type name in the kernels.
    const DEVICE_NAME: &'static str;
    /// 64-bit words per element.
    const WORDS: usize;
    /// Appends the type's definition (and what it is built on) to `src`.
    fn define(src: &mut Source);
    fn push_words(&self, out: &mut Vec<u64>);
    /// From exactly [`Self::WORDS`] words a kernel wrote.
    fn from_words(w: &[u64]) -> Self;
}

/// A group the MSM kernels know (`a = 0` short Weierstrass over a [`DeviceField`]).
pub trait DeviceCurve: MsmCurve<Base: DeviceField> {
    /// The C name prefix of its types and kernels.
    const DEVICE_NAME: &'static str;
}

/// Host points as the kernels' affine structs; the point at infinity has none (callers
/// skip it).
pub fn affine_words<C: DeviceCurve>(p: &Affine<C>, out: &mut Vec<u64>) {
    p.x.push_words(out);
    p.y.push_words(out);
}

/// A kernel's XYZZ point (4 coordinates) on the host.
pub fn xyzz_from_words<C: DeviceCurve>(w: &[u64]) -> Xyzz<C> {
    let k = C::Base::WORDS;
    let c = |i: usize| C::Base::from_words(&w[i * k..(i + 1) * k]);
    Xyzz::new_unchecked(c(0), c(1), c(2), c(3))
}

/// A kernel's Jacobian point (3 coordinates) on the host.
pub fn jacobian_from_words<C: DeviceCurve>(w: &[u64]) -> Jacobian<C> {
    let k = C::Base::WORDS;
    let c = |i: usize| C::Base::from_words(&w[i * k..(i + 1) * k]);
    Jacobian::new_unchecked(c(0), c(1), c(2))
}

/// Elements as words, for upload.
pub fn to_words<F: DeviceField>(v: &[F]) -> Vec<u64> {
    let mut out = Vec::with_capacity(v.len() * F::WORDS);
    for x in v {
        x.push_words(&mut out);
    }
    out
}

/// Words a kernel wrote, as elements.
pub fn from_words<F: DeviceField>(w: &[u64]) -> Vec<F> {
    w.chunks_exact(F::WORDS).map(F::from_words).collect()
}

/// A program's source under construction: the dialect, then each definition once.
pub struct Source {
    text: String,
    defined: HashSet<String>,
}

impl Default for Source {
    fn default() -> Self {
        Self::new()
    }
}

impl Source {
    pub fn new() -> Self {
        let mut text = String::with_capacity(64 << 10);
        text.push_str(&crate::count::defines());
        text.push_str(DIALECT);
        text.push_str(FIELD);
        Self {
            text,
            defined: HashSet::new(),
        }
    }

    /// Every kernel the runtime launches, for every type it has them for: MSM for the four
    /// groups, NTT and SpMV for the three scalar fields (what CI compiles for CUDA and the
    /// static model reads).
    pub fn all_kernels() -> Self {
        let mut s = Self::new();
        for add in KERNEL_FAMILIES {
            add(&mut s);
        }
        s
    }

    /// The kernels of [`all_kernels`](Self::all_kernels) as independent sources, one per
    /// family (BN254's, BLS12-381's, Goldilocks'), to compile side by side.
    pub fn kernel_families() -> Vec<Self> {
        KERNEL_FAMILIES
            .iter()
            .map(|add| {
                let mut s = Self::new();
                add(&mut s);
                s
            })
            .collect()
    }

    /// As `new`, with the portable carry chains on CUDA too (OpenCL always has them), to
    /// compare them with the PTX ones on a device and in the static model.
    pub fn with_portable_carries() -> Self {
        let mut s = Self::new();
        s.text.insert_str(0, "#define FZ_PORTABLE_CARRIES 1\n");
        s
    }

    /// Device code of the caller's appended after what is defined so far (probe kernels of
    /// the static model, say), written on the same dialect.
    pub fn append(&mut self, code: &str) -> &mut Self {
        self.text.push_str(code);
        self
    }

    /// The assembled source.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Runs `f` unless `name` was already defined.
    fn once(&mut self, name: &str, f: impl FnOnce(&mut Self)) -> &mut Self {
        if self.defined.insert(name.to_string()) {
            f(self);
        }
        self
    }

    /// `template` with its parameters defined before and undefined after.
    fn instantiate(&mut self, params: &[(&str, &str)], template: &str) {
        for (k, v) in params {
            self.text.push_str(&format!("#define {k} {v}\n"));
        }
        self.text.push_str(template);
        for (k, _) in params {
            self.text.push_str(&format!("#undef {k}\n"));
        }
    }

    pub fn field<F: DeviceField>(&mut self) -> &mut Self {
        self.once(F::DEVICE_NAME, |s| F::define(s))
    }

    /// The field and its check kernel `{F}_check_arith` (tests).
    pub fn field_checks<F: DeviceField>(&mut self) -> &mut Self {
        self.field::<F>();
        self.once(&format!("{}_check", F::DEVICE_NAME), |s| {
            s.instantiate(&[("FZ_F", F::DEVICE_NAME)], FIELD_CHECK)
        })
    }

    /// The group's types and formulas.
    pub fn curve<C: DeviceCurve>(&mut self) -> &mut Self {
        self.field::<C::Base>();
        self.once(C::DEVICE_NAME, |s| {
            s.instantiate(
                &[("FZ_G", C::DEVICE_NAME), ("FZ_E", C::Base::DEVICE_NAME)],
                CURVE,
            )
        })
    }

    /// The MSM kernels for the group (and their shared part), and `{G}_check_formulas`.
    pub fn msm<C: DeviceCurve>(&mut self) -> &mut Self {
        self.curve::<C>();
        self.msm_shared();
        self.once(&format!("{}_msm", C::DEVICE_NAME), |s| {
            s.instantiate(
                &[("FZ_G", C::DEVICE_NAME), ("FZ_E", C::Base::DEVICE_NAME)],
                MSM_CURVE,
            )
        })
    }

    /// The MSM's kernels that no group has (digits, scatter, prefix sums, chunk table).
    pub fn msm_shared(&mut self) -> &mut Self {
        self.once("fz_msm", |s| s.text.push_str(MSM));
        self
    }

    /// The SpMV and pointwise kernels for the field.
    pub fn spmv<F: DeviceField>(&mut self) -> &mut Self {
        self.field::<F>();
        self.once(&format!("{}_spmv", F::DEVICE_NAME), |s| {
            s.instantiate(&[("FZ_F", F::DEVICE_NAME)], SPMV)
        })
    }

    /// The NTT kernels for the field.
    pub fn ntt<F: DeviceField + NttField>(&mut self) -> &mut Self {
        self.field::<F>();
        self.once(&format!("{}_ntt", F::DEVICE_NAME), |s| {
            let tile = ntt_tile::<F>().to_string();
            s.instantiate(&[("FZ_F", F::DEVICE_NAME), ("FZ_TILE", &tile)], NTT)
        })
    }
}

/// What each family of the runtime's kernels adds to a source.
const KERNEL_FAMILIES: [fn(&mut Source); 3] = [
    |s| {
        s.msm::<fastzk_curve::bn254::G1Config>()
            .msm::<fastzk_curve::bn254::G2Config>()
            .ntt::<bn254::Fr>()
            .spmv::<bn254::Fr>();
    },
    |s| {
        s.msm::<fastzk_curve::bls12_381::G1Config>()
            .msm::<fastzk_curve::bls12_381::G2Config>()
            .ntt::<bls12_381::Fr>()
            .spmv::<bls12_381::Fr>();
    },
    |s| {
        s.ntt::<Goldilocks>().spmv::<Goldilocks>();
    },
];

/// Local memory an NTT tile may take per work-group: 16 KiB leaves room for several
/// groups per SM (and fits every OpenCL device's minimum of 32 KiB).
const NTT_TILE_BYTES: usize = 16 << 10;

/// Elements of `F` in an NTT tile: a power of two, so a pass does log2 of it levels.
pub fn ntt_tile<F: DeviceField>() -> usize {
    let n = NTT_TILE_BYTES / (8 * F::WORDS);
    1 << n.ilog2()
}

fn c_words(w: &[u64]) -> String {
    w.iter()
        .map(|x| format!("0x{x:016x}UL"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A Montgomery field's constants and the `field_mont.h` template.
fn define_mont<P: MontConfig<N>, const N: usize>(s: &mut Source, name: &str) {
    s.text.push_str(&format!(
        "CONST_ARRAY u64 {name}_P[{N}] = {{{}}};\nCONST_ARRAY u64 {name}_R[{N}] = {{{}}};\n#define {name}_INV 0x{:016x}UL\n",
        c_words(&P::MODULUS),
        c_words(&P::R),
        P::INV
    ));
    s.instantiate(&[("FZ_F", name), ("FZ_N", &N.to_string())], FIELD_MONT);
}

/// `u² = β` over `base`: β = −1, or a small positive integer (a chain of additions).
fn define_quad(s: &mut Source, name: &str, base: &str, beta: Option<u32>) {
    let body = match beta {
        None => format!("return {base}_sub(a, b);"),
        Some(k) => format!(
            "{base} s = {base}_zero(); for (int i = 0; i < {k}; i++) s = {base}_add(s, b); return {base}_add(a, s);"
        ),
    };
    s.text.push_str(&format!(
        "DEVICE {base} {name}_beta_mul_add({base} a, {base} b) {{ {body} }}\n"
    ));
    s.instantiate(&[("FZ_E", name), ("FZ_B", base)], FIELD_QUAD);
}

macro_rules! mont_device_field {
    ($t:ty, $cfg:ty, $n:literal, $name:literal) => {
        impl DeviceField for $t {
            const DEVICE_NAME: &'static str = $name;
            const WORDS: usize = $n;
            fn define(src: &mut Source) {
                define_mont::<$cfg, $n>(src, $name);
            }
            fn push_words(&self, out: &mut Vec<u64>) {
                out.extend_from_slice(&self.montgomery_limbs());
            }
            fn from_words(w: &[u64]) -> Self {
                let mut l = [0u64; $n];
                l.copy_from_slice(w);
                Self::from_montgomery_limbs_unchecked(l)
            }
        }
    };
}

mont_device_field!(bn254::Fr, bn254::FrConfig, 4, "bn254_fr");
mont_device_field!(bn254::Fq, bn254::FqConfig, 4, "bn254_fq");
mont_device_field!(bls12_381::Fr, bls12_381::FrConfig, 4, "bls12_381_fr");
mont_device_field!(bls12_381::Fq, bls12_381::FqConfig, 6, "bls12_381_fq");

macro_rules! quad_device_field {
    ($t:ty, $base:ty, $name:literal, $beta:expr) => {
        impl DeviceField for $t {
            const DEVICE_NAME: &'static str = $name;
            const WORDS: usize = 2 * <$base as DeviceField>::WORDS;
            fn define(src: &mut Source) {
                src.field::<$base>();
                define_quad(src, $name, <$base as DeviceField>::DEVICE_NAME, $beta);
            }
            fn push_words(&self, out: &mut Vec<u64>) {
                self.c0.push_words(out);
                self.c1.push_words(out);
            }
            fn from_words(w: &[u64]) -> Self {
                let k = <$base as DeviceField>::WORDS;
                Self::new(<$base>::from_words(&w[..k]), <$base>::from_words(&w[k..]))
            }
        }
    };
}

quad_device_field!(bn254::Fq2, bn254::Fq, "bn254_fq2", None);
quad_device_field!(bls12_381::Fq2, bls12_381::Fq, "bls12_381_fq2", None);
quad_device_field!(GoldilocksExt2, Goldilocks, "gl2", Some(7));

impl DeviceField for Goldilocks {
    const DEVICE_NAME: &'static str = "gl";
    const WORDS: usize = 1;
    fn define(_: &mut Source) {} // in field.h
    fn push_words(&self, out: &mut Vec<u64>) {
        out.push(self.value());
    }
    fn from_words(w: &[u64]) -> Self {
        Goldilocks::from_u64_reduced(w[0])
    }
}

impl DeviceField for fastzk_field::GoldilocksExt3 {
    const DEVICE_NAME: &'static str = "gl3";
    const WORDS: usize = 3;
    fn define(src: &mut Source) {
        src.text.push_str(FIELD_CUBIC);
    }
    fn push_words(&self, out: &mut Vec<u64>) {
        out.extend(self.c.iter().map(|c| c.value()));
    }
    fn from_words(w: &[u64]) -> Self {
        let c = |i: usize| Goldilocks::from_u64_reduced(w[i]);
        Self::new(c(0), c(1), c(2))
    }
}

impl DeviceCurve for fastzk_curve::bn254::G1Config {
    const DEVICE_NAME: &'static str = "bn254_g1";
}
impl DeviceCurve for fastzk_curve::bn254::G2Config {
    const DEVICE_NAME: &'static str = "bn254_g2";
}
impl DeviceCurve for fastzk_curve::bls12_381::G1Config {
    const DEVICE_NAME: &'static str = "bls12_381_g1";
}
impl DeviceCurve for fastzk_curve::bls12_381::G2Config {
    const DEVICE_NAME: &'static str = "bls12_381_g2";
}
