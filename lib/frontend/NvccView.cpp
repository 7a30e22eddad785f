//===- NvccView.cpp - what nvcc defines that clang does not ----------------===//
#include "proxyfence/NvccView.h"
#include "frontend/CudaInstall.h"
#include "clang/Basic/TargetInfo.h"
#include "clang/Lex/MacroInfo.h"
#include "clang/Lex/PPCallbacks.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using llvm::StringRef;

namespace proxyfence {

/// "13.0.88" -> {13, 0, 88}; "13.0" -> {13, 0}.
static std::optional<NvccVersion> parseVersion(StringRef Text) {
  llvm::SmallVector<StringRef, 3> Parts;
  Text.trim().split(Parts, '.');
  NvccVersion V;
  unsigned Build = 0;
  if (Parts.size() < 2 || Parts[0].getAsInteger(10, V.Major) ||
      Parts[1].getAsInteger(10, V.Minor))
    return std::nullopt;
  if (Parts.size() > 2 && !Parts[2].getAsInteger(10, Build))
    V.Build = Build;
  return V;
}

std::optional<NvccVersion> nvccVersion(StringRef CudaPath) {
  // A runfile or package install: version.json names nvcc's own version.
  llvm::SmallString<256> Json(CudaPath);
  llvm::sys::path::append(Json, "version.json");
  if (auto Buf = llvm::MemoryBuffer::getFile(Json)) {
    if (auto Doc = llvm::json::parse((*Buf)->getBuffer()))
      if (const llvm::json::Object *O = Doc->getAsObject())
        if (const llvm::json::Object *Nvcc = O->getObject("cuda_nvcc"))
          if (auto V = Nvcc->getString("version"))
            if (auto Parsed = parseVersion(*V))
              return Parsed;
    // Unparsable: fall through to the other sources.
  }
  // A pip (wheel) install: dist-info/nvidia_cuda_nvcc-13.0.88.dist-info.
  llvm::SmallString<256> Dist(CudaPath);
  llvm::sys::path::append(Dist, "dist-info");
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(Dist, EC), End; !EC && It != End;
       It.increment(EC)) {
    StringRef Name = llvm::sys::path::filename(It->path());
    if (Name.consume_front("nvidia_cuda_nvcc-") &&
        Name.consume_back(".dist-info"))
      if (auto Parsed = parseVersion(Name))
        return Parsed;
  }
  if (auto V = cudaVersion(CudaPath))
    return parseVersion(*V);
  return std::nullopt;
}

std::vector<std::string> nvccViewDefines(StringRef CudaPath, StringRef Arch) {
  std::vector<std::string> D;
  if (auto V = nvccVersion(CudaPath)) {
    D.push_back("-D__CUDACC_VER_MAJOR__=" + std::to_string(V->Major));
    D.push_back("-D__CUDACC_VER_MINOR__=" + std::to_string(V->Minor));
    // Unknown build: left undefined, which #if reads as 0 anyway.
    if (V->Build)
      D.push_back("-D__CUDACC_VER_BUILD__=" + std::to_string(*V->Build));
    D.push_back("-D__CUDA_API_VER_MAJOR__=" + std::to_string(V->Major));
    D.push_back("-D__CUDA_API_VER_MINOR__=" + std::to_string(V->Minor));
  }
  // sm_90a: arch-specific (only this GPU) and family; sm_100f: family only.
  StringRef Num = Arch;
  if (!Num.consume_front("sm_") || Num.empty())
    return D;
  char Suffix = Num.back();
  if (Suffix != 'a' && Suffix != 'f')
    return D;
  Num = Num.drop_back();
  unsigned N = 0;
  if (Num.getAsInteger(10, N))
    return D;
  std::string Value = std::to_string(N * 10);
  if (Suffix == 'a') {
    D.push_back("-D__CUDA_ARCH_FEAT_SM" + Num.str() + "_ALL");
    D.push_back("-D__CUDA_ARCH_SPECIFIC__=" + Value);
  }
  D.push_back("-D__CUDA_ARCH_FAMILY_SPECIFIC__=" + Value);
  return D;
}

StringRef nvccPreludePath() { return "/proxyfence-nvcc-view/prelude.cuh"; }

StringRef nvccPreludeText() {
  return R"(// proxyfence's nvcc view: what nvcc 13 declares by itself and clang's CUDA
// headers do not, for the code paths nvcc's macros switch on. In memory only.
#pragma clang system_header
// nvcc defines __CUDACC__ as 1; clang's CUDA wrapper defines it empty, and
// `#if __CUDACC__` (NCCL's device headers) is then an error that ends the
// parse of every declaration after it.
#undef __CUDACC__
#define __CUDACC__ 1
#if defined(__CUDA_ARCH__)

// Built-in atomics (CUDA 12.8 on), e.g. CUTLASS's subbyte_reference.h. The
// scope is not modelled: the bodies read and write memory as nvcc's do.
#ifndef __NV_ATOMIC_RELAXED
#define __NV_ATOMIC_RELAXED __ATOMIC_RELAXED
#define __NV_ATOMIC_CONSUME __ATOMIC_CONSUME
#define __NV_ATOMIC_ACQUIRE __ATOMIC_ACQUIRE
#define __NV_ATOMIC_RELEASE __ATOMIC_RELEASE
#define __NV_ATOMIC_ACQ_REL __ATOMIC_ACQ_REL
#define __NV_ATOMIC_SEQ_CST __ATOMIC_SEQ_CST
#define __NV_THREAD_SCOPE_THREAD __MEMORY_SCOPE_SINGLE
#define __NV_THREAD_SCOPE_BLOCK __MEMORY_SCOPE_WRKGRP
#define __NV_THREAD_SCOPE_CLUSTER __MEMORY_SCOPE_CLUSTR
#define __NV_THREAD_SCOPE_DEVICE __MEMORY_SCOPE_DEVICE
#define __NV_THREAD_SCOPE_SYSTEM __MEMORY_SCOPE_SYSTEM
#endif
template <class _T>
__device__ inline _T __nv_atomic_load_n(_T *__p, int __o, int = 0) {
  return __atomic_load_n(__p, __o);
}
template <class _T>
__device__ inline void __nv_atomic_load(_T *__p, _T *__r, int __o, int = 0) {
  __atomic_load(__p, __r, __o);
}
template <class _T, class _U>
__device__ inline void __nv_atomic_store_n(_T *__p, _U __v, int __o, int = 0) {
  __atomic_store_n(__p, __v, __o);
}
template <class _T>
__device__ inline void __nv_atomic_store(_T *__p, _T *__v, int __o, int = 0) {
  __atomic_store(__p, __v, __o);
}
template <class _T, class _U>
__device__ inline _T __nv_atomic_exchange_n(_T *__p, _U __v, int __o, int = 0) {
  return __atomic_exchange_n(__p, __v, __o);
}
template <class _T>
__device__ inline void __nv_atomic_exchange(_T *__p, _T *__v, _T *__r, int __o,
                                            int = 0) {
  __atomic_exchange(__p, __v, __r, __o);
}
template <class _T, class _U>
__device__ inline bool __nv_atomic_compare_exchange_n(_T *__p, _T *__e, _U __d,
                                                      bool __w, int __s,
                                                      int __f, int = 0) {
  return __atomic_compare_exchange_n(__p, __e, __d, __w, __s, __f);
}
template <class _T>
__device__ inline bool __nv_atomic_compare_exchange(_T *__p, _T *__e, _T *__d,
                                                    bool __w, int __s, int __f,
                                                    int = 0) {
  return __atomic_compare_exchange(__p, __e, __d, __w, __s, __f);
}
#define __PF_NV_ATOMIC_FETCH(OP)                                               \
  template <class _T, class _U>                                                \
  __device__ inline _T __nv_atomic_fetch_##OP(_T *__p, _U __v, int __o,        \
                                              int = 0) {                       \
    return __atomic_fetch_##OP(__p, __v, __o);                                 \
  }
__PF_NV_ATOMIC_FETCH(add)
__PF_NV_ATOMIC_FETCH(sub)
__PF_NV_ATOMIC_FETCH(and)
__PF_NV_ATOMIC_FETCH(or)
__PF_NV_ATOMIC_FETCH(xor)
__PF_NV_ATOMIC_FETCH(min)
__PF_NV_ATOMIC_FETCH(max)
#undef __PF_NV_ATOMIC_FETCH
__device__ inline void __nv_atomic_thread_fence(int __o, int = 0) {
  __atomic_thread_fence(__o);
}

// Paired float math (__fmul2_rn, __ffma2_rn, ...): nvcc's cuda_runtime.h
// includes crt/sm_100_rt.h, clang's wrapper does not.
#if __CUDA_ARCH__ >= 1000 && !defined(__SM_100_RT_H__)
#define __CUDA_INCLUDE_COMPILER_INTERNAL_HEADERS__
#define __PF_UNDEF_INTERNAL_HEADERS
#include <crt/sm_100_rt.h>
#ifdef __PF_UNDEF_INTERNAL_HEADERS
#undef __CUDA_INCLUDE_COMPILER_INTERNAL_HEADERS__
#undef __PF_UNDEF_INTERNAL_HEADERS
#endif
#elif __CUDA_ARCH__ < 1000
// Below sm_100 nvcc declares none of them, yet accepts them in a template
// that is never instantiated for the target (headers shared by sm_90 and
// sm_100 kernels); clang looks non-dependent names up where the template is
// written. Declared only, so that lookup finds them: nothing calls them.
#include <vector_types.h>
static __device__ __inline__ float2 __ffma2_rn(float2, float2, float2);
static __device__ __inline__ float2 __ffma2_rz(float2, float2, float2);
static __device__ __inline__ float2 __ffma2_rd(float2, float2, float2);
static __device__ __inline__ float2 __ffma2_ru(float2, float2, float2);
static __device__ __inline__ float2 __fadd2_rn(float2, float2);
static __device__ __inline__ float2 __fadd2_rz(float2, float2);
static __device__ __inline__ float2 __fadd2_rd(float2, float2);
static __device__ __inline__ float2 __fadd2_ru(float2, float2);
static __device__ __inline__ float2 __fmul2_rn(float2, float2);
static __device__ __inline__ float2 __fmul2_rz(float2, float2);
static __device__ __inline__ float2 __fmul2_rd(float2, float2);
static __device__ __inline__ float2 __fmul2_ru(float2, float2);
#endif

#endif // __CUDA_ARCH__
)";
}

static constexpr StringRef PredefinesMark = "// proxyfence: the nvcc view\n";

std::string nvccViewPredefines(StringRef CudaPath, StringRef Arch) {
  std::string Text(PredefinesMark);
  for (StringRef D : nvccViewDefines(CudaPath, Arch)) {
    D.consume_front("-D");
    auto [Name, Value] = D.split('=');
    if (!D.contains('='))
      Value = "1"; // as -DNAME
    Text += ("#ifndef " + Name + "\n#define " + Name + " " + Value +
             "\n#endif\n")
                .str();
  }
  // The prelude's system_header pragma applies to its own file only.
  StringRef Prelude = nvccPreludeText();
  for (StringRef Line : llvm::split(Prelude, '\n'))
    if (!Line.starts_with("#pragma clang system_header"))
      Text += (Line + "\n").str();
  return Text;
}

bool enterNvccView(clang::Preprocessor &PP, StringRef CudaPath) {
  if (!PP.getLangOpts().CUDAIsDevice ||
      StringRef(PP.getPredefines()).contains(PredefinesMark))
    return false;
  StringRef Arch = PP.getTargetInfo().getTargetOpts().CPU;
  PP.setPredefines(PP.getPredefines() + "\n" +
                   nvccViewPredefines(CudaPath, Arch));
  undoClangOptOuts(PP);
  return true;
}

llvm::ArrayRef<StringRef> clangOptOutMacros() {
  // CUTLASS (cutlass/platform/platform.h) defines it under clang and turns
  // SM100+ MMA/TMA support and __grid_constant__ off when it is set.
  static const StringRef Names[] = {"CUTLASS_CLANG_CUDA"};
  return Names;
}

namespace {
class UndoClangOptOuts : public clang::PPCallbacks {
public:
  explicit UndoClangOptOuts(clang::Preprocessor &PP) : PP(PP) {}
  void MacroDefined(const clang::Token &Name,
                    const clang::MacroDirective *) override {
    clang::IdentifierInfo *II = Name.getIdentifierInfo();
    if (!II || !llvm::is_contained(clangOptOutMacros(), II->getName()))
      return;
    // As if the #define were not there: nvcc never defines it.
    PP.appendMacroDirective(II, new (PP.getPreprocessorAllocator())
                                    clang::UndefMacroDirective(
                                        Name.getLocation()));
  }

private:
  clang::Preprocessor &PP;
};
} // namespace

void undoClangOptOuts(clang::Preprocessor &PP) {
  PP.addPPCallbacks(std::make_unique<UndoClangOptOuts>(PP));
}

} // namespace proxyfence
