//===- DependentCalls.h - calls in template patterns, as written ----------===//
//
// A function template (or a member of a class template) that the translation
// unit never instantiates is analysed as written. Its calls whose callee
// depends on template parameters have no direct callee; this reads what the
// pattern says about them: the candidates that lookup found and that can take
// the call's arguments. One candidate is the callee; several with the same
// effects (overloads of `st_shared`, the two classes of a dependent
// `conditional_t<C, A, B>::copy`) act as one; anything else stays unknown
// (never a guessed fence, async operation or barrier).
//
//===----------------------------------------------------------------------===//
#ifndef PROXYFENCE_DEPENDENTCALLS_H
#define PROXYFENCE_DEPENDENTCALLS_H

#include "clang/AST/DeclCXX.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include <optional>

namespace proxyfence {

/// What lookup says of a call whose callee depends on template parameters.
struct DependentCallee {
  /// False: the call is not dependent (it has a direct callee, or calls
  /// through a pointer of known type): nothing to read here.
  bool Dependent = false;
  /// The callee as named: a function, or a function template's pattern.
  /// Empty when lookup found nothing usable (`op(x)` with `Op op`, `t.f()`
  /// with `T t`).
  llvm::SmallVector<const clang::FunctionDecl *, 2> Viable;
};

/// The candidates of \p Call: from an unresolved lookup (`f<N>(x)`), an
/// unresolved member lookup in the class itself (`this->f(x)`, `f(x)` in a
/// member), or a qualified lookup into a non-dependent class
/// (`Copy::copy(x)`), or the classes a dependent `conditional_t<C, A, B>`
/// qualifier may name (`Op::copy(x)`), or the class of an object whose type
/// patternType tells (`v[i]->init(1)`); kept when they can take the call's
/// number of arguments and explicit template arguments.
DependentCallee dependentCallee(const clang::CallExpr *Call);

/// Member functions of the translation unit's classes, by name, indexed on
/// first use. A pattern's `obj.f(args)` on an object whose class it does
/// not tell (`const TmaOut &out` of template-parameter type) calls one of
/// the classes that declare an `f`: those are its candidates.
class MemberNameIndex {
public:
  /// The member functions named as \p Call's callee that can take its
  /// arguments, in every class and class template of the translation unit,
  /// when \p Call is a member call on such an object; empty otherwise, and
  /// when more than \p Limit classes declare one (a name too common to tell
  /// anything).
  llvm::SmallVector<const clang::FunctionDecl *, 4>
  candidates(const clang::CallExpr *Call, const clang::ASTContext &Ctx,
             unsigned Limit);

private:
  void addContext(const clang::DeclContext *DC);
  void addClass(const clang::CXXRecordDecl *RD);
  bool Built = false;
  llvm::DenseMap<const clang::IdentifierInfo *,
                 llvm::SmallVector<const clang::NamedDecl *, 2>>
      ByName;
};

/// The class a type names as the pattern has it: a class, or the pattern
/// of the class template a dependent specialisation names
/// (`PipelineTransactionAsync<Stages>` through a member alias), when that
/// template has no partial or explicit specialisation to choose instead.
const clang::CXXRecordDecl *classPattern(clang::QualType T);

/// `v[i]` in a pattern, \p Object being `v`, a local variable of a class
/// template whose `operator[]` returns what a callable it stores returns for
/// the same \p Args arguments (`auto v = Visitor([=](int i) { return p + i;
/// })`, deduced from the constructor, or `Visitor<decltype(f)> v(f)`): that
/// lambda's call operator, which computes the element. Null otherwise.
const clang::CXXMethodDecl *subscriptCallable(const clang::Expr *Object,
                                              unsigned Args);

/// The type \p E has, also where the pattern leaves it dependent but says
/// what it is: a local `auto` variable's initialiser, `*p`, `v[i]` of a
/// visitor above, a call with one candidate (its `auto` return type deduced
/// from what it returns). Null when unknown.
clang::QualType patternType(const clang::Expr *E);

/// Whether \p E, in a template pattern, has one value per instantiation:
/// template parameters, constants, and constexpr calls of them (`kSwapAB`,
/// `kMulticast > 1`, `size(ClusterShape{}) > 1`), never a runtime value.
bool isTemplateConstant(const clang::Expr *E);

/// A unary operation and its operand: `&x`, `*p`, `++i`, also where a
/// template pattern left the operator an unresolved call because lookup
/// found `operator&` or `operator*` overloads for other types (as
/// `using namespace cute;` or a library's bitmask operators bring in).
struct UnaryOperation {
  clang::UnaryOperatorKind Opcode;
  const clang::Expr *Operand;
};
std::optional<UnaryOperation> unaryOperation(const clang::Expr *E);

/// The array and the index of `a[i]`, also in a pattern where `i` has a
/// dependent type (a stage index from a dependent call), for which
/// ArraySubscriptExpr::getBase() takes the index for the array.
const clang::Expr *subscriptBase(const clang::ArraySubscriptExpr *ASE);
const clang::Expr *subscriptIndex(const clang::ArraySubscriptExpr *ASE);

/// The field a pattern's `s.f` names where `s` is of a dependent type
/// (`smem.full_barriers` with `auto &smem = *reinterpret_cast<Storage<N> *>(p)`):
/// looked up in the class template's definition, when the template has no
/// partial specializations. Null otherwise.
const clang::FieldDecl *
patternField(const clang::CXXDependentScopeMemberExpr *ME);

/// The object a member call is made on and whether it is reached through a
/// pointer (`p->f()`), also for member calls a pattern leaves unresolved;
/// null for calls that are not member calls, and for implicit `this`
/// (\p ImplicitThis set).
const clang::Expr *memberCallObject(const clang::CallExpr *Call, bool &Arrow,
                                    bool &ImplicitThis);

/// The member function whose `this` the lambda body \p Fn (its call
/// operator, nested or not) captured: what `this` means there. Null when
/// \p Fn is not a lambda's, or its lambda is not inside a member function.
const clang::CXXMethodDecl *thisCapturedBy(const clang::FunctionDecl *Fn);

/// Reads of shared memory in a pattern whose type depends on template
/// parameters (`tile[i]` with `__shared__ T tile[N]`), or of known type used
/// by an operator that does (`v[0] = row[1]` with `float v[N / 4]`): the
/// pattern has no lvalue-to-rvalue conversions there, so an access counts as
/// a read unless the pattern writes it, takes its address, or reaches into it
/// (`a[i][j]`, `s.f`), or passes it to a call it cannot resolve (maybe by
/// reference).
class PatternReads {
public:
  /// Whether \p E, a statement of the pattern \p Fn, reads the object it
  /// designates.
  bool isRead(const clang::Expr *E, const clang::FunctionDecl *Fn);
  /// Whether \p E is a statement of its own in \p Fn (its value discarded),
  /// rather than a value the pattern computes with.
  bool isStatement(const clang::Expr *E, const clang::FunctionDecl *Fn);

private:
  void index(const clang::FunctionDecl *Fn);
  const clang::FunctionDecl *Indexed = nullptr;
  llvm::DenseSet<const clang::Expr *> NotRead;
  llvm::DenseSet<const clang::Expr *> Statements;
  /// Lvalues of known type that a dependent operator uses as values.
  llvm::DenseSet<const clang::Expr *> Unconverted;
};

/// The values a function body returns (lambdas' returns left out).
llvm::SmallVector<const clang::Expr *, 2> returnValues(const clang::Stmt *Body);

/// The call operator of the lambda \p E is or names: `[=](int i) {...}`, or
/// a local variable initialised with one.
const clang::CXXMethodDecl *lambdaCallOperator(const clang::Expr *E);

} // namespace proxyfence

#endif
