/* The device dialect: one source compiles as CUDA C++ (NVRTC) and as OpenCL C (any OpenCL
 * device, PoCL included). Kernels use only these names for what the two languages spell
 * differently; everything else is plain C. */
#if defined(__CUDACC_RTC__) || defined(__CUDACC__)
#define FZ_CUDA 1
typedef unsigned long long u64;
typedef unsigned int u32;
#define KERNEL extern "C" __global__ void
#define GLOBAL
#define LOCAL_DECL __shared__
#define CONST_ARRAY __device__ const
#define DEVICE static __device__ __forceinline__
/* Group formulas are called, not inlined: inlining every field product of every formula
 * into every kernel makes NVRTC take minutes and gigabytes for megabytes of PTX. */
#define DEVICE_CALLED static __device__ __noinline__
#define GLOBAL_ID() ((u64)blockIdx.x * blockDim.x + threadIdx.x)
#define LOCAL_ID() ((u32)threadIdx.x)
#define GROUP_ID() ((u32)blockIdx.x)
#define LOCAL_SIZE() ((u32)blockDim.x)
#define BARRIER() __syncthreads()
#define MULHI64(a, b) __umul64hi((a), (b))
#define ATOMIC_INC_U32(p) atomicAdd((p), 1u)
#define ATOMIC_ADD_U32(p, v) atomicAdd((p), (v))
#else
#define FZ_OPENCL 1
typedef ulong u64;
typedef uint u32;
#define KERNEL __kernel void
#define GLOBAL __global
#define LOCAL_DECL __local
#define CONST_ARRAY __constant
#define DEVICE static inline
#define DEVICE_CALLED static
#define GLOBAL_ID() ((u64)get_global_id(0))
#define LOCAL_ID() ((u32)get_local_id(0))
#define GROUP_ID() ((u32)get_group_id(0))
#define LOCAL_SIZE() ((u32)get_local_size(0))
#define BARRIER() barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)
#define MULHI64(a, b) mul_hi((u64)(a), (u64)(b))
#define ATOMIC_INC_U32(p) atomic_inc(p)
#define ATOMIC_ADD_U32(p, v) atomic_add((p), (v))
#endif

/* Counting mode (FZ_COUNT, set by a counting device): every kernel takes a last argument,
 * a table of counters, and counts what it does — primitives it calls and bytes it moves
 * to and from device memory — under its kernel id (FZ_K_*, FZ_OP_* come from the host's
 * lists). Otherwise all of this compiles to nothing. */
#ifdef FZ_COUNT
#define FZ_COUNTERS , GLOBAL u32 *fz_counters
#define FZ_COUNT_IN(kernel) GLOBAL u32 *fz_count = fz_counters + (kernel) * FZ_OP_COUNT
#define FZ_COUNT_OP(op, n) ATOMIC_ADD_U32(&fz_count[op], (u32)(n))
#else
#define FZ_COUNTERS
#define FZ_COUNT_IN(kernel)
#define FZ_COUNT_OP(op, n)
#endif
#define FZ_READ(bytes) FZ_COUNT_OP(FZ_OP_READ, bytes)
#define FZ_WRITE(bytes) FZ_COUNT_OP(FZ_OP_WRITE, bytes)

/* 32-bit carry chains, the shape of PTX's carry-flag instructions: `_cc` sets the carry (or
 * borrow) flag, `c` reads it. On CUDA each is one PTX instruction (the flag lives in the
 * hardware and `cf` is unused); the portable form keeps the flag in `*cf` and is what OpenCL
 * runs, and what CUDA runs when FZ_PORTABLE_CARRIES is defined (to compare the two on a
 * device, and in the static model). A chain must not be interleaved with another. */
#if defined(FZ_CUDA) && !defined(FZ_PORTABLE_CARRIES)
#define FZ_PTX_CARRIES 1
#define FZ_PTX3(op, a, b, c)                                                                \
  u32 r;                                                                                    \
  asm volatile(op " %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));                  \
  return r
#define FZ_PTX2(op, a, b)                                                                   \
  u32 r;                                                                                    \
  asm volatile(op " %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));                               \
  return r
DEVICE u32 fz_mad_lo_cc(u32 a, u32 b, u32 c, u32 *cf) { FZ_PTX3("mad.lo.cc.u32", a, b, c); }
DEVICE u32 fz_madc_lo_cc(u32 a, u32 b, u32 c, u32 *cf) { FZ_PTX3("madc.lo.cc.u32", a, b, c); }
DEVICE u32 fz_mad_hi_cc(u32 a, u32 b, u32 c, u32 *cf) { FZ_PTX3("mad.hi.cc.u32", a, b, c); }
DEVICE u32 fz_madc_hi_cc(u32 a, u32 b, u32 c, u32 *cf) { FZ_PTX3("madc.hi.cc.u32", a, b, c); }
DEVICE u32 fz_madc_hi(u32 a, u32 b, u32 c, u32 *cf) { FZ_PTX3("madc.hi.u32", a, b, c); }
DEVICE u32 fz_add_cc(u32 a, u32 b, u32 *cf) { FZ_PTX2("add.cc.u32", a, b); }
DEVICE u32 fz_addc_cc(u32 a, u32 b, u32 *cf) { FZ_PTX2("addc.cc.u32", a, b); }
DEVICE u32 fz_addc(u32 a, u32 b, u32 *cf) { FZ_PTX2("addc.u32", a, b); }
DEVICE u32 fz_sub_cc(u32 a, u32 b, u32 *cf) { FZ_PTX2("sub.cc.u32", a, b); }
DEVICE u32 fz_subc_cc(u32 a, u32 b, u32 *cf) { FZ_PTX2("subc.cc.u32", a, b); }
DEVICE u32 fz_subc(u32 a, u32 b, u32 *cf) { FZ_PTX2("subc.u32", a, b); }
#undef FZ_PTX3
#undef FZ_PTX2
#else
#define FZ_MUL32_HI(a, b) ((u32)(((u64)(a) * (u64)(b)) >> 32))
DEVICE u32 fz_mad_lo_cc(u32 a, u32 b, u32 c, u32 *cf) {
  u64 s = (u64)(u32)(a * b) + c;
  *cf = (u32)(s >> 32);
  return (u32)s;
}
DEVICE u32 fz_madc_lo_cc(u32 a, u32 b, u32 c, u32 *cf) {
  u64 s = (u64)(u32)(a * b) + c + *cf;
  *cf = (u32)(s >> 32);
  return (u32)s;
}
DEVICE u32 fz_mad_hi_cc(u32 a, u32 b, u32 c, u32 *cf) {
  u64 s = (u64)FZ_MUL32_HI(a, b) + c;
  *cf = (u32)(s >> 32);
  return (u32)s;
}
DEVICE u32 fz_madc_hi_cc(u32 a, u32 b, u32 c, u32 *cf) {
  u64 s = (u64)FZ_MUL32_HI(a, b) + c + *cf;
  *cf = (u32)(s >> 32);
  return (u32)s;
}
DEVICE u32 fz_madc_hi(u32 a, u32 b, u32 c, u32 *cf) { return FZ_MUL32_HI(a, b) + c + *cf; }
DEVICE u32 fz_add_cc(u32 a, u32 b, u32 *cf) {
  u64 s = (u64)a + b;
  *cf = (u32)(s >> 32);
  return (u32)s;
}
DEVICE u32 fz_addc_cc(u32 a, u32 b, u32 *cf) {
  u64 s = (u64)a + b + *cf;
  *cf = (u32)(s >> 32);
  return (u32)s;
}
DEVICE u32 fz_addc(u32 a, u32 b, u32 *cf) { return a + b + *cf; }
/* Subtraction: the flag is the borrow. */
DEVICE u32 fz_sub_cc(u32 a, u32 b, u32 *cf) {
  u64 d = (u64)a - b;
  *cf = (u32)(d >> 63);
  return (u32)d;
}
DEVICE u32 fz_subc_cc(u32 a, u32 b, u32 *cf) {
  u64 d = (u64)a - b - *cf;
  *cf = (u32)(d >> 63);
  return (u32)d;
}
DEVICE u32 fz_subc(u32 a, u32 b, u32 *cf) { return a - b - *cf; }
#undef FZ_MUL32_HI
#endif
