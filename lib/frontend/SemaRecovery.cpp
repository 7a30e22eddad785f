//===- SemaRecovery.cpp - declarations nvcc accepts and clang's Sema rejects ===//
#include "frontend/SemaRecovery.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Basic/DiagnosticParse.h"
#include "clang/Basic/DiagnosticSema.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Sema/Sema.h"
#include "clang/Sema/SemaCUDA.h"

using namespace clang;

namespace proxyfence {

namespace {

/// A function-scope `__shared__` variable (nvcc makes it static).
bool isFunctionScopeShared(const VarDecl *V) {
  return V->hasAttr<CUDASharedAttr>() && V->isStaticLocal() &&
         !V->hasExternalStorage();
}

/// The default initialisation clang builds for a variable declared with no
/// initializer: a constructor call with no arguments and no parentheses.
const CXXConstructExpr *defaultConstruction(const VarDecl *V) {
  const Expr *Init = V->getInit();
  if (const auto *Cleanups = dyn_cast_or_null<ExprWithCleanups>(Init))
    Init = Cleanups->getSubExpr();
  const auto *Construct = dyn_cast_or_null<CXXConstructExpr>(Init);
  if (!Construct || Construct->getNumArgs() != 0 ||
      Construct->getParenOrBraceRange().isValid() ||
      V->getInitStyle() != VarDecl::CallInit)
    return nullptr;
  return Construct;
}

/// Whether clang accepts the default initialisation \p C of the shared
/// variable \p V (an empty constructor and destructor, CUDA E.2.3.1).
bool clangAccepts(Sema &S, const VarDecl *V, const CXXConstructExpr *C) {
  SourceLocation L = V->getLocation();
  if (!S.CUDA().isEmptyConstructor(L, C->getConstructor()))
    return false;
  const auto *RD = S.getASTContext()
                       .getBaseElementType(V->getType())
                       ->getAsCXXRecordDecl();
  return !RD || S.CUDA().isEmptyDestructor(L, RD->getDestructor());
}

} // namespace

void SemaRecovery::attach(CompilerInstance &Compiler) { CI = &Compiler; }

void SemaRecovery::relaxConstexpr(Decl *D) {
  if (!D || !CI || !CI->getLangOpts().CUDA)
    return;
  if (auto *T = dyn_cast<FunctionTemplateDecl>(D))
    D = T->getTemplatedDecl();
  else if (auto *T = dyn_cast<ClassTemplateDecl>(D))
    D = T->getTemplatedDecl();
  if (auto *F = dyn_cast<FunctionDecl>(D)) {
    // Only a definition that is its function's only declaration: a later
    // redeclaration, still __device__ only, would no longer match it.
    if (F->isConstexpr() && F->hasAttr<CUDADeviceAttr>() &&
        !F->hasAttr<CUDAHostAttr>() && !F->hasAttr<CUDAGlobalAttr>() &&
        F->doesThisDeclarationHaveABody() && F->isFirstDecl()) {
      F->addAttr(CUDAHostAttr::CreateImplicit(CI->getASTContext()));
      ++Counts.RelaxedConstexpr;
    }
    return;
  }
  // Namespaces, linkage specifications and classes: their members. A
  // function's own body declares nothing callable from outside it.
  if (auto *DC = dyn_cast<DeclContext>(D);
      DC && (isa<NamespaceDecl, LinkageSpecDecl, CXXRecordDecl>(D)))
    for (Decl *Member : DC->decls())
      relaxConstexpr(Member);
}

bool SemaRecovery::claim(const Diagnostic &Info) {
  // clang supplies the missing keyword exactly when it offers it as a fix.
  bool Recovered = Info.getNumFixItHints() > 0;
  switch (Info.getID()) {
  case diag::err_template_arg_must_be_type_suggest:
  case diag::err_typename_missing:
  case diag::err_typename_missing_template:
    Counts.Typenames += Recovered;
    return Recovered;
  case diag::err_missing_dependent_template_keyword:
    Counts.TemplateKeywords += Recovered;
    return Recovered;
  default:
    break;
  }
  if (Info.getID() == diag::err_alignas_underaligned) {
    // The declaration keeps its type's (stricter) alignment, as with nvcc;
    // clang has already built it and its uses.
    ++Counts.Alignas;
    return true;
  }
  if (Info.getID() == diag::err_cuda_extern_shared)
    return keepExternShared(Info);
  if (Info.getID() != diag::err_shared_var_init || !CI || !CI->hasSema())
    return false;
  // Sema reports it while the declaration is the newest of its context.
  Sema &S = CI->getSema();
  if (S.inTemplateInstantiation())
    return false; // no later token to revalidate it before its uses
  DeclContext *DC = S.CurContext;
  if (!DC || !DC->isFunctionOrMethod())
    return false; // namespace scope: nvcc rejects it as well
  VarDecl *Rejected = nullptr;
  for (Decl *D : DC->decls())
    if (auto *V = dyn_cast<VarDecl>(D))
      if (V->getLocation() == Info.getLocation())
        Rejected = V;
  if (!Rejected || !isFunctionScopeShared(Rejected))
    return false;
  if (!defaultConstruction(Rejected))
    return false; // an initializer was written: nvcc rejects it as well
  Invalidated.push_back(Rejected);
  return true;
}

bool SemaRecovery::templateArgumentReadsReference(const Diagnostic &Info) const {
  if (!CI || !CI->hasSema() || !Info.hasSourceManager() ||
      Info.getLocation().isInvalid() || CI->getLangOpts().CPlusPlus23)
    return false;
  const FunctionDecl *FD = CI->getSema().getCurFunctionDecl(/*AllowLambda=*/true);
  if (!FD)
    return false;
  llvm::SmallVector<llvm::StringRef, 4> References;
  for (const ParmVarDecl *P : FD->parameters())
    if (P->getType()->isReferenceType() && P->getIdentifier())
      References.push_back(P->getName());
  if (References.empty())
    return false;
  const SourceManager &SM = Info.getSourceManager();
  SourceLocation L = SM.getSpellingLoc(Info.getLocation());
  auto [File, Offset] = SM.getDecomposedLoc(L);
  bool Invalid = false;
  llvm::StringRef Text = SM.getBufferData(File, &Invalid);
  if (Invalid)
    return false;
  // The callee's name, then its explicit template arguments `<...>`.
  Lexer Lex(SM.getLocForStartOfFile(File), CI->getLangOpts(), Text.begin(),
            Text.begin() + Offset, Text.end());
  Token Tok, Prev, PrevPrev;
  Prev.startToken();
  PrevPrev.startToken();
  int Depth = 0;
  for (int N = 0; N < 256 && !Lex.LexFromRawLexer(Tok); ++N) {
    if (Tok.is(tok::less))
      ++Depth;
    else if (Tok.is(tok::greater) && --Depth <= 0)
      return false;
    else if (Depth == 0 && !Tok.isOneOf(tok::raw_identifier, tok::coloncolon))
      return false; // no template argument list follows the name
    else if (Tok.is(tok::raw_identifier) && Prev.is(tok::period) &&
             PrevPrev.is(tok::raw_identifier) &&
             llvm::is_contained(References, PrevPrev.getRawIdentifier()))
      return true;
    PrevPrev = Prev;
    Prev = Tok;
  }
  return false;
}

bool SemaRecovery::keepExternShared(const Diagnostic &Info) {
  // Reported while the attribute is applied, before it is attached: the
  // variable is argument 0, complete but for the attribute.
  if (!CI || !CI->hasASTContext() || Info.getNumArgs() < 1 ||
      Info.getArgKind(0) != DiagnosticsEngine::ak_nameddecl)
    return false;
  auto *V = dyn_cast_or_null<VarDecl>(
      reinterpret_cast<NamedDecl *>(Info.getRawArg(0)));
  if (!V || !V->hasExternalStorage() || V->hasAttr<CUDASharedAttr>())
    return false;
  V->addAttr(CUDASharedAttr::CreateImplicit(CI->getASTContext(),
                                            SourceRange(Info.getLocation())));
  ++Counts.ExternShared;
  return true;
}

void SemaRecovery::revalidatePending() {
  for (VarDecl *V : Invalidated) {
    V->setInvalidDecl(false);
    V->setInit(nullptr); // nvcc runs no constructor
    ++Counts.SharedObjects;
  }
  Invalidated.clear();
}

void SemaRecovery::VariableDefinitionInstantiated(const VarDecl *D) {
  if (!CI || !CI->hasSema())
    return;
  // Variables are instantiated one after another: the previous ones of
  // this function are initialised by now.
  releaseIf([&](const VarDecl *V) {
    return V->getDeclContext() == D->getDeclContext();
  });
  if (!isFunctionScopeShared(D))
    return;
  ASTContext &Ctx = CI->getASTContext();
  const auto *RD = Ctx.getBaseElementType(D->getType())->getAsCXXRecordDecl();
  if (!RD || (RD->hasDefinition() && RD->hasTrivialDefaultConstructor() &&
              RD->hasTrivialDestructor()))
    return;
  // Local while clang builds its initialisation: the CUDA check of shared
  // initializers (err_shared_var_init) applies to static storage only. An
  // initializer that was written is judged by that check on release.
  auto *V = const_cast<VarDecl *>(D);
  Instantiating.push_back({V, V->getStorageClass()});
  V->setStorageClass(SC_None);
}

void SemaRecovery::FunctionDefinitionInstantiated(const FunctionDecl *F) {
  // The body is complete: the variables declared in it are settled.
  releaseIf([&](const VarDecl *V) { return F->Encloses(V->getDeclContext()); });
}

void SemaRecovery::releaseIf(llvm::function_ref<bool(const VarDecl *)> Done) {
  for (size_t I = 0; I < Instantiating.size();) {
    if (Done(Instantiating[I].Var)) {
      Held H = Instantiating[I];
      Instantiating.erase(Instantiating.begin() + I);
      release(H);
    } else {
      ++I;
    }
  }
}

void SemaRecovery::release(Held H) {
  VarDecl *V = H.Var;
  V->setStorageClass(static_cast<StorageClass>(H.StorageClass));
  Sema &S = CI->getSema();
  const CXXConstructExpr *Construct = defaultConstruction(V);
  if (!Construct) {
    // An initializer was written, which nvcc rejects too: clang's verdict
    // (unless the initializer is already an error of its own).
    if (!V->isInvalidDecl() && V->getInit() && !V->getInit()->containsErrors())
      S.CUDA().checkAllowedInitializer(V);
    return;
  }
  if (!clangAccepts(S, V, Construct))
    ++Counts.SharedObjects;
  V->setInit(nullptr); // nvcc runs no constructor
}

void SemaRecovery::finish() {
  revalidatePending();
  for (Held H : Instantiating)
    release(H);
  Instantiating.clear();
}

} // namespace proxyfence
