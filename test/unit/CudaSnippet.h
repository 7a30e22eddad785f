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
