#include <cuda.h>
__global__ void KERNEL(const __grid_constant__ CUtensorMap tmap, float v) {
  __shared__ alignas(128) float tile[1024];
  tile[threadIdx.x] = v;
  __syncthreads();
  if (threadIdx.x == 0)
    asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%0, {%2}], [%1];"
                 :: "l"(&tmap), "r"((unsigned)__cvta_generic_to_shared(tile)), "r"(0) : "memory");
}
