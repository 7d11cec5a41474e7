//! Radix-2 NTTs on a device, behind the same [`TwoAdicTransform`] interface as the CPU
//! engine, so the conformance suite checks them against the naive DFT. A transform is:
//! input to natural order, the coset's powers if it has one, a bit-reversal and `log n`
//! Cooley–Tukey levels (ω or ω⁻¹), as many per pass as a tile in local memory holds, the
//! inverse's `1/n` (with the coset's inverse powers), and output to bit-reversed order if
//! asked. Twiddles and scaling vectors are computed
//! on the host once per transform object and kept on the device.

use std::sync::Arc;

use fastzk_field::{Field, NttField};
use fastzk_poly::{check_len, Order, PolyError, Subgroup, Transform, TwoAdicTransform};

use crate::runtime::{Arg, Buffer, Device, Program};
use crate::source::{from_words, to_words, DeviceField, Source};
use crate::GpuError;

/// A size-`2^k` transform on one device.
pub struct DeviceNtt<F> {
    device: Arc<Device>,
    subgroup: Subgroup<F>,
    program: Arc<Program>,
    /// ω^j and ω^{−j}, j < n/2.
    twiddles: [Buffer; 2],
    /// g^i; g^{−i}/n; and 1/n alone.
    coset: Buffer,
    coset_inverse: Buffer,
    inv_n: Buffer,
    /// Levels per pass of `ntt_tile` (at most the tile's).
    levels_per_pass: u32,
}

fn powers<F: Field>(x: F, n: usize, scale: F) -> Vec<F> {
    let mut v = Vec::with_capacity(n);
    let mut p = scale;
    for _ in 0..n {
        v.push(p);
        p *= x;
    }
    v
}

/// The passes over 2^log_n: (first level, levels) each, the levels split evenly over the
/// fewest passes of at most `max_levels` (24 = 8 + 8 + 8, not 9 + 9 + 6).
pub fn passes(log_n: u32, max_levels: u32) -> Vec<(u32, u32)> {
    let count = log_n.div_ceil(max_levels).max(1);
    let mut out = Vec::new();
    let mut s = 0;
    for pass in 0..count {
        let levels = (log_n - s).div_ceil(count - pass);
        if levels == 0 {
            break;
        }
        out.push((s, levels));
        s += levels;
    }
    out
}

/// Tiles of 2^levels elements per work-group of `group_size` threads: small tiles packed so
/// that every thread has a butterfly, within a tile's worth (`tile` elements) of local memory.
pub fn tiles_per_group(group_size: usize, levels: u32, tile: usize) -> usize {
    ((2 * group_size) >> levels).clamp(1, tile >> levels)
}

fn device_err(e: GpuError) -> PolyError {
    PolyError::Device(e.to_string())
}

impl<F: DeviceField + NttField> DeviceNtt<F> {
    /// On `subgroup`, with its twiddles uploaded.
    pub fn new(device: Arc<Device>, subgroup: Subgroup<F>) -> Result<Self, GpuError> {
        let mut src = Source::new();
        src.ntt::<F>();
        let program = device.program(src.text())?;
        let n = subgroup.size();
        let w = subgroup.generator();
        let w_inv = w.inverse().expect("a root of unity is non-zero");
        let g = subgroup.coset_shift();
        let g_inv = g.inverse().expect("the coset shift is non-zero");
        let n_inv = F::from_u64(n as u64)
            .inverse()
            .expect("n is below the characteristic");
        let half = (n / 2).max(1);
        let up = |v: Vec<F>| device.upload(&to_words(&v));
        Ok(Self {
            twiddles: [
                up(powers(w, half, F::ONE))?,
                up(powers(w_inv, half, F::ONE))?,
            ],
            coset: up(powers(g, n, F::ONE))?,
            coset_inverse: up(powers(g_inv, n, n_inv))?,
            inv_n: up(vec![n_inv])?,
            levels_per_pass: crate::source::ntt_tile::<F>().ilog2(),
            device,
            subgroup,
            program,
        })
    }

    /// At most `levels` levels per pass through local memory (tests use few, so that
    /// small transforms take several passes).
    pub fn with_levels_per_pass(mut self, levels: u32) -> Self {
        self.levels_per_pass = levels.clamp(1, crate::source::ntt_tile::<F>().ilog2());
        self
    }

    /// Size `2^log_n` on the field's own root (as [`Subgroup::new`]).
    pub fn with_log_size(device: Arc<Device>, log_n: u32) -> Result<Self, GpuError> {
        let s = Subgroup::new(log_n).map_err(|e| GpuError::Unsupported(e.to_string()))?;
        Self::new(device, s)
    }

    fn kernel(&self, name: &str) -> String {
        format!("{}_{name}", F::DEVICE_NAME)
    }

    fn bit_reverse(&self, buf: &Buffer, rows: usize) -> Result<(), GpuError> {
        let k = self.subgroup.log_size();
        self.device.launch(
            &self.program,
            &self.kernel("ntt_bit_reverse"),
            rows << k,
            &[Arg::Buf(buf), Arg::U32(k), Arg::U32(rows as u32)],
        )
    }

    fn scale(&self, buf: &Buffer, rows: usize, by: &Buffer, period: usize) -> Result<(), GpuError> {
        self.device.launch(
            &self.program,
            &self.kernel("ntt_scale"),
            rows << self.subgroup.log_size(),
            &[
                Arg::Buf(buf),
                Arg::Buf(by),
                Arg::U64((rows << self.subgroup.log_size()) as u64),
                Arg::U64(period as u64),
            ],
        )
    }

    /// `kind` on each of the `rows` rows in `buf` (on the device).
    pub fn apply_on_device(
        &self,
        kind: Transform,
        buf: &Buffer,
        rows: usize,
        input: Order,
        output: Order,
    ) -> Result<(), GpuError> {
        let k = self.subgroup.log_size();
        let n = self.subgroup.size();
        if input == Order::BitReversed {
            self.bit_reverse(buf, rows)?;
        }
        if kind == Transform::CosetForward {
            self.scale(buf, rows, &self.coset, n)?;
        }
        self.bit_reverse(buf, rows)?;
        let tw = &self.twiddles[kind.is_inverse() as usize];
        let tile = crate::source::ntt_tile::<F>();
        for (s, levels) in passes(k, self.levels_per_pass) {
            let tiles = rows << (k - levels);
            let per_group = tiles_per_group(self.device.group_size(), levels, tile);
            self.device.launch_groups(
                &self.program,
                &self.kernel("ntt_tile"),
                tiles.div_ceil(per_group),
                &[
                    Arg::Buf(buf),
                    Arg::Buf(tw),
                    Arg::U32(k),
                    Arg::U32(s),
                    Arg::U32(levels),
                    Arg::U32(per_group as u32),
                    Arg::U64(tiles as u64),
                ],
            )?;
        }
        match kind {
            Transform::Inverse => self.scale(buf, rows, &self.inv_n, 0)?,
            Transform::CosetInverse => self.scale(buf, rows, &self.coset_inverse, n)?,
            _ => {}
        }
        if output == Order::BitReversed {
            self.bit_reverse(buf, rows)?;
        }
        Ok(())
    }

    fn host(
        &self,
        kind: Transform,
        a: &mut [F],
        input: Order,
        output: Order,
    ) -> Result<(), PolyError> {
        let n = self.subgroup.size();
        let rows = a.len() / n;
        let d = &self.device;
        let buf = d.upload(&to_words(a)).map_err(device_err)?;
        self.apply_on_device(kind, &buf, rows, input, output)
            .map_err(device_err)?;
        let w: Vec<u64> = d.read_vec(&buf, a.len() * F::WORDS).map_err(device_err)?;
        a.copy_from_slice(&from_words(&w));
        Ok(())
    }
}

impl<F: DeviceField + NttField> TwoAdicTransform<F> for DeviceNtt<F> {
    fn subgroup(&self) -> &Subgroup<F> {
        &self.subgroup
    }

    fn apply(
        &self,
        kind: Transform,
        a: &mut [F],
        input: Order,
        output: Order,
    ) -> Result<(), PolyError> {
        check_len(self.subgroup.size(), a.len())?;
        self.host(kind, a, input, output)
    }

    fn apply_batch(
        &self,
        kind: Transform,
        rows: &mut [F],
        input: Order,
        output: Order,
    ) -> Result<(), PolyError> {
        let n = self.subgroup.size();
        check_len(rows.len().next_multiple_of(n), rows.len())?;
        if u32::try_from(rows.len() / n).is_err() {
            return Err(PolyError::Device(format!(
                "{} rows in one batch",
                rows.len() / n
            )));
        }
        self.host(kind, rows, input, output)
    }
}
