// alignas weaker than CUtensorMap's own 128 bytes: nvcc compiles it (a
// member's reduction is ignored, warning #1160-D; host variables are the
// host compiler's), clang errors but keeps the declarations (alignas.test).
#include <cuda.h>
#include <cstdint>

struct StoreParams {
  alignas(64) CUtensorMap map;
  float scale;
};

__global__ void scale_and_store(const __grid_constant__ StoreParams p, float v) {
  __shared__ alignas(128) float tile[256];
  tile[threadIdx.x] = v * p.scale;
  __syncthreads();
  if (threadIdx.x == 0)
    asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%0, {%2}], [%1];"
                 :: "l"(&p.map), "r"((unsigned)__cvta_generic_to_shared(tile)), "r"(0)
                 : "memory");
}

// Host code in the style of a type switch: the declarations reach the
// compiler through a macro argument.
#define FOR_EACH_SCALE(...) { constexpr float kScale = 2.0f; __VA_ARGS__ }

void launch(void *gmem, float v) {
  FOR_EACH_SCALE(
      alignas(64) CUtensorMap input_map{};
      StoreParams params{};
      params.map = input_map;
      params.scale = kScale;
      (void)gmem;
      scale_and_store<<<1, 256>>>(params, v);)
}
