//===- CudaSnippet.h - a CUDA snippet parsed in process, for unit tests ----===//
#ifndef PROXYFENCE_TEST_CUDASNIPPET_H
#define PROXYFENCE_TEST_CUDASNIPPET_H

#include "frontend/CompileArgs.h"
#include "clang/AST/ASTContext.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Tooling.h"
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

/// The definition of the top-level function \p Name, or null.
inline const clang::FunctionDecl *function(clang::ASTContext &Ctx,
                                           llvm::StringRef Name) {
  for (const clang::Decl *D : Ctx.getTranslationUnitDecl()->decls())
    if (const auto *FD = llvm::dyn_cast<clang::FunctionDecl>(D))
      if (FD->getName() == Name && FD->hasBody())
        return FD;
  return nullptr;
}

} // namespace proxyfence::test

#endif
