//===- SemaRecovery.h - declarations nvcc accepts and clang's Sema rejects -===//
//
// Two declarations nvcc compiles and clang rejects in semantic analysis,
// not in the text, so SourceRecovery's text repairs cannot reach them:
//
// - A function-scope `__shared__` object whose class has a non-empty
//   constructor or destructor (cuda::barrier, a struct with default member
//   initializers), declared without an initializer. nvcc warns (#20054-D)
//   and runs no constructor; clang errors ("initialization is not supported
//   for __shared__ variables") and marks the variable invalid, which drops
//   every statement that uses it, and in a template the whole instantiated
//   body. Recovered as nvcc compiles it: a valid shared variable with no
//   initializer. Instantiations are kept from the error (the variable has
//   automatic storage while clang builds its default initialisation, until
//   the next variable or the end of its function); declarations parsed
//   outside templates are made valid again right after the error, before
//   the next token, so no use of them is lost.
// - `alignas(N)` weaker than the type's own alignment (`alignas(64)
//   CUtensorMap`, whose type is aligned to 128): nvcc keeps the type's
//   alignment, clang errors but keeps the declaration and its uses whole,
//   so the error is only taken back.
// - `extern __shared__ T s;` with T not an array of unknown bound (a struct
//   laid over the dynamic shared memory). nvcc places it in dynamic shared
//   memory; clang errors and drops the shared attribute, so every access
//   through it would count as global memory. The attribute is put back.
//
// - A dependent name that needs `typename` or `template` and lacks it
//   (`typename SV::subvec<N>`, `Buf<T::Elem>` in a template's own
//   declarations). nvcc accepts it; clang errors, supplies the keyword (its
//   fix-it) and goes on with the AST whole, so the error is only taken back.
//   Where clang cannot recover (a template argument of a call, seen only
//   when instantiated) the driver repairs the text and parses again.
//
// - A `__device__ constexpr` function called from host code (a collective's
//   `static Params to_underlying_arguments(...)` computing a shape with its
//   own device helper). nvcc with --expt-relaxed-constexpr, which CUTLASS
//   and the libraries built on it require, lets host code call it; clang
//   makes only unattributed constexpr functions host and device, so the
//   host caller's overload resolution fails and, in a template, drops the
//   instantiation that the kernel's launch sits in. Such a function, when
//   it is defined where it is first declared, is made host and device as
//   its class or top-level declaration completes.
//
// With an initializer, or at namespace scope, nvcc rejects a `__shared__`
// object too, and clang's error stands. Nothing is rewritten in any file:
// locations and --fix are those of the files on disk.
//
//===----------------------------------------------------------------------===//
#ifndef PROXYFENCE_SEMARECOVERY_H
#define PROXYFENCE_SEMARECOVERY_H

#include "clang/AST/ASTMutationListener.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include <vector>

namespace clang {
class CompilerInstance;
class Diagnostic;
class VarDecl;
} // namespace clang

namespace proxyfence {

/// What SemaRecovery recovered.
struct SemaRecoveryCounts {
  unsigned SharedObjects = 0; // __shared__ objects kept valid, uninitialised
  unsigned Alignas = 0;       // under-aligned alignas errors taken back
  unsigned ExternShared = 0;  // extern __shared__ non-arrays kept shared
  // nvcc's lenient reading of dependent names and constant expressions
  // (counted here; the text repairs and the reparse are the driver's).
  unsigned Typenames = 0;          // `typename` supplied
  unsigned TemplateKeywords = 0;   // `template` supplied
  unsigned UnknownReferences = 0;  // constants read through reference parameters
  unsigned RelaxedConstexpr = 0;   // __device__ constexpr callable from host

  void add(const SemaRecoveryCounts &O) {
    SharedObjects += O.SharedObjects;
    Alignas += O.Alignas;
    ExternShared += O.ExternShared;
    Typenames += O.Typenames;
    TemplateKeywords += O.TemplateKeywords;
    UnknownReferences += O.UnknownReferences;
    RelaxedConstexpr += O.RelaxedConstexpr;
  }
};

class SemaRecovery : public clang::ASTMutationListener {
public:
  /// Binds to \p CI before parsing. The AST consumer must also return this
  /// object as its ASTMutationListener, and the preprocessor's token
  /// watcher call tokenLexed().
  void attach(clang::CompilerInstance &CI);

  /// A token was lexed: no use of a declaration parsed before it is yet.
  void tokenLexed() {
    if (!Invalidated.empty())
      revalidatePending();
  }

  /// Whether the front-end error \p Info is one of the rejections above,
  /// recovered (or about to be, before any later code is parsed): the
  /// caller then does not count it as an error.
  bool claim(const clang::Diagnostic &Info);

  /// Whether the failed call of \p Info (no viable function) names, in its
  /// explicit template arguments, a member of a reference parameter of the
  /// function being parsed (`f<dst.length>(...)`): the constant that clang
  /// reads only from C++23 on, and whose failure the overload resolution
  /// swallows without a note.
  bool templateArgumentReadsReference(const clang::Diagnostic &Info) const;

  /// Makes the `__device__ constexpr` functions declared in \p D (a
  /// function, a class, a namespace) host and device, as nvcc's
  /// --expt-relaxed-constexpr reads them. Call as each class and top-level
  /// declaration completes (a namespace's members then, at its end).
  void relaxConstexpr(clang::Decl *D);

  /// Completes the pending recoveries; call before reading the AST.
  void finish();

  const SemaRecoveryCounts &counts() const { return Counts; }

  // Template instantiations (clang::ASTMutationListener).
  void VariableDefinitionInstantiated(const clang::VarDecl *D) override;
  void FunctionDefinitionInstantiated(const clang::FunctionDecl *D) override;

private:
  struct Held {
    clang::VarDecl *Var;
    int StorageClass; // clang::StorageClass, to restore
  };
  bool keepExternShared(const clang::Diagnostic &Info);
  void revalidatePending();
  void releaseIf(llvm::function_ref<bool(const clang::VarDecl *)> Done);
  void release(Held H);

  clang::CompilerInstance *CI = nullptr;
  std::vector<clang::VarDecl *> Invalidated; // parsed, awaiting the next token
  std::vector<Held> Instantiating;           // kept local while initialised
  SemaRecoveryCounts Counts;
};

} // namespace proxyfence

#endif
