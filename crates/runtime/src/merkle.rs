//! Merkle trees over the columns of a row-major matrix (Orion's commitments): a library
//! call, since hashing bytes is outside the kernel subset. On the CPU it is
//! `fastzk_pcs`'s column hashing and tree; on a device one thread hashes each column
//! where the matrix already is (the encoded rows never travel to be hashed), then one
//! launch per layer of the tree; only the digests come back.

use std::sync::Arc;

use fastzk_field::{Goldilocks, PrimeField};
use fastzk_gpu::runtime::{Arg, Buffer, Program};
use fastzk_gpu::source::{DeviceField, Source};
use fastzk_multilinear::HashKind;
use fastzk_pcs::merkle::{Digest, LEAF, NODE};
use fastzk_pcs::{column_leaves, MerkleTree, Salt};

use crate::{FieldVec, KernelField, RuntimeError, Task};

const MERKLE_C: &str = include_str!("../kernels/merkle.h");

fn call(what: String) -> RuntimeError {
    RuntimeError::Call {
        kernel: "merkle_columns",
        what,
    }
}

impl Task<'_> {
    /// The Merkle tree whose leaf `j` hashes `salts[j]` (when there are salts) and
    /// column `j` of `matrix` (rows of `width` values, row-major) as canonical
    /// little-endian bytes — [`fastzk_pcs::column_leaves`] — with `kind`. `width` is a
    /// power of two; there are no salts or one per column. On a device the matrix is
    /// hashed where it is; the call synchronises this task.
    pub fn merkle_columns<F: KernelField<Base = F> + PrimeField>(
        &mut self,
        kind: HashKind,
        matrix: &FieldVec<F>,
        width: usize,
        salts: &[Salt],
    ) -> Result<MerkleTree, RuntimeError> {
        if !width.is_power_of_two()
            || !matrix.len().is_multiple_of(width)
            || !(salts.is_empty() || salts.len() == width)
        {
            return Err(call(format!(
                "a tree over {width} columns (a power of two) of {} values with {} salts",
                matrix.len(),
                salts.len()
            )));
        }
        let height = matrix.len() / width;
        let ctx = self.context();
        let Some(dev) = ctx.device_handle() else {
            let leaves = column_leaves(kind, &matrix.host()?, width, salts);
            return MerkleTree::new(kind, leaves).map_err(|e| call(e.to_string()));
        };
        let (Ok(w32), Ok(h32)) = (u32::try_from(width), u32::try_from(height)) else {
            return Err(call(format!("a {height}×{width} matrix on a device")));
        };
        let engine = ctx.cached(vec![], || MerkleEngine::<F>::new(dev))?;
        let (mb, ready) = matrix.device_copy(|w| self.upload(dev, w))?;
        self.sync()?;
        ready.wait()?;
        let salt_words: Vec<u64> = salts
            .iter()
            .flat_map(|s| {
                s.chunks(8)
                    .map(|b| u64::from_le_bytes(b.try_into().expect("8")))
            })
            .collect();
        let sb = dev.upload(&if salt_words.is_empty() {
            vec![0]
        } else {
            salt_words
        })?;
        ctx.counters().uploaded(salts.len() * 16);
        let launch = |name, args: &[Arg<'_>], n: usize| -> Result<Buffer, RuntimeError> {
            let out = dev.alloc(32 * n)?;
            let mut all = args.to_vec();
            all.push(Arg::Buf(&out));
            dev.launch(&engine.program, name, n, &all)?;
            Ok(out)
        };
        let id = hash_id(kind);
        let mut layer = launch(
            "fzm_leaves",
            &[
                Arg::Buf(&mb),
                Arg::U32(w32),
                Arg::U32(h32),
                Arg::Buf(&sb),
                Arg::U32(u32::from(!salts.is_empty())),
                Arg::U32(id),
                Arg::U32(LEAF.into()),
            ],
            width,
        )?;
        let mut bufs = Vec::new();
        let mut n = width;
        while n > 1 {
            n /= 2;
            let next = launch(
                "fzm_nodes",
                &[
                    Arg::Buf(&layer),
                    Arg::U32(n as u32),
                    Arg::U32(id),
                    Arg::U32(NODE.into()),
                ],
                n,
            )?;
            bufs.push(std::mem::replace(&mut layer, next));
        }
        bufs.push(layer);
        dev.finish()?;
        let mut layers = Vec::with_capacity(bufs.len());
        for (i, b) in bufs.iter().enumerate() {
            let words = crate::vec::download(dev, b, 4 * (width >> i))?;
            ctx.counters().control(words.len() * 8);
            layers.push(digests(&words));
        }
        MerkleTree::from_layers(kind, layers).map_err(|e| call(e.to_string()))
    }
}

fn hash_id(kind: HashKind) -> u32 {
    match kind {
        HashKind::Sha3_256 => 0,
        HashKind::Blake3 => 1,
    }
}

/// Digests from the kernels' words (each four little-endian words).
fn digests(words: &[u64]) -> Vec<Digest> {
    words
        .chunks_exact(4)
        .map(|w| {
            let mut d = [0u8; 32];
            for (o, x) in d.chunks_exact_mut(8).zip(w) {
                o.copy_from_slice(&x.to_le_bytes());
            }
            d
        })
        .collect()
}

/// The device program of [`Task::merkle_columns`] over `F` (to compile it elsewhere:
/// NVRTC in CI). Goldilocks is held canonical; a Montgomery field's element is brought
/// out of Montgomery form (a product with the integer 1) before its limbs are hashed.
pub fn merkle_source<F: KernelField<Base = F> + PrimeField>() -> String {
    let mut src = Source::new();
    src.field::<F>();
    let name = F::DEVICE_NAME;
    let canonical = if name == <Goldilocks as DeviceField>::DEVICE_NAME {
        format!("DEVICE void fzm_canonical({name} a, u64 *w) {{ w[0] = a.v; }}\n")
    } else {
        format!(
            "DEVICE void fzm_canonical({name} a, u64 *w) {{\n  {name} one = {name}_zero();\n  \
             one.l[0] = 1;\n  {name} c = {name}_mul(a, one);\n  for (int i = 0; i < FZM_WORDS; \
             i++) w[i] = c.l[i];\n}}\n"
        )
    };
    src.append(&format!(
        "#define FZ_F {name}\n#define FZM_WORDS {}\n{canonical}{MERKLE_C}#undef FZM_WORDS\n#undef FZ_F\n",
        F::WORDS
    ));
    src.text().to_string()
}

/// The program of [`MERKLE_C`] over `F`, one per context.
struct MerkleEngine<F> {
    program: Arc<Program>,
    _field: std::marker::PhantomData<F>,
}

impl<F: KernelField<Base = F> + PrimeField> MerkleEngine<F> {
    fn new(device: &Arc<fastzk_gpu::Device>) -> Result<Self, RuntimeError> {
        // The kernels hash an element's words as its bytes.
        if F::BYTES != 8 * F::WORDS {
            return Err(call(format!(
                "{} bytes per element held in {} words",
                F::BYTES,
                F::WORDS
            )));
        }
        Ok(Self {
            program: device.program(&merkle_source::<F>())?,
            _field: std::marker::PhantomData,
        })
    }
}
