/* Merkle trees over the columns of a row-major matrix: SHA3-256 (FIPS 202) and BLAKE3,
 * one hash per thread, fed a byte at a time (a leaf's input is a prefix byte, maybe a
 * salt, then elements: nothing is aligned to a block). Digests are four 64-bit words,
 * the digest's bytes little-endian. The host's hashes are the `sha3` and `blake3`
 * crates'; the tests compare the two on every input shape that changes the path taken
 * (block and chunk boundaries, several chunks merged, salts). Expects FZ_F, FZM_WORDS and
 * fzm_canonical (the element's canonical little-endian words) defined before it. */

#define FZH_ROTL64(x, n) (((x) << (n)) | ((x) >> (64 - (n))))
#define FZH_ROTR32(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

CONST_ARRAY u64 FZH_KECCAK_RC[24] = {
    0x0000000000000001UL, 0x0000000000008082UL, 0x800000000000808aUL, 0x8000000080008000UL,
    0x000000000000808bUL, 0x0000000080000001UL, 0x8000000080008081UL, 0x8000000000008009UL,
    0x000000000000008aUL, 0x0000000000000088UL, 0x0000000080008009UL, 0x000000008000000aUL,
    0x000000008000808bUL, 0x800000000000008bUL, 0x8000000000008089UL, 0x8000000000008003UL,
    0x8000000000008002UL, 0x8000000000000080UL, 0x000000000000800aUL, 0x800000008000000aUL,
    0x8000000080008081UL, 0x8000000000008080UL, 0x0000000080000001UL, 0x8000000080008008UL};
/* ρ's rotations and π's lanes, in the order π visits them from lane 1. */
CONST_ARRAY u32 FZH_KECCAK_ROT[24] = {1,  3,  6,  10, 15, 21, 28, 36, 45, 55, 2,  14,
                                      27, 41, 56, 8,  25, 43, 62, 18, 39, 61, 20, 44};
CONST_ARRAY u32 FZH_KECCAK_PI[24] = {10, 7,  11, 17, 18, 3, 5,  16, 8,  21, 24, 4,
                                     15, 23, 19, 13, 12, 2, 20, 14, 22, 9,  6,  1};

DEVICE void fzh_keccak_f(u64 *a) {
  for (int round = 0; round < 24; round++) {
    u64 c[5];
    for (int x = 0; x < 5; x++) c[x] = a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20];
    for (int x = 0; x < 5; x++) {
      u64 d = c[(x + 4) % 5] ^ FZH_ROTL64(c[(x + 1) % 5], 1);
      for (int y = 0; y < 25; y += 5) a[y + x] ^= d;
    }
    u64 cur = a[1];
    for (int t = 0; t < 24; t++) {
      u32 j = FZH_KECCAK_PI[t];
      u64 next = a[j];
      a[j] = FZH_ROTL64(cur, FZH_KECCAK_ROT[t]);
      cur = next;
    }
    for (int y = 0; y < 25; y += 5) {
      for (int x = 0; x < 5; x++) c[x] = a[y + x];
      for (int x = 0; x < 5; x++) a[y + x] = c[x] ^ (~c[(x + 1) % 5] & c[(x + 2) % 5]);
    }
    a[0] ^= FZH_KECCAK_RC[round];
  }
}

/* SHA3-256: a rate of 136 bytes, the domain byte 0x06. */
typedef struct {
  u64 a[25];
  u32 pos;
} fzh_sha3;

DEVICE void fzh_sha3_init(fzh_sha3 *h) {
  for (int i = 0; i < 25; i++) h->a[i] = 0;
  h->pos = 0;
}

DEVICE void fzh_sha3_byte(fzh_sha3 *h, u32 b) {
  h->a[h->pos / 8] ^= (u64)(b & 0xff) << (8 * (h->pos % 8));
  if (++h->pos == 136) {
    fzh_keccak_f(h->a);
    h->pos = 0;
  }
}

DEVICE void fzh_sha3_final(fzh_sha3 *h, u64 *out) {
  h->a[h->pos / 8] ^= (u64)0x06 << (8 * (h->pos % 8));
  h->a[135 / 8] ^= (u64)0x80 << (8 * (135 % 8));
  fzh_keccak_f(h->a);
  for (int i = 0; i < 4; i++) out[i] = h->a[i];
}

/* BLAKE3 (unkeyed, 32-byte output): chunks of 1024 bytes in blocks of 64, the chunks'
 * chaining values merged into a left-complete binary tree through a stack. */
CONST_ARRAY u32 FZH_B3_IV[8] = {0x6A09E667u, 0xBB67AE85u, 0x3C6EF372u, 0xA54FF53Au,
                                0x510E527Fu, 0x9B05688Cu, 0x1F83D9ABu, 0x5BE0CD19u};
CONST_ARRAY u32 FZH_B3_PERM[16] = {2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8};
#define FZH_B3_CHUNK_START 1u
#define FZH_B3_CHUNK_END 2u
#define FZH_B3_PARENT 4u
#define FZH_B3_ROOT 8u
/* 2^32 chunks (4 TiB) per hash: far more than a column holds. */
#define FZH_B3_STACK 32

#define FZH_B3_G(a, b, c, d, x, y)                                                          \
  s[a] = s[a] + s[b] + (x);                                                                 \
  s[d] = FZH_ROTR32(s[d] ^ s[a], 16);                                                       \
  s[c] = s[c] + s[d];                                                                       \
  s[b] = FZH_ROTR32(s[b] ^ s[c], 12);                                                       \
  s[a] = s[a] + s[b] + (y);                                                                 \
  s[d] = FZH_ROTR32(s[d] ^ s[a], 8);                                                        \
  s[c] = s[c] + s[d];                                                                       \
  s[b] = FZH_ROTR32(s[b] ^ s[c], 7)

/* The compression function's first eight output words: a chaining value, or a root's
 * 32 bytes (all a hash of ours reads). */
DEVICE void fzh_b3_compress(const u32 *cv, const u32 *block, u64 counter, u32 len, u32 flags,
                            u32 *out) {
  u32 s[16], m[16], t[16];
  for (int i = 0; i < 8; i++) s[i] = cv[i];
  for (int i = 0; i < 4; i++) s[8 + i] = FZH_B3_IV[i];
  s[12] = (u32)counter;
  s[13] = (u32)(counter >> 32);
  s[14] = len;
  s[15] = flags;
  for (int i = 0; i < 16; i++) m[i] = block[i];
  for (int r = 0; r < 7; r++) {
    FZH_B3_G(0, 4, 8, 12, m[0], m[1]);
    FZH_B3_G(1, 5, 9, 13, m[2], m[3]);
    FZH_B3_G(2, 6, 10, 14, m[4], m[5]);
    FZH_B3_G(3, 7, 11, 15, m[6], m[7]);
    FZH_B3_G(0, 5, 10, 15, m[8], m[9]);
    FZH_B3_G(1, 6, 11, 12, m[10], m[11]);
    FZH_B3_G(2, 7, 8, 13, m[12], m[13]);
    FZH_B3_G(3, 4, 9, 14, m[14], m[15]);
    for (int i = 0; i < 16; i++) t[i] = m[FZH_B3_PERM[i]];
    for (int i = 0; i < 16; i++) m[i] = t[i];
  }
  for (int i = 0; i < 8; i++) out[i] = s[i] ^ s[i + 8];
}

typedef struct {
  u32 cv[8];    /* the current chunk's chaining value so far */
  u32 block[16];
  u64 chunk;    /* the current chunk's index */
  u32 len;      /* bytes in `block` */
  u32 blocks;   /* blocks of the current chunk compressed */
  u32 depth;    /* chaining values on the stack */
  u32 stack[FZH_B3_STACK * 8];
} fzh_blake3;

DEVICE void fzh_blake3_init(fzh_blake3 *h) {
  for (int i = 0; i < 8; i++) h->cv[i] = FZH_B3_IV[i];
  for (int i = 0; i < 16; i++) h->block[i] = 0;
  h->chunk = 0;
  h->len = 0;
  h->blocks = 0;
  h->depth = 0;
}

DEVICE u32 fzh_b3_start(const fzh_blake3 *h) { return h->blocks == 0 ? FZH_B3_CHUNK_START : 0u; }

/* A full block is compressed only when another byte follows: the last block of the input
 * is the one the root or the chunk's end is flagged on. */
DEVICE void fzh_blake3_byte(fzh_blake3 *h, u32 b) {
  if (h->len == 64) {
    u32 cv[8];
    if (h->blocks == 15) {
      /* The chunk is complete: its chaining value goes on the stack, first merged with
       * every completed subtree its index closes (one per trailing one bit). */
      fzh_b3_compress(h->cv, h->block, h->chunk, 64, FZH_B3_CHUNK_END, cv);
      u64 total = h->chunk + 1;
      u32 iv[8]; /* private: OpenCL passes no constant-space pointer as a private one */
      for (int i = 0; i < 8; i++) iv[i] = FZH_B3_IV[i];
      while ((total & 1) == 0) {
        u32 pb[16];
        h->depth--;
        for (int i = 0; i < 8; i++) {
          pb[i] = h->stack[h->depth * 8 + i];
          pb[8 + i] = cv[i];
        }
        fzh_b3_compress(iv, pb, 0, 64, FZH_B3_PARENT, cv);
        total >>= 1;
      }
      for (int i = 0; i < 8; i++) h->stack[h->depth * 8 + i] = cv[i];
      h->depth++;
      h->chunk++;
      h->blocks = 0;
      for (int i = 0; i < 8; i++) h->cv[i] = FZH_B3_IV[i];
    } else {
      fzh_b3_compress(h->cv, h->block, h->chunk, 64, fzh_b3_start(h), cv);
      for (int i = 0; i < 8; i++) h->cv[i] = cv[i];
      h->blocks++;
    }
    for (int i = 0; i < 16; i++) h->block[i] = 0;
    h->len = 0;
  }
  h->block[h->len / 4] |= (b & 0xff) << (8 * (h->len % 4));
  h->len++;
}

DEVICE void fzh_blake3_final(fzh_blake3 *h, u64 *out) {
  /* The output node: the last chunk, then a parent over it and each stacked value. */
  u32 cv[8], block[16], len = h->len, flags = fzh_b3_start(h) | FZH_B3_CHUNK_END;
  u64 counter = h->chunk;
  for (int i = 0; i < 8; i++) cv[i] = h->cv[i];
  for (int i = 0; i < 16; i++) block[i] = h->block[i];
  for (u32 d = h->depth; d > 0; d--) {
    u32 child[8];
    fzh_b3_compress(cv, block, counter, len, flags, child);
    for (int i = 0; i < 8; i++) {
      block[i] = h->stack[(d - 1) * 8 + i];
      block[8 + i] = child[i];
      cv[i] = FZH_B3_IV[i];
    }
    counter = 0;
    len = 64;
    flags = FZH_B3_PARENT;
  }
  u32 root[8];
  fzh_b3_compress(cv, block, 0, len, flags | FZH_B3_ROOT, root);
  for (int i = 0; i < 4; i++) out[i] = (u64)root[2 * i] | ((u64)root[2 * i + 1] << 32);
}

/* Either hash, chosen per launch (kind 0: SHA3-256, 1: BLAKE3). */
#define FZH_SHA3 0u
typedef struct {
  u32 kind;
  fzh_sha3 sha3;
  fzh_blake3 blake3;
} fzh;

DEVICE void fzh_init(fzh *h, u32 kind) {
  h->kind = kind;
  if (kind == FZH_SHA3)
    fzh_sha3_init(&h->sha3);
  else
    fzh_blake3_init(&h->blake3);
}

DEVICE void fzh_byte(fzh *h, u32 b) {
  if (h->kind == FZH_SHA3)
    fzh_sha3_byte(&h->sha3, b);
  else
    fzh_blake3_byte(&h->blake3, b);
}

DEVICE void fzh_word(fzh *h, u64 w) {
  for (int i = 0; i < 8; i++) fzh_byte(h, (u32)(w >> (8 * i)));
}

DEVICE void fzh_final(fzh *h, u64 *out) {
  if (h->kind == FZH_SHA3)
    fzh_sha3_final(&h->sha3, out);
  else
    fzh_blake3_final(&h->blake3, out);
}

/* Leaf j: H(prefix ‖ salt_j ‖ column j's elements as canonical little-endian bytes). */
KERNEL fzm_leaves(GLOBAL const FZ_F *m, u32 width, u32 height, GLOBAL const u64 *salts,
                  u32 salted, u32 kind, u32 prefix, GLOBAL u64 *out FZ_COUNTERS) {
  u64 j = GLOBAL_ID();
  if (j >= width) return;
  fzh h;
  fzh_init(&h, kind);
  fzh_byte(&h, prefix);
  if (salted) {
    fzh_word(&h, salts[2 * j]);
    fzh_word(&h, salts[2 * j + 1]);
  }
  for (u64 i = 0; i < height; i++) {
    u64 w[FZM_WORDS];
    fzm_canonical(m[i * width + j], w);
    for (int k = 0; k < FZM_WORDS; k++) fzh_word(&h, w[k]);
  }
  u64 d[4];
  fzh_final(&h, d);
  for (int k = 0; k < 4; k++) out[4 * j + k] = d[k];
}

/* Parent i of a layer: H(prefix ‖ child 2i ‖ child 2i + 1). */
KERNEL fzm_nodes(GLOBAL const u64 *children, u32 parents, u32 kind, u32 prefix,
                 GLOBAL u64 *out FZ_COUNTERS) {
  u64 i = GLOBAL_ID();
  if (i >= parents) return;
  fzh h;
  fzh_init(&h, kind);
  fzh_byte(&h, prefix);
  for (int k = 0; k < 8; k++) fzh_word(&h, children[8 * i + k]);
  u64 d[4];
  fzh_final(&h, d);
  for (int k = 0; k < 4; k++) out[4 * i + k] = d[k];
}
