//===- NvccView.h - what nvcc defines that clang does not ------------------===//
//
// Libraries gate their Hopper/Blackwell code on nvcc's predefined macros
// (CUTLASS: __CUDACC_VER_MAJOR__, __CUDA_ARCH_FEAT_SM90_ALL, ...), and some
// switch features off when the compiler is clang. The nvcc view makes the
// clang front end see the code nvcc compiles: the macros nvcc's device pass
// defines for the target, a prelude declaring the builtins those code paths
// reach, and library opt-outs of clang undone.
//
//===----------------------------------------------------------------------===//
#ifndef PROXYFENCE_NVCCVIEW_H
#define PROXYFENCE_NVCCVIEW_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace clang {
class Preprocessor;
}

namespace proxyfence {

/// nvcc's version: from version.json (cuda_nvcc), else the toolkit's
/// dist-info folder, else CUDA_VERSION in cuda.h (no build number then).
struct NvccVersion {
  unsigned Major = 0, Minor = 0;
  std::optional<unsigned> Build;
};
std::optional<NvccVersion> nvccVersion(llvm::StringRef CudaPath);

/// The -D flags for the macros nvcc's device pass defines for \p Arch
/// (sm_90a, sm_100a, sm_100f, ...) and clang does not: the compiler version
/// and, for `a` and `f` targets, the arch-specific and family macros.
std::vector<std::string> nvccViewDefines(llvm::StringRef CudaPath,
                                         llvm::StringRef Arch);

/// Where the prelude appears to be (it exists only in memory), and its text.
llvm::StringRef nvccPreludePath();
llvm::StringRef nvccPreludeText();

/// The nvcc view as preprocessor text, for a front end whose command line
/// cannot be changed (the clang-tidy plugin): nvccViewDefines as #define
/// lines (each unless already defined), then the prelude.
std::string nvccViewPredefines(llvm::StringRef CudaPath, llvm::StringRef Arch);

/// Adds the nvcc view to \p PP before the main file is entered: the
/// predefines above for its target GPU, and undoClangOptOuts. Returns false
/// (and does nothing) for a host-side compilation, or when already added.
bool enterNvccView(clang::Preprocessor &PP, llvm::StringRef CudaPath);

/// Library macros that announce "the compiler is clang" to switch features
/// off (CUTLASS_CLANG_CUDA); nvcc never defines them. Whenever the source
/// defines one, the returned callbacks undefine it again.
void undoClangOptOuts(clang::Preprocessor &PP);
llvm::ArrayRef<llvm::StringRef> clangOptOutMacros();

} // namespace proxyfence

#endif
