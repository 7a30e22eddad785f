// mbarrier init and arrive as raw PTX, for the tests of who may use a
// barrier after its init.
#pragma once
#include <cstdint>

__device__ static inline void init_bar(uint64_t *bar, int count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::
               "r"((uint32_t)__cvta_generic_to_shared(bar)), "r"(count));
}
__device__ static inline void arrive(uint64_t *bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::
               "r"((uint32_t)__cvta_generic_to_shared(bar)) : "memory");
}
