//! Lazy-reduction helpers for 4 limbs as short carry chains (LLVM otherwise builds the
//! borrow chains from `setb`/`or` and the comparison from data-dependent branches, which
//! mispredict on random operands).

/// Runs the instructions (one carry chain per string) on the limbs of `x` (operands `x0..x3`, read and written) and
/// `y0..y3` (the limbs of an input array, or scratch registers), plus any further operands,
/// and returns the new limbs of `x`.
macro_rules! limbs4_asm {
    (@run $x:expr, [$($insn:literal),*], $($operands:tt)*) => {{
        let [mut x0, mut x1, mut x2, mut x3] = $x;
        // SAFETY: register arithmetic; the only memory operand is the modulus `m`, a
        // `&'static [u64; 4]` of which the instructions read the four limbs.
        unsafe {
            core::arch::asm!(
                $($insn,)*
                x0 = inout(reg) x0,
                x1 = inout(reg) x1,
                x2 = inout(reg) x2,
                x3 = inout(reg) x3,
                $($operands)*
            );
        }
        [x0, x1, x2, x3]
    }};
    ($x:expr, y = scratch, [$($insn:literal),* $(,)?], $($operands:tt)*) => {
        limbs4_asm!(@run $x, [$($insn),*],
            y0 = out(reg) _, y1 = out(reg) _, y2 = out(reg) _, y3 = out(reg) _,
            $($operands)*)
    };
    ($x:expr, y = $y:expr, [$($insn:literal),* $(,)?], $($operands:tt)*) => {{
        let y: [u64; 4] = $y;
        limbs4_asm!(@run $x, [$($insn),*],
            y0 = in(reg) y[0], y1 = in(reg) y[1], y2 = in(reg) y[2], y3 = in(reg) y[3],
            $($operands)*)
    }};
}

/// `x − m` if `x ≥ m`, else `x` (sub/sbb, then cmov).
#[inline(always)]
pub(crate) fn cond_sub(x: [u64; 4], m: &'static [u64; 4]) -> [u64; 4] {
    limbs4_asm!(
        x,
        y = scratch,
        [
            "mov {y0}, {x0}; mov {y1}, {x1}; mov {y2}, {x2}; mov {y3}, {x3}",
            "sub {y0}, [{m}]; sbb {y1}, [{m} + 8]; sbb {y2}, [{m} + 16]; sbb {y3}, [{m} + 24]",
            "cmovnc {x0}, {y0}; cmovnc {x1}, {y1}; cmovnc {x2}, {y2}; cmovnc {x3}, {y3}",
        ],
        m = in(reg) m.as_ptr(),
        options(pure, readonly, nostack),
    )
}

/// `x + y` (wrapping).
#[inline(always)]
pub(crate) fn add(x: [u64; 4], y: [u64; 4]) -> [u64; 4] {
    limbs4_asm!(
        x,
        y = y,
        ["add {x0}, {y0}; adc {x1}, {y1}; adc {x2}, {y2}; adc {x3}, {y3}"],
        options(pure, nomem, nostack),
    )
}

/// `x − y + m` (wrapping; exact when the true value lies in `[0, 2^256)`).
#[inline(always)]
pub(crate) fn sub_add(x: [u64; 4], y: [u64; 4], m: &'static [u64; 4]) -> [u64; 4] {
    limbs4_asm!(
        x,
        y = y,
        [
            "sub {x0}, {y0}; sbb {x1}, {y1}; sbb {x2}, {y2}; sbb {x3}, {y3}",
            "add {x0}, [{m}]; adc {x1}, [{m} + 8]; adc {x2}, [{m} + 16]; adc {x3}, [{m} + 24]",
        ],
        m = in(reg) m.as_ptr(),
        options(pure, readonly, nostack),
    )
}
