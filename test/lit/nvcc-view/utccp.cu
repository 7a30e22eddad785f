// Input of gating.cu: scale factors written, then copied to tensor memory
// by CuTe's UTCCP atom with no proxy fence between. No RUN lines.
// RUN: true
#include "mini_cute.h"

__global__ void scale_factors(const float *amax, uint32_t tmem) {
  __shared__ alignas(128) uint8_t sSF[128 * 32];
  for (int i = threadIdx.x; i < 128 * 32; i += blockDim.x)
    sSF[i] = static_cast<uint8_t>(amax[i]);
  __syncthreads();
  if (threadIdx.x / 32 == 0)
    cute::SM100_UTCCP_128dp256bit_1cta::copy(cute::make_gmma_desc(sSF, 16, 256), tmem);
}
