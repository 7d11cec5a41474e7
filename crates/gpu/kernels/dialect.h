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
#endif

/* Carry chains, portable form: the carry is 0 or 1 in a word. */
DEVICE u64 fz_addc(u64 a, u64 b, u64 *carry) {
  u64 s = a + b;
  u64 c = s < a;
  u64 r = s + *carry;
  *carry = c | (r < s);
  return r;
}
DEVICE u64 fz_subb(u64 a, u64 b, u64 *borrow) {
  u64 d = a - b;
  u64 c = a < b;
  u64 r = d - *borrow;
  *borrow = c | (d < *borrow);
  return r;
}
/* a + b·c + carry, the high word back in carry (never overflows: at most 2^128 − 1). */
DEVICE u64 fz_mac(u64 a, u64 b, u64 c, u64 *carry) {
  u64 lo = b * c;
  u64 hi = MULHI64(b, c);
  lo += a;
  hi += lo < a;
  lo += *carry;
  hi += lo < *carry;
  *carry = hi;
  return lo;
}
