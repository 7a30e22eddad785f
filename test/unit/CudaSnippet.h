//===- CudaSnippet.h - a CUDA snippet parsed in process, for unit tests ----===//
#ifndef PROXYFENCE_TEST_CUDASNIPPET_H
#define PROXYFENCE_TEST_CUDASNIPPET_H

#include "frontend/CompileArgs.h"
#include "clang/AST/ASTContext.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Tooling.h"
#include <gtest/gtest.h>
#include <memory>
#include <string>
#include <vector>

namespace proxyfence::test {

/// \p Code as input.cu, compiled as the tool compiles device code for sm_90a.
inline std::unique_ptr<clang::ASTUnit> parseCuda(llvm::StringRef Code) {
  std::vector<std::string> Cmd = deviceCommand(
      {"nvcc", "-arch=sm_90a"}, "input.cu", {"", PF_TEST_CUDA_PATH});
  // buildASTFromCodeWithArgs adds the tool name and the file itself.
  std::vector<std::string> Args(Cmd.begin() + 1, Cmd.end() - 1);
  return clang::tooling::buildASTFromCodeWithArgs(Code, Args, "input.cu");
}

/// A device function storing \p n bytes of shared memory at \p smem to
/// \p gmem with cp.async.bulk (the async proxy reads \p smem): six lines.
inline const char *TmaStoreHelper = R"(
__device__ inline void tma_store(void *gmem, const void *smem, unsigned n) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
               :: "l"(gmem), "r"((unsigned)__cvta_generic_to_shared(smem)), "r"(n)
               : "memory");
}
)";

/// The hazard of tma-store in its plainest form (after TmaStoreHelper):
/// write, __syncthreads() (line 5 of the snippet), store; no fence.
inline const char *WriteBarrierStore = R"(
__global__ void k(float *out) {
  __shared__ float tile[256];
  tile[threadIdx.x] = 1.0f;
  __syncthreads();
  if (threadIdx.x == 0) tma_store(out, tile, 1024);
})";

/// The definition of the top-level function \p Name (a template's
/// pattern, for a function template), or null.
inline const clang::FunctionDecl *function(clang::ASTContext &Ctx,
                                           llvm::StringRef Name) {
  for (const clang::Decl *D : Ctx.getTranslationUnitDecl()->decls())
    if (const auto *FD = llvm::isa<clang::FunctionTemplateDecl>(D)
                             ? llvm::cast<clang::FunctionTemplateDecl>(D)
                                   ->getTemplatedDecl()
                             : llvm::dyn_cast<clang::FunctionDecl>(D))
      if (FD->getName() == Name && FD->hasBody())
        return FD;
  return nullptr;
}

/// A snippet parsed with no errors, and its function \p Fn (null, with a
/// test failure, when it does not parse or lacks one).
struct Snippet {
  std::unique_ptr<clang::ASTUnit> AST;
  const clang::FunctionDecl *Fn = nullptr;
};
inline Snippet parseFunction(llvm::StringRef Code, llvm::StringRef Name = "k") {
  Snippet S;
  S.AST = parseCuda(Code);
  EXPECT_TRUE(S.AST);
  if (!S.AST)
    return S;
  EXPECT_FALSE(S.AST->getASTContext().getDiagnostics().hasErrorOccurred());
  S.Fn = function(S.AST->getASTContext(), Name);
  EXPECT_NE(S.Fn, nullptr) << Name.str();
  return S;
}

} // namespace proxyfence::test

#endif
