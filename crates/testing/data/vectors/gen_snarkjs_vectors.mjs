// Generates reference encodings of curve points with ffjavascript (the field/curve
// library behind snarkjs), for the encoding suite in crates/testing/src/serialize.rs.
//
//   cd /tmp && npm install ffjavascript@0.3
//   FFJAVASCRIPT=/tmp/node_modules/ffjavascript/main.js \
//     node crates/testing/data/vectors/gen_snarkjs_vectors.mjs > crates/testing/data/vectors/snarkjs.json
//
// For every group (bn128 / bls12381, G1 / G2) and scalar k it records k·G in the three
// encodings snarkjs uses:
//   lem          — G.toRprLEM of the affine point (.zkey / .ptau sections)
//   uncompressed — G.toRprUncompressed (big-endian, ptau challenge files)
//   compressed   — G.toRprCompressed (big-endian + flag bits, ptau response files)
// and, for diagnostics, the affine coordinates as decimal strings (G.toObject).

const ffjPath = process.env.FFJAVASCRIPT || "ffjavascript";
const ffj = await import(ffjPath);

const hex = (u8) => Buffer.from(u8).toString("hex");

function groupVectors(curve, G, n8) {
    const r = curve.r;
    const scalars = [
        0n, 1n, 2n, 3n, 4n, 5n, 6n, 7n, 8n, 9n, 10n, 11n, 12n, 13n, 1000n, 65537n,
        r - 1n,
        r - 2n,
        0x1234567890abcdef1234567890abcdef1234567890abcdefn,
        (r * 3n) / 7n,
        (r * 5n) / 11n,
        0xdeadbeefcafebabef00dfacefeedc0ffee1234567n,
    ];
    const out = [];
    for (const k of scalars) {
        const pJac = G.timesScalar(G.g, ffj.Scalar.e(k));
        const p = G.toAffine(pJac);

        const lem = new Uint8Array(n8 * 2);
        G.toRprLEM(lem, 0, p);
        const unc = new Uint8Array(n8 * 2);
        G.toRprUncompressed(unc, 0, p);
        const cmp = new Uint8Array(n8);
        G.toRprCompressed(cmp, 0, p);

        // Round-trip sanity inside ffjavascript itself.
        if (!G.eq(G.fromRprUncompressed(unc, 0), p)) throw new Error("uncompressed round trip");
        if (!G.eq(G.fromRprCompressed(cmp, 0), p)) throw new Error("compressed round trip");

        const obj = G.toObject(p);
        const str = (v) => (Array.isArray(v) ? v.map((e) => e.toString()) : v.toString());
        out.push({
            k: k.toString(),
            infinity: G.isZero(p),
            x: str(obj[0]),
            y: str(obj[1]),
            lem: hex(lem),
            uncompressed: hex(unc),
            compressed: hex(cmp),
        });
    }
    return out;
}

const result = { generator: "ffjavascript " + (process.env.FFJAVASCRIPT_VERSION || "0.3.x") };
for (const [name, build] of [["bn128", ffj.buildBn128], ["bls12381", ffj.buildBls12381]]) {
    const curve = await build(true);
    result[name] = {
        g1: groupVectors(curve, curve.G1, curve.F1.n8),
        g2: groupVectors(curve, curve.G2, curve.F2.n8),
    };
    if (curve.terminate) await curve.terminate();
}
process.stdout.write(JSON.stringify(result, null, 1) + "\n");
