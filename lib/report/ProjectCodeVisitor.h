//===- ProjectCodeVisitor.h - the AST outside system headers ---------------===//
//
// The visitors that look for what a unit reports (the roots to analyse, the
// blind spots) walk template instantiations too, but never declarations of
// system headers: the CUDA and C++ libraries are not the project's code.
//
//===----------------------------------------------------------------------===//
#ifndef PROXYFENCE_REPORT_PROJECTCODEVISITOR_H
#define PROXYFENCE_REPORT_PROJECTCODEVISITOR_H

#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"

namespace proxyfence {

template <typename Derived>
class ProjectCodeVisitor : public clang::RecursiveASTVisitor<Derived> {
public:
  explicit ProjectCodeVisitor(clang::SourceManager &SM) : SM(SM) {}

  bool shouldVisitTemplateInstantiations() const { return true; }
  bool TraverseDecl(clang::Decl *D) {
    if (D && !llvm::isa<clang::TranslationUnitDecl>(D) &&
        D->getLocation().isValid() &&
        SM.isInSystemHeader(SM.getExpansionLoc(D->getLocation())))
      return true;
    return clang::RecursiveASTVisitor<Derived>::TraverseDecl(D);
  }

protected:
  clang::SourceManager &SM;
};

} // namespace proxyfence

#endif
