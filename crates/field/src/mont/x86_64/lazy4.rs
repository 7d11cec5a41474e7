//! Lazy-reduction helpers for 4 limbs as short carry chains (LLVM otherwise builds the
//! borrow chains from `setb`/`or` and the comparison from data-dependent branches, which
//! mispredict on random operands).

/// `x − m` if `x ≥ m`, else `x` (sub/sbb, then cmov).
#[inline(always)]
pub(crate) fn cond_sub(x: [u64; 4], m: &'static [u64; 4]) -> [u64; 4] {
    let [mut x0, mut x1, mut x2, mut x3] = x;
    // SAFETY: register arithmetic and four reads of `m`.
    unsafe {
        core::arch::asm!(
            "mov {y0}, {x0}",
            "mov {y1}, {x1}",
            "mov {y2}, {x2}",
            "mov {y3}, {x3}",
            "sub {y0}, qword ptr [{m}]",
            "sbb {y1}, qword ptr [{m} + 8]",
            "sbb {y2}, qword ptr [{m} + 16]",
            "sbb {y3}, qword ptr [{m} + 24]",
            "cmovnc {x0}, {y0}",
            "cmovnc {x1}, {y1}",
            "cmovnc {x2}, {y2}",
            "cmovnc {x3}, {y3}",
            x0 = inout(reg) x0,
            x1 = inout(reg) x1,
            x2 = inout(reg) x2,
            x3 = inout(reg) x3,
            y0 = out(reg) _,
            y1 = out(reg) _,
            y2 = out(reg) _,
            y3 = out(reg) _,
            m = in(reg) m.as_ptr(),
            options(pure, readonly, nostack),
        );
    }
    [x0, x1, x2, x3]
}

/// `x + y` (wrapping).
#[inline(always)]
pub(crate) fn add(x: [u64; 4], y: [u64; 4]) -> [u64; 4] {
    let [mut x0, mut x1, mut x2, mut x3] = x;
    // SAFETY: register arithmetic only.
    unsafe {
        core::arch::asm!(
            "add {x0}, {y0}",
            "adc {x1}, {y1}",
            "adc {x2}, {y2}",
            "adc {x3}, {y3}",
            x0 = inout(reg) x0,
            x1 = inout(reg) x1,
            x2 = inout(reg) x2,
            x3 = inout(reg) x3,
            y0 = in(reg) y[0],
            y1 = in(reg) y[1],
            y2 = in(reg) y[2],
            y3 = in(reg) y[3],
            options(pure, nomem, nostack),
        );
    }
    [x0, x1, x2, x3]
}

/// `x − y + m` (wrapping; exact when the true value lies in `[0, 2^256)`).
#[inline(always)]
pub(crate) fn sub_add(x: [u64; 4], y: [u64; 4], m: &'static [u64; 4]) -> [u64; 4] {
    let [mut x0, mut x1, mut x2, mut x3] = x;
    // SAFETY: register arithmetic and four reads of `m`.
    unsafe {
        core::arch::asm!(
            "sub {x0}, {y0}",
            "sbb {x1}, {y1}",
            "sbb {x2}, {y2}",
            "sbb {x3}, {y3}",
            "add {x0}, qword ptr [{m}]",
            "adc {x1}, qword ptr [{m} + 8]",
            "adc {x2}, qword ptr [{m} + 16]",
            "adc {x3}, qword ptr [{m} + 24]",
            x0 = inout(reg) x0,
            x1 = inout(reg) x1,
            x2 = inout(reg) x2,
            x3 = inout(reg) x3,
            y0 = in(reg) y[0],
            y1 = in(reg) y[1],
            y2 = in(reg) y[2],
            y3 = in(reg) y[3],
            m = in(reg) m.as_ptr(),
            options(pure, readonly, nostack),
        );
    }
    [x0, x1, x2, x3]
}
