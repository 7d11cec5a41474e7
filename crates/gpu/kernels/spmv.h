/* Template: sparse matrix × vector over the field FZ_F, balanced as cuZK's CSR scheme:
 * rows are cut into chunks of at most a fixed number of nonzeros, one thread per chunk
 * (a long row is shared by many threads), then one thread per row adds its chunks.
 * Also the pointwise steps of Groth16's quotient. */
#define FN(x) FZ_NAME(FZ_F, x)
KERNEL FN(spmv_chunks)(GLOBAL const u32 *cols, GLOBAL const FZ_F *vals, GLOBAL const FZ_F *z,
                        GLOBAL const u32 *chunk_start, u32 chunks,
                        GLOBAL FZ_F *partial FZ_COUNTERS) {
  FZ_COUNT_IN(FZ_K_SPMV_CHUNKS);
  u64 t = GLOBAL_ID();
  if (t >= chunks) return;
  FZ_F acc = FN(zero)();
  for (u32 k = chunk_start[t]; k < chunk_start[t + 1]; k++) {
    acc = FN(add)(acc, FN(mul)(vals[k], z[cols[k]]));
    FZ_COUNT_OP(FZ_OP_MUL, 1);
    FZ_READ(4 + 2 * sizeof(FZ_F));
  }
  partial[t] = acc;
  FZ_READ(8);
  FZ_WRITE(sizeof(FZ_F));
}
KERNEL FN(spmv_rows)(GLOBAL const FZ_F *partial, GLOBAL const u32 *row_chunks, u32 rows,
                      GLOBAL FZ_F *y FZ_COUNTERS) {
  FZ_COUNT_IN(FZ_K_SPMV_ROWS);
  u64 r = GLOBAL_ID();
  if (r >= rows) return;
  FZ_F acc = FN(zero)();
  for (u32 k = row_chunks[r]; k < row_chunks[r + 1]; k++) {
    acc = FN(add)(acc, partial[k]);
    FZ_READ(sizeof(FZ_F));
  }
  y[r] = acc;
  FZ_READ(8);
  FZ_WRITE(sizeof(FZ_F));
}
/* out[i] = a[i]·b[i] − c[i] (c may be all zeros: c = a∘b on H is this with c = 0). */
KERNEL FN(mul_sub)(GLOBAL const FZ_F *a, GLOBAL const FZ_F *b, GLOBAL const FZ_F *c, u64 n,
                    GLOBAL FZ_F *out FZ_COUNTERS) {
  FZ_COUNT_IN(FZ_K_MUL_SUB);
  u64 i = GLOBAL_ID();
  if (i >= n) return;
  out[i] = FN(sub)(FN(mul)(a[i], b[i]), c[i]);
  FZ_COUNT_OP(FZ_OP_MUL, 1);
  FZ_READ(3 * sizeof(FZ_F));
  FZ_WRITE(sizeof(FZ_F));
}
#undef FN
