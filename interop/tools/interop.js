#!/usr/bin/env node
// Small helpers for the interop scripts: reading circom binary headers,
// making deliberately broken proofs/inputs/witnesses, and building the
// SHA-256 benchmark input. Plain Node, no dependencies.
//
// Usage: node tools/interop.js <command> [args...]
//   ptau-power <a.r1cs> [b.r1cs ...]   smallest power of tau that fits all circuits
//   r1cs-header <c.r1cs>                print the r1cs header as JSON
//   wtns-offset <w.wtns> <index>        byte offset of witness value <index>
//   wtns-corrupt <in.wtns> <out.wtns> <index>
//                                       copy with witness[index] += 1 (mod prime)
//   proof-tamper <in.json> <out.json>   replace pi_a by pi_c (another valid G1 point)
//   public-tamper <in.json> <out.json>  add 1 to the first public signal
//   plonk-tamper <in.json> <out.json> <field>
//                                       a Plonk proof with one field changed: a
//                                       commitment replaced by another valid point
//                                       of the proof, an evaluation + 1 (mod r)
//   zkey-bad-g2 <in.zkey> <out.zkey> <index>
//                                       a BN254 Groth16 key with B2 point <index>
//                                       replaced by a twist point outside G2
//   sha256-input <out.json> [hex]       64-byte message as 512 circom input bits
//   sha256-check <public.json> <input.json>
//                                       public outputs == SHA-256 of the message?
'use strict';

const fs = require('fs');
const crypto = require('crypto');

function die(msg) {
  process.stderr.write(`interop.js: ${msg}\n`);
  process.exit(2);
}

// circom binary files (.r1cs, .wtns, .zkey) share one layout:
// 4-byte magic, u32 version, u32 section count, then sections of
// (u32 type, u64 size, size bytes of data), all little-endian.
function readSections(path, magic) {
  const buf = fs.readFileSync(path);
  if (buf.toString('latin1', 0, 4) !== magic) die(`${path}: not a ${magic} file`);
  const nSections = buf.readUInt32LE(8);
  const sections = new Map();
  let pos = 12;
  for (let i = 0; i < nSections; i++) {
    const type = buf.readUInt32LE(pos);
    const size = Number(buf.readBigUInt64LE(pos + 4));
    pos += 12;
    if (!sections.has(type)) sections.set(type, { offset: pos, size });
    pos += size;
  }
  return { buf, sections };
}

function readLE(buf, offset, n) {
  let v = 0n;
  for (let i = n - 1; i >= 0; i--) v = (v << 8n) | BigInt(buf[offset + i]);
  return v;
}

function writeLE(buf, offset, n, v) {
  for (let i = 0; i < n; i++) {
    buf[offset + i] = Number(v & 0xffn);
    v >>= 8n;
  }
}

function r1csHeader(path) {
  const { buf, sections } = readSections(path, 'r1cs');
  const h = sections.get(1);
  if (!h) die(`${path}: no header section`);
  let p = h.offset;
  const n8 = buf.readUInt32LE(p);
  p += 4;
  const prime = readLE(buf, p, n8);
  p += n8;
  const nWires = buf.readUInt32LE(p);
  const nPubOut = buf.readUInt32LE(p + 4);
  const nPubIn = buf.readUInt32LE(p + 8);
  const nPrvIn = buf.readUInt32LE(p + 12);
  const nLabels = Number(buf.readBigUInt64LE(p + 16));
  const nConstraints = buf.readUInt32LE(p + 24);
  return { n8, prime: prime.toString(), nWires, nPubOut, nPubIn, nPrvIn, nLabels, nConstraints };
}

// Section 1 of a .wtns holds (u32 n8, prime, u32 nWitness); section 2 holds
// nWitness values of n8 bytes each, little-endian, in normal (not Montgomery) form.
function wtnsLayout(path) {
  const { buf, sections } = readSections(path, 'wtns');
  const h = sections.get(1);
  const d = sections.get(2);
  if (!h || !d) die(`${path}: missing header or data section`);
  const n8 = buf.readUInt32LE(h.offset);
  const prime = readLE(buf, h.offset + 4, n8);
  const nWitness = buf.readUInt32LE(h.offset + 4 + n8);
  if (d.size !== n8 * nWitness) die(`${path}: data section size mismatch`);
  return { buf, n8, prime, nWitness, dataOffset: d.offset };
}

function wtnsOffset(path, index) {
  const w = wtnsLayout(path);
  if (!(index >= 0 && index < w.nWitness)) die(`index ${index} out of range (nWitness=${w.nWitness})`);
  return { ...w, offset: w.dataOffset + index * w.n8 };
}

function toBits(bytes) {
  const bits = [];
  for (const b of bytes) for (let j = 7; j >= 0; j--) bits.push((b >> j) & 1);
  return bits;
}

const commands = {
  'ptau-power'(...files) {
    if (files.length === 0) die('ptau-power needs at least one .r1cs');
    // snarkjs groth16 setup needs a domain of size >= constraints + public inputs
    // + outputs + 1 (it appends one row per public signal and the constant).
    let power = 1;
    for (const f of files) {
      const h = r1csHeader(f);
      const rows = h.nConstraints + h.nPubIn + h.nPubOut + 1;
      while (2 ** power < rows) power++;
    }
    console.log(power);
  },

  'r1cs-header'(file) {
    console.log(JSON.stringify(r1csHeader(file)));
  },

  'wtns-offset'(file, index) {
    console.log(wtnsOffset(file, Number(index)).offset);
  },

  'wtns-corrupt'(input, output, index) {
    const w = wtnsOffset(input, Number(index));
    const buf = Buffer.from(w.buf);
    const v = readLE(buf, w.offset, w.n8);
    writeLE(buf, w.offset, w.n8, (v + 1n) % w.prime);
    fs.writeFileSync(output, buf);
    console.log(`witness[${index}] at byte ${w.offset}: ${v} -> ${(v + 1n) % w.prime}`);
  },

  'proof-tamper'(input, output) {
    const proof = JSON.parse(fs.readFileSync(input, 'utf8'));
    if (JSON.stringify(proof.pi_a) === JSON.stringify(proof.pi_c)) die('pi_a == pi_c already');
    proof.pi_a = proof.pi_c;
    fs.writeFileSync(output, JSON.stringify(proof, null, 1));
  },

  'plonk-tamper'(input, output, field) {
    const proof = JSON.parse(fs.readFileSync(input, 'utf8'));
    if (!(field in proof)) die(`no field ${field} in ${input}`);
    if (field.startsWith('eval_')) {
      const r = proof.curve === 'bls12381'
        ? 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n
        : 21888242871839275222246405745257275088548364400416034343698204186575808495617n;
      proof[field] = ((BigInt(proof[field]) + 1n) % r).toString();
    } else {
      const other = field === 'A' ? 'B' : 'A';
      if (JSON.stringify(proof[field]) === JSON.stringify(proof[other])) die(`${field} == ${other} already`);
      proof[field] = proof[other];
    }
    fs.writeFileSync(output, JSON.stringify(proof, null, 1));
  },

  'public-tamper'(input, output) {
    const pub = JSON.parse(fs.readFileSync(input, 'utf8'));
    if (!Array.isArray(pub) || pub.length === 0) die('no public signals to tamper with');
    pub[0] = (BigInt(pub[0]) + 1n).toString();
    fs.writeFileSync(output, JSON.stringify(pub, null, 1));
  },

  'zkey-bad-g2'(input, output, index) {
    const { buf, sections } = readSections(input, 'zkey');
    const b2 = sections.get(7);
    if (!b2 || 128 * (Number(index) + 1) > b2.size) die(`${input}: no B2 point ${index}`);
    const at = b2.offset + 128 * Number(index);
    // x = 1, y = a square root of 1 + 3/(9 + u), as snarkjs stores coordinates
    // (Montgomery form, little-endian, c0 then c1): on the twist, but its order is
    // not r (the twist's cofactor 2q - r is not 1).
    const bad = Buffer.from(
      '9d0d8fc58d435dd33d0bc7f528eb780a2c4679786fa36e662fdf079ac1770a0e' +
      '0000000000000000000000000000000000000000000000000000000000000000' +
      '36ee36d23eb8b9e7c27fecf7e7636d8d9f4141d6add1be6a9001fd267b474015' +
      '617bf4465741b77c0941eaddb3a4117393ad101eb6bdec3ddb950d039f643c07', 'hex');
    const out = Buffer.from(buf);
    bad.copy(out, at);
    fs.writeFileSync(output, out);
  },

  'sha256-input'(output, hex) {
    // Default message: bytes 0x00..0x3f. Bits are MSB-first within each byte,
    // which is what circomlib's Sha256 template expects.
    const msg = hex ? Buffer.from(hex, 'hex') : Buffer.from([...Array(64).keys()]);
    if (msg.length !== 64) die('message must be 64 bytes');
    fs.writeFileSync(output, JSON.stringify({ in: toBits(msg) }) + '\n');
    console.log(crypto.createHash('sha256').update(msg).digest('hex'));
  },

  'sha256-check'(publicFile, inputFile) {
    const pub = JSON.parse(fs.readFileSync(publicFile, 'utf8'));
    const bits = JSON.parse(fs.readFileSync(inputFile, 'utf8')).in;
    const msg = Buffer.alloc(bits.length / 8);
    bits.forEach((b, i) => { if (Number(b)) msg[i >> 3] |= 0x80 >> (i & 7); });
    const want = toBits(crypto.createHash('sha256').update(msg).digest()).join('');
    const got = pub.slice(0, 256).join('');
    if (got !== want) die('circuit output differs from SHA-256 of the message');
    console.log('sha256 output matches');
  },
};

const [cmd, ...args] = process.argv.slice(2);
if (!commands[cmd]) die(`unknown command ${cmd || '(none)'}; see the header of this file`);
commands[cmd](...args);
