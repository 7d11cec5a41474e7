#!/usr/bin/env python3
"""Generates crates/field/src/mont/x86_64/asm.rs: Montgomery multiplication with MULX/ADCX/ADOX.

CIOS with two carry chains (ADCX uses CF, ADOX uses OF) and the "no-carry" shortcut, which
is valid when the top limb of the modulus is below 2^63 - 1 (true for BN254 and BLS12-381).
Run: python3 scripts/gen_mont_asm.py > crates/field/src/mont/x86_64/asm.rs
"""

def gen(n, b_in_regs):
    """With b_in_regs, b's limbs arrive in registers (b[0] in rdx): a dependent chain
    `x = x * y` then never round-trips x through memory. That needs n + 9 registers."""
    t = [f"{{t{i}}}" for i in range(n)]
    L = []
    for i in range(n):
        if not b_in_regs:
            L.append(f"mov rdx, qword ptr [{{b}} + {8 * i}]")
        elif i > 0:
            L.append(f"mov rdx, {{b{i}}}")
        L.append("xor {lo:e}, {lo:e}")
        if i == 0:
            # t = a * b[0]
            L.append(f"mulx {t[1]}, {t[0]}, qword ptr [{{a}}]")
            for j in range(1, n):
                hi = t[j + 1] if j + 1 < n else "{acc}"
                L.append(f"mulx {hi}, {{lo}}, qword ptr [{{a}} + {8 * j}]")
                L.append(f"adox {t[j]}, {{lo}}")
            L.append("mov {lo}, 0")
            L.append("adox {acc}, {lo}")
        else:
            # t += a * b[i]; the top word goes to acc
            L.append("mulx {hi}, {lo}, qword ptr [{a}]")
            L.append(f"adox {t[0]}, {{lo}}")
            for j in range(1, n):
                L.append(f"adcx {t[j]}, {{hi}}")
                hi = "{hi}" if j + 1 < n else "{acc}"
                L.append(f"mulx {hi}, {{lo}}, qword ptr [{{a}} + {8 * j}]")
                L.append(f"adox {t[j]}, {{lo}}")
            L.append("mov {lo}, 0")
            L.append("adcx {acc}, {lo}")
            L.append("adox {acc}, {lo}")
        # reduction: m = t0 * inv; t = (t + m * p) / 2^64
        L.append(f"mov rdx, {t[0]}")
        L.append(f"imul rdx, qword ptr [{{p}} + {8 * n}]")
        L.append("xor {lo:e}, {lo:e}")
        L.append("mulx {hi}, {lo}, qword ptr [{p}]")
        L.append(f"adcx {{lo}}, {t[0]}")
        L.append(f"mov {t[0]}, {{hi}}")
        for j in range(1, n):
            L.append(f"adcx {t[j - 1]}, {t[j]}")
            L.append(f"mulx {t[j]}, {{lo}}, qword ptr [{{p}} + {8 * j}]")
            L.append(f"adox {t[j - 1]}, {{lo}}")
        L.append("mov {lo}, 0")
        L.append(f"adcx {t[n - 1]}, {{lo}}")
        L.append(f"adox {t[n - 1]}, {{acc}}")
    body = "\n".join(f'            "{l}",' for l in L)
    outs = "\n".join(f"            t{i} = out(reg) r[{i}]," for i in range(n))
    if b_in_regs:
        b_arg = f"b: [u64; {n}]"
        b_ins = "\n".join(f"            b{i} = in(reg) b[{i}]," for i in range(1, n))
        rdx = "inout(\"rdx\") b[0] => _,"
    else:
        b_arg = f"b: &[u64; {n}]"
        b_ins = "            b = in(reg) b.as_ptr(),"
        rdx = "out(\"rdx\") _,"
    return f'''
/// Montgomery product of `a` and `b` (limbs `< 2p` result, not yet reduced below `p`).
///
/// # Safety
/// The CPU must support BMI2 and ADX. `table` must point to `{n}` modulus limbs followed by
/// `-p^{{-1}} mod 2^64`, and the modulus' top limb must be below `2^63 - 1`.
#[inline(always)]
pub(crate) unsafe fn mul_{n}(a: &[u64; {n}], {b_arg}, table: *const u64) -> [u64; {n}] {{
    let mut r = [0u64; {n}];
    // SAFETY: the caller guarantees BMI2/ADX and the table layout; the block reads `a`,
    // `b` and the table and writes only `r` and the registers it declares.
    unsafe {{
        core::arch::asm!(
{body}
            a = in(reg) a.as_ptr(),
{b_ins}
            p = in(reg) table,
{outs}
            lo = out(reg) _,
            hi = out(reg) _,
            acc = out(reg) _,
            {rdx}
            options(pure, readonly, nostack),
        );
    }}
    r
}}
'''


def gen_wide(n):
    """`a·b` as 2n words into `out`: row by row with two carry chains (ADOX for the low
    halves, ADCX for the high halves); the lowest word of the window is final after each
    row and goes to memory, and its register becomes the next row's top word."""
    w = [f"{{w{i}}}" for i in range(n + 1)]
    L = []
    for i in range(n):
        L.append(f"mov rdx, qword ptr [{{b}} + {8 * i}]")
        if i == 0:
            L.append("xor {lo:e}, {lo:e}")
            L.append(f"mulx {w[1]}, {w[0]}, qword ptr [{{a}}]")
            for j in range(1, n):
                L.append(f"mulx {w[j + 1]}, {{lo}}, qword ptr [{{a}} + {8 * j}]")
                L.append(f"adox {w[j]}, {{lo}}")
            L.append("mov {lo}, 0")
            L.append(f"adox {w[n]}, {{lo}}")
        else:
            # the window is words i..i+n-1 in w[0..n-1]; w[n] is the new top word
            L.append(f"xor {w[n]}, {w[n]}")
            for j in range(n):
                L.append(f"mulx {{hi}}, {{lo}}, qword ptr [{{a}} + {8 * j}]")
                L.append(f"adox {w[j]}, {{lo}}")
                L.append(f"adcx {w[j + 1]}, {{hi}}")
            L.append("mov {lo}, 0")
            L.append(f"adox {w[n]}, {{lo}}")
        if i < n - 1:
            L.append(f"mov qword ptr [{{out}} + {8 * i}], {w[0]}")
            w = w[1:] + w[:1]
    for j in range(n + 1):
        L.append(f"mov qword ptr [{{out}} + {8 * (n - 1 + j)}], {w[j]}")
    body = "\n".join(f'            "{l}",' for l in L)
    regs = "\n".join(f"            w{i} = out(reg) _," for i in range(n + 1))
    return f"""
/// The product `a·b` as {2 * n} limbs, not reduced.
///
/// # Safety
/// The CPU must support BMI2 and ADX.
#[inline(always)]
pub(crate) unsafe fn mul_wide_{n}(a: &[u64; {n}], b: &[u64; {n}], out: &mut [u64; {2 * n}]) {{
    // SAFETY: the caller guarantees BMI2/ADX; the block reads `a` and `b`, writes only
    // `out` and the registers it declares.
    unsafe {{
        core::arch::asm!(
{body}
            a = in(reg) a.as_ptr(),
            b = in(reg) b.as_ptr(),
            out = in(reg) out.as_mut_ptr(),
{regs}
            lo = out(reg) _,
            hi = out(reg) _,
            out("rdx") _,
            options(nostack),
        );
    }}
}}
"""


def redc_lines(t, n):
    """The reduction steps on the window `t` (n registers): `(t + q·p)/R`, at most `p`."""
    L = []
    for i in range(n):
        L.append(f"mov rdx, {t[0]}")
        L.append(f"imul rdx, qword ptr [{{p}} + {8 * n}]")
        L.append("xor {lo:e}, {lo:e}")
        L.append("mulx {hi}, {lo}, qword ptr [{p}]")
        L.append(f"adcx {{lo}}, {t[0]}")
        L.append(f"mov {t[0]}, {{hi}}")
        for j in range(1, n):
            L.append(f"adcx {t[j - 1]}, {t[j]}")
            L.append(f"mulx {t[j]}, {{lo}}, qword ptr [{{p}} + {8 * j}]")
            L.append(f"adox {t[j - 1]}, {{lo}}")
        L.append("mov {lo}, 0")
        L.append(f"adcx {t[n - 1]}, {{lo}}")
        L.append(f"adox {t[n - 1]}, {{lo}}")
    return L


def gen_sqr(n):
    """Montgomery square: the cross products `a_i·a_j` (i < j) once, doubled on the CF
    chain while the squares `a_i²` join on the OF chain, then the low half reduced (as in
    [`gen_redc`]) plus the high half: 30 multiplications against the product's 36. Four
    limbs only: it takes all 13 allocatable registers (8 words, 2 temporaries, rdx, `a`
    and the table)."""
    assert n == 4
    w = [f"{{w{i}}}" for i in range(2 * n)]
    L = [
        "mov rdx, qword ptr [{a}]",
        f"mulx {w[2]}, {w[1]}, qword ptr [{{a}} + 8]",
        f"mulx {w[3]}, {{lo}}, qword ptr [{{a}} + 16]",
        f"add {w[2]}, {{lo}}",
        f"mulx {w[4]}, {{lo}}, qword ptr [{{a}} + 24]",
        f"adc {w[3]}, {{lo}}",
        f"adc {w[4]}, 0",
        "mov rdx, qword ptr [{a} + 8]",
        "mulx {hi}, {lo}, qword ptr [{a} + 16]",
        f"add {w[3]}, {{lo}}",
        f"adc {w[4]}, {{hi}}",
        f"mulx {w[5]}, {{lo}}, qword ptr [{{a}} + 24]",
        f"adc {w[5]}, 0",
        f"add {w[4]}, {{lo}}",
        f"adc {w[5]}, 0",
        "mov rdx, qword ptr [{a} + 16]",
        f"mulx {w[6]}, {{lo}}, qword ptr [{{a}} + 24]",
        f"add {w[5]}, {{lo}}",
        f"adc {w[6]}, 0",
        "xor {w7:e}, {w7:e}",
        "mov rdx, qword ptr [{a}]",
        f"mulx {{hi}}, {w[0]}, rdx",
        f"adcx {w[1]}, {w[1]}",
        f"adox {w[1]}, {{hi}}",
    ]
    for i in range(1, n):
        L += [
            f"mov rdx, qword ptr [{{a}} + {8 * i}]",
            "mulx {hi}, {lo}, rdx",
            f"adcx {w[2 * i]}, {w[2 * i]}",
            f"adox {w[2 * i]}, {{lo}}",
            f"adcx {w[2 * i + 1]}, {w[2 * i + 1]}",
            f"adox {w[2 * i + 1]}, {{hi}}",
        ]
    L += redc_lines(w[:n], n)
    L.append(f"add {w[0]}, {w[n]}")
    for j in range(1, n):
        L.append(f"adc {w[j]}, {w[n + j]}")
    body = "\n".join(f'            "{l}",' for l in L)
    outs = "\n".join(f"            w{i} = out(reg) r[{i}]," for i in range(n))
    tmps = "\n".join(f"            w{i} = out(reg) _," for i in range(n, 2 * n))
    return f"""
/// Montgomery square of `a`, below `a²/R + p` (not yet reduced below `p`).
///
/// # Safety
/// The CPU must support BMI2 and ADX. `table` as for [`mul_{n}`]; `a²/R + p < R`.
#[inline(always)]
pub(crate) unsafe fn sqr_{n}(a: &[u64; {n}], table: *const u64) -> [u64; {n}] {{
    let mut r = [0u64; {n}];
    // SAFETY: the caller guarantees BMI2/ADX and the table layout; the block reads `a`
    // and the table and writes only `r` and the registers it declares.
    unsafe {{
        core::arch::asm!(
{body}
            a = in(reg) a.as_ptr(),
            p = in(reg) table,
{outs}
{tmps}
            lo = out(reg) _,
            hi = out(reg) _,
            out("rdx") _,
            options(pure, readonly, nostack),
        );
    }}
    r
}}
"""


def gen_sqr_wide(n):
    """`a²` as 2n words into `out`: the cross products `a_i·a_j` (i < j) once, row by row
    (row 0 on one carry chain, the others on two), each finished word stored and its
    register reused for a later row's top word; then doubled on the CF chain while the
    squares join on the OF chain. For six limbs, where the fused form of [`gen_sqr`]
    would need more registers than there are: the caller reduces the low half."""
    assert n >= 4
    regs = [f"c{i}" for i in range(1, n + 1)]
    free = list(regs)
    pos = {}
    L = ["// Cross products a_i·a_j (i < j) into limbs 1..{}; `c1`..`c{}` rotate (limbs".format(2 * n - 2, n),
         "// {}..{} reuse the registers of limbs 1..{} once those are stored).".format(n + 1, 2 * n - 2, n - 2)]
    R = lambda k: "{" + pos[k] + "}"
    # Row 0: a0·a1..a_{n-1} into limbs 1..n on the CF chain.
    for k in range(1, n + 1):
        pos[k] = free.pop(0)
    L.append("mov rdx, qword ptr [{a}]")
    L.append(f"mulx {R(2)}, {R(1)}, qword ptr [{{a}} + 8]")
    for j in range(2, n):
        L.append(f"mulx {R(j + 1)}, {{lo}}, qword ptr [{{a}} + {8 * j}]")
        L.append(f"{'add' if j == 2 else 'adc'} {R(j)}, {{lo}}")
    L.append(f"adc {R(n)}, 0")
    stored = []
    def store(k):
        L.append(f"mov qword ptr [{{out}} + {8 * k}], {R(k)}")
        free.append(pos.pop(k))
        stored.append(k)
    store(1)
    store(2)
    for i in range(1, n - 1):
        top = i + n
        pos[top] = free.pop(0)
        if n - 1 - i == 1:
            L.append(f"// a{i}·a{n - 1} into limbs {2 * i + 1}, {top} (limb {top} in {pos[top]}).")
            L.append(f"mov rdx, qword ptr [{{a}} + {8 * i}]")
            L.append(f"mulx {R(top)}, {{lo}}, qword ptr [{{a}} + {8 * (n - 1)}]")
            L.append(f"add {R(2 * i + 1)}, {{lo}}")
            L.append(f"adc {R(top)}, 0")
            break
        what = f"a{i}·a{i + 1}..a{n - 1}" if n - 1 - i > 2 else f"a{i}·a{i + 1}, a{i}·a{n - 1}"
        L.append(f"// {what} into limbs {2 * i + 1}..{top} (limb {top} in {pos[top]}).")
        L.append(f"mov rdx, qword ptr [{{a}} + {8 * i}]")
        L.append("xor {lo:e}, {lo:e}")
        for j in range(i + 1, n):
            if j < n - 1:
                L.append(f"mulx {{hi}}, {{lo}}, qword ptr [{{a}} + {8 * j}]")
                L.append(f"adox {R(i + j)}, {{lo}}")
                L.append(f"adcx {R(i + j + 1)}, {{hi}}")
            else:
                L.append(f"mulx {R(top)}, {{lo}}, qword ptr [{{a}} + {8 * j}]")
                L.append(f"adox {R(i + j)}, {{lo}}")
        L.append("mov {lo}, 0")
        L.append(f"adcx {R(top)}, {{lo}}")
        L.append(f"adox {R(top)}, {{lo}}")
        store(2 * i + 1)
        store(2 * i + 2)
    # Doubled plus the squares; the top word starts at zero in a free register.
    L.append("// Doubled (CF chain) plus the squares a_i² at limbs 2i, 2i + 1 (OF chain).")
    pos[2 * n - 1] = free.pop()
    tmp = free[0]
    L.append(f"xor {R(2 * n - 1)[:-1]}:e}}, {R(2 * n - 1)[:-1]}:e}}")
    for i in range(n):
        L.append(f"mov rdx, qword ptr [{{a}} + {8 * i}]" if i else "mov rdx, qword ptr [{a}]")
        L.append("mulx {hi}, {lo}, rdx")
        for k, half in ((2 * i, "{lo}"), (2 * i + 1, "{hi}")):
            if k == 0:
                L.append("mov qword ptr [{out}], {lo}")
                continue
            if k in pos:
                L.append(f"adcx {R(k)}, {R(k)}")
                L.append(f"adox {R(k)}, {half}")
                L.append(f"mov qword ptr [{{out}} + {8 * k}], {R(k)}")
            else:
                L.append(f"mov {{{tmp}}}, qword ptr [{{out}} + {8 * k}]")
                L.append(f"adcx {{{tmp}}}, {{{tmp}}}")
                L.append(f"adox {{{tmp}}}, {half}")
                L.append(f"mov qword ptr [{{out}} + {8 * k}], {{{tmp}}}")
    body = "\n".join(f"            {l}" if l.startswith("//") else f'            "{l}",' for l in L)
    outs = "\n".join(f"            {r} = out(reg) _," for r in regs)
    cross = n * (n - 1) // 2
    return f"""
/// The square `a²` as {2 * n} limbs, not reduced: the {cross} cross products once (row by row,
/// each finished limb stored), then doubled with the {"six" if n == 6 else n} squares added — {cross + n}
/// multiplications where [`mul_wide_{n}`] takes {n * n}.
///
/// # Safety
/// The CPU must support BMI2 and ADX.
#[inline(always)]
pub(crate) unsafe fn sqr_wide_{n}(a: &[u64; {n}], out: &mut [u64; {2 * n}]) {{
    // SAFETY: the caller guarantees BMI2/ADX; the block reads `a`, writes only `out` and
    // the registers it declares.
    unsafe {{
        core::arch::asm!(
{body}
            a = in(reg) a.as_ptr(),
            out = in(reg) out.as_mut_ptr(),
{outs}
            lo = out(reg) _,
            hi = out(reg) _,
            out("rdx") _,
            options(nostack),
        );
    }}
}}
"""


def gen_redc(n):
    """Montgomery reduction of the low half: `(L + q·p)/R` for `L = t mod R`, `q` chosen
    word by word (the CIOS reduction steps with nothing above the window, so the no-carry
    bound holds). The caller adds the high half `t div R`."""
    t = [f"{{t{i}}}" for i in range(n)]
    L = redc_lines(t, n)
    body = "\n".join(f'            "{l}",' for l in L)
    regs = "\n".join(f"            t{i} = inout(reg) low[{i}] => r[{i}]," for i in range(n))
    return f"""
/// `(L + q·p)/R` with `q = −L·p⁻¹ mod R`, for the low half `L` of a double-width value:
/// at most `p`, and congruent to `L·R⁻¹`.
///
/// # Safety
/// The CPU must support BMI2 and ADX. `table` as for [`mul_{n}`].
#[inline(always)]
pub(crate) unsafe fn redc_low_{n}(low: [u64; {n}], table: *const u64) -> [u64; {n}] {{
    let mut r = [0u64; {n}];
    // SAFETY: the caller guarantees BMI2/ADX and the table layout; the block reads the
    // table and writes only the registers it declares.
    unsafe {{
        core::arch::asm!(
{body}
            p = in(reg) table,
{regs}
            lo = out(reg) _,
            hi = out(reg) _,
            out("rdx") _,
            options(pure, readonly, nostack),
        );
    }}
    r
}}
"""

print("// @generated by scripts/gen_mont_asm.py; edit the generator, not this file.")
print("//! MULX/ADCX/ADOX Montgomery multiplication for 4- and 6-limb moduli (x86-64), the")
print("//! squaring for 4 limbs, the double-width product and reduction the `Fq2` product uses,")
print("//! and the double-width square the 6-limb squaring reduces.")
print(gen(4, True), end="")
print(gen_sqr(4), end="")
print(gen(6, False), end="")
for n in (4, 6):
    print(gen_wide(n), end="")
    if n == 6:
        print(gen_sqr_wide(n), end="")
    print(gen_redc(n), end="")
