// A stand-in for the preprocessor gates of CUTLASS/CuTe (cutlass/platform/
// platform.h, cutlass/arch/config.h, cutlass/arch/barrier.h, cute/arch/
// config.hpp, cute/arch/cluster_sm90.hpp), written the way those headers
// gate their Hopper/Blackwell asm: on nvcc's version and arch-feature macros,
// with SM100 switched off when the compiler says it is clang. The stand-ins
// in the test folders include it (through a link in each Inputs folder), so
// a front end without nvcc's macros sees the stubs a real build would see.
#pragma once

#define CUTLASS_DEVICE __forceinline__ __device__
#define CUTE_HOST_DEVICE __forceinline__ __host__ __device__
#define CUTE_DEVICE __forceinline__ __device__

// platform.h: set under clang, and then SM100 is off (config.h).
#if defined(__clang__) && defined(__CUDA__)
#define CUTLASS_CLANG_CUDA 1
#endif

// config.h: SM90 from CUDA 12.0, SM90a with the arch-specific feature.
#if (__CUDACC_VER_MAJOR__ > 12 || (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ >= 0))
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900
#define CUTLASS_ARCH_MMA_SM90_ENABLED 1
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define CUTLASS_ARCH_MMA_SM90A_ENABLED 1
#endif
#endif
#endif

// config.h: SM100 from CUDA 12.8, never under clang; 100a needs the feature
// macro, 100f the family macro.
#if !CUTLASS_CLANG_CUDA && (__CUDACC_VER_MAJOR__ > 12 || (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ >= 8))
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 1000
#if defined(__CUDA_ARCH_FEAT_SM100_ALL)
#define CUTLASS_ARCH_MMA_SM100A_ENABLED 1
#endif
#if defined(__CUDA_ARCH_FAMILY_SPECIFIC__) && __CUDA_ARCH_FAMILY_SPECIFIC__ == 1000
#define CUTLASS_ARCH_MMA_SM100F_ENABLED 1
#endif
#endif
#endif

// barrier.h: mbarrier and fence helpers.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && (__CUDACC_VER_MAJOR__ >= 12)
#define CUDA_BARRIER_ENABLED 1
#else
#define CUDA_BARRIER_ENABLED 0
#endif

// cute/arch/config.hpp: TMA on SM90 and on the SM100 family; GMMA on 90a;
// UMMA and UTCCP (tcgen05) on 100a/100f.
#if defined(CUTLASS_ARCH_MMA_SM90_ENABLED) || defined(CUTLASS_ARCH_MMA_SM100A_ENABLED) || \
    defined(CUTLASS_ARCH_MMA_SM100F_ENABLED)
#define CUTE_ARCH_TMA_SM90_ENABLED
#endif
#if defined(CUTLASS_ARCH_MMA_SM90A_ENABLED)
#define CUTE_ARCH_MMA_SM90A_ENABLED
#endif
#if defined(CUTLASS_ARCH_MMA_SM100A_ENABLED) || defined(CUTLASS_ARCH_MMA_SM100F_ENABLED)
#define CUTE_ARCH_TCGEN05_TMEM_ENABLED
#define CUTE_ARCH_UMMA_SM100_ENABLED
#endif

// cute/arch/cluster_sm90.hpp
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900) && \
    ((__CUDACC_VER_MAJOR__ >= 12) || ((__CUDACC_VER_MAJOR__ == 11) && (__CUDACC_VER_MINOR__ >= 8)))
#define CUTE_ARCH_CLUSTER_SM90_ENABLED
#endif

// What a disabled body does instead (cute/config.hpp).
#define CUTE_INVALID_CONTROL_PATH(x) __brkpt()
