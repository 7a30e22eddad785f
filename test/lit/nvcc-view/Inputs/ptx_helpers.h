// Helpers as kernel libraries write them for nvcc: a PTX special register
// with a single '%', and two operands without a comma between them. clang
// rejects both statements; the nvcc view reads them.
#pragma once

__device__ __forceinline__ unsigned lane_id() {
  unsigned r;
  asm volatile("mov.u32 %0, %laneid;" : "=r"(r));
  return r;
}

__device__ __forceinline__ void bulk_store(void *gmem, const void *smem,
                                           unsigned bytes) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
               :
               : "l"(gmem)  "r"((unsigned)__cvta_generic_to_shared(smem)), "r"(bytes)
               : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}
