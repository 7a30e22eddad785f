//===- Memory.cpp - which shared-memory object an access touches ----------===//
#include "model/Memory.h"
#include "model/BumpAllocator.h"
#include "model/DependentCalls.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecordLayout.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include <map>
#include <memory>
#include "clang/Basic/Builtins.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include <algorithm>

using namespace clang;

namespace proxyfence {

/// The declaration, with its body, that a member function template of a
/// class template specialization was instantiated from; null otherwise.
static const FunctionDecl *memberTemplatePattern(const FunctionDecl *F) {
  const FunctionTemplateDecl *T = F->getDescribedFunctionTemplate();
  if (!T)
    return nullptr;
  const FunctionTemplateDecl *From = T->getInstantiatedFromMemberTemplate();
  while (From && From->getInstantiatedFromMemberTemplate())
    From = From->getInstantiatedFromMemberTemplate();
  return From ? From->getTemplatedDecl() : nullptr;
}

const FunctionDecl *bodyToRead(const FunctionDecl *F) {
  const FunctionDecl *Def = nullptr;
  if (!F)
    return nullptr;
  if (F->hasBody(Def) && Def && Def->getBody())
    return Def;
  // A member of a class template specialization that only a pattern calls
  // (`Layout<true>(...).part(i)` with dependent arguments) is declared,
  // never instantiated: its body is the class template's, as written.
  if (const FunctionDecl *P = F->getTemplateInstantiationPattern();
      P && P->hasBody(Def) && Def && Def->getBody())
    return Def;
  // The same for a member template of such a specialization.
  if (const FunctionDecl *P = memberTemplatePattern(F);
      P && P->hasBody(Def) && Def && Def->getBody())
    return Def;
  return nullptr;
}

void AliasSet::add(const MemRoot &R) {
  for (const MemRoot &X : Roots)
    if (X == R)
      return;
  Roots.push_back(R);
}

std::optional<ThreadGroup> AliasSet::privateTo() const {
  if (Unknown || Roots.empty())
    return std::nullopt;
  std::optional<ThreadGroup> G = Roots.front().PrivateTo;
  for (const MemRoot &R : Roots)
    if (!(R.PrivateTo == G))
      return std::nullopt;
  return G;
}

void AliasSet::makePrivateTo(const ThreadGroup &G) {
  llvm::SmallVector<MemRoot, 2> Old;
  Old.swap(Roots);
  for (MemRoot R : Old) {
    if (!R.PrivateTo)
      R.PrivateTo = G;
    add(R);
  }
}

void AliasSet::merge(const AliasSet &O) {
  Unknown |= O.Unknown;
  KernelArgument |= O.KernelArgument;
  for (const MemRoot &R : O.Roots)
    add(R);
}

bool MemRoot::overlaps(const MemRoot &O) const {
  // Two calls of one bump allocator hand out disjoint memory; an allocation
  // and memory reached otherwise may overlap anywhere.
  if (Allocation != O.Allocation)
    return !(Allocator && Allocator == O.Allocator);
  if (!Placed || !O.Placed)
    return true;
  // Regions that template values place: the same place compares the bytes
  // below, different ones their places.
  if (Place != O.Place)
    return placesOverlap(Place, Place ? 0 : Begin, O.Place,
                         O.Place ? 0 : O.Begin);
  // Members of an object of template-parameter type, known by name only.
  if (MemberName != O.MemberName) {
    const IdentifierInfo *Mine =
        MemberName ? MemberName : (Member ? Member->getIdentifier() : nullptr);
    const IdentifierInfo *Theirs =
        O.MemberName ? O.MemberName
                     : (O.Member ? O.Member->getIdentifier() : nullptr);
    return !(Mine && Theirs && Mine != Theirs);
  }
  // Members of a struct without a layout: distinct ones never overlap; a
  // member and a range of the struct may.
  if (MemberName && InnerPath != O.InnerPath &&
      !MemberPath::nested(InnerPath, O.InnerPath))
    return false;
  if (Member != O.Member)
    return !(Member && O.Member && Member->getParent() == O.Member->getParent() &&
             !Member->getParent()->isUnion());
  // `smem + OFF1` and `smem + OFF2`: carved regions of unknown extent, each
  // taken to end where the next begins.
  if (End == NoEnd && O.End == NoEnd && (Carved || O.Carved) &&
      Begin != O.Begin)
    return false;
  return Begin < O.End && O.Begin < End;
}

const MemberPath *MemberPath::get(const MemberPath *Parent,
                                  const IdentifierInfo *Name) {
  // Never freed. The key is the identifier's address: one that a later
  // translation unit reuses names the same path with its own identifier.
  static std::map<std::pair<const MemberPath *, const IdentifierInfo *>,
                  std::unique_ptr<MemberPath>>
      Interned;
  auto &Slot = Interned[{Parent, Name}];
  if (!Slot)
    Slot.reset(new MemberPath{Parent, Name, Parent ? Parent->Depth + 1 : 1});
  return Slot.get();
}

bool MemberPath::nested(const MemberPath *A, const MemberPath *B) {
  if (!A || !B)
    return true; // the whole member holds every path inside it
  while (A->Depth > B->Depth)
    A = A->Parent;
  while (B->Depth > A->Depth)
    B = B->Parent;
  return A == B;
}

/// Whether a message names \p Outer rather than the field \p Inner inside it:
/// when Inner is a container's internals (`ArrayEngine::storage_` inside
/// `SharedStorage::A`), declared in another file, or a reserved identifier.
static bool keepsOuterName(const FieldDecl *Outer, const FieldDecl *Inner) {
  const IdentifierInfo *II = Inner->getIdentifier();
  if (!II)
    return true;
  StringRef N = II->getName();
  if (N.starts_with("__") || (N.size() > 1 && N[0] == '_' && isUppercase(N[1])))
    return true;
  const SourceManager &SM = Inner->getASTContext().getSourceManager();
  return SM.getFileID(SM.getExpansionLoc(Outer->getLocation())) !=
         SM.getFileID(SM.getExpansionLoc(Inner->getLocation()));
}

MemRoot MemRoot::narrowedTo(const MemRoot &Inner) const {
  MemRoot R = *this;
  if (!R.PrivateTo)
    R.PrivateTo = Inner.PrivateTo;
  if (Inner.Field && !(R.Field && keepsOuterName(R.Field, Inner.Field)))
    R.Field = Inner.Field;
  if (!R.Placed)
    return R;
  if (!Inner.Placed) {
    R.Placed = false;
    return R;
  }
  // A member inside a member known by name only: its path tells it from
  // its siblings.
  if (Inner.MemberName && R.MemberName) {
    R.InnerPath = MemberPath::get(R.InnerPath, Inner.MemberName);
    R.Begin = 0;
    R.End = NoEnd;
  }
  if (Inner.Member && !R.Member && !R.MemberName) {
    // Offsets inside the member are relative to it from here on.
    R.Member = Inner.Member;
    R.Begin = 0;
    R.End = NoEnd;
  }
  if (Inner.MemberName && !R.Member && !R.MemberName) {
    R.MemberName = Inner.MemberName;
    R.Begin = 0;
    R.End = NoEnd;
  }
  uint64_t NewEnd = R.End;
  if (Inner.End != NoEnd)
    NewEnd = std::min(R.End, R.Begin + Inner.End);
  R.Begin += Inner.Begin;
  R.End = NewEnd;
  R.Carved |= Inner.Carved;
  return R;
}

static bool rootsMayAlias(const MemRoot &A, const MemRoot &B) {
  // Parameters and `this` may be bound to any object by a caller.
  if (A.Kind == MemRoot::Param || A.Kind == MemRoot::This ||
      A.Kind == MemRoot::ThisValue || B.Kind == MemRoot::Param ||
      B.Kind == MemRoot::This || B.Kind == MemRoot::ThisValue)
    return true;
  if (A.Kind != B.Kind)
    return false;
  if (A.Kind != MemRoot::DynamicShared && A.Var != B.Var)
    return false;
  return A.overlaps(B);
}

bool AliasSet::mayAlias(const AliasSet &O) const {
  if (empty() || O.empty())
    return false;
  if (Unknown || O.Unknown)
    return true;
  for (const MemRoot &A : Roots)
    for (const MemRoot &B : O.Roots)
      if (rootsMayAlias(A, B))
        return true;
  return false;
}

static bool isCallerBound(const MemRoot &R) {
  return R.Kind == MemRoot::Param || R.Kind == MemRoot::This ||
         R.Kind == MemRoot::ThisValue;
}

bool AliasSet::mayAliasLocally(const AliasSet &O) const {
  auto local = [](const AliasSet &S) {
    AliasSet L;
    L.Unknown = S.Unknown;
    for (const MemRoot &R : S.Roots)
      if (!isCallerBound(R))
        L.add(R);
    return L;
  };
  return local(*this).mayAlias(local(O));
}

bool AliasSet::overlapsInSameCallerObject(const AliasSet &O) const {
  for (const MemRoot &A : Roots)
    for (const MemRoot &B : O.Roots)
      if (A.Kind == B.Kind &&
          ((A.Kind == MemRoot::Param && A.Var == B.Var && A.ByRef == B.ByRef) ||
           A.Kind == MemRoot::This) &&
          A.overlaps(B))
        return true;
  return false;
}

bool AliasSet::hasParamPlace() const {
  for (const MemRoot &R : Roots)
    if (R.Place && R.Place->Base.mentions(isParamSymbol))
      return true;
  return false;
}

bool AliasSet::hasParamGroup() const {
  for (const MemRoot &R : Roots)
    if (R.PrivateTo && R.PrivateTo->ByParam)
      return true;
  return false;
}

bool AliasSet::hasParamOrThis() const {
  for (const MemRoot &R : Roots)
    if (R.Kind == MemRoot::Param || R.Kind == MemRoot::This ||
        R.Kind == MemRoot::ThisValue)
      return true;
  return false;
}

std::string AliasSet::describeMemory() const {
  if (Unknown || Roots.empty())
    return "shared memory";
  // Several dynamic-shared roots (two offsets) name themselves once too.
  std::string Names = describe();
  if (Names == "dynamic shared memory")
    return Names;
  return "shared memory " + Names;
}

/// "SharedStorage::C", and through unnamed structs and unions the fields
/// that hold them: "SharedStorage::tensors.D" for `union {...} tensors;`.
static std::string qualifiedFieldName(const FieldDecl *FD) {
  std::string Name = FD->getNameAsString();
  const RecordDecl *RD = FD->getParent();
  while (RD->getName().empty()) {
    const auto *Outer = dyn_cast<RecordDecl>(RD->getParent());
    const FieldDecl *Holder = nullptr;
    if (Outer)
      for (const FieldDecl *F : Outer->fields())
        if (F->getType()->getAsRecordDecl() == RD)
          Holder = F;
    if (!Holder)
      break;
    if (!Holder->getName().empty())
      Name = Holder->getNameAsString() + "." + Name;
    RD = Outer;
  }
  return RD->getNameAsString() + "::" + Name;
}

/// How a message names root \p R.
static std::string rootName(const MemRoot &R) {
  // The field says which buffer of dynamic shared memory; the record names
  // whose. A named `__shared__` variable names itself.
  if (R.Field && R.Kind != MemRoot::SharedVar)
    return "'" + qualifiedFieldName(R.Field) + "'";
  // A member of a dependent shared-storage struct: which one.
  if (R.Member && R.Kind != MemRoot::SharedVar)
    return "'" + qualifiedFieldName(R.Member) + "'";
  if (R.MemberName && R.Var) {
    std::string Name = R.Var->getNameAsString() + "." +
                       R.MemberName->getName().str();
    std::string Inner;
    for (const MemberPath *P = R.InnerPath; P; P = P->Parent)
      Inner = "." + P->Name->getName().str() + Inner;
    Name += Inner;
    return "'" + Name + "'";
  }
  switch (R.Kind) {
  case MemRoot::DynamicShared:
    return "dynamic shared memory";
  case MemRoot::This:
  case MemRoot::ThisValue:
    return "'*this'";
  default:
    return "'" + R.Var->getNameAsString() + "'";
  }
}

std::string AliasSet::describe() const {
  if (Unknown || Roots.empty())
    return "shared memory";
  // Roots that differ only in what a message cannot show (two
  // instantiations' fields, a field reached two ways) are named once.
  std::vector<std::string> Names;
  for (const MemRoot &R : Roots)
    if (std::string N = rootName(R); !llvm::is_contained(Names, N))
      Names.push_back(std::move(N));
  std::string Out;
  for (size_t I = 0; I < Names.size(); ++I) {
    if (I)
      Out += I + 1 == Names.size() ? " or " : ", ";
    Out += Names[I];
  }
  return Out;
}

bool MemoryModel::isSharedVar(const VarDecl *V) {
  return V && V->hasAttr<CUDASharedAttr>();
}

static bool isKernel(const FunctionDecl *Fn) {
  return Fn && Fn->hasAttr<CUDAGlobalAttr>();
}

static MemRoot sharedRoot(const VarDecl *V) {
  MemRoot R;
  // `extern __shared__ T buf[];` arrays all start at the dynamic smem base.
  if (V->hasExternalStorage() && V->getType()->isIncompleteArrayType())
    R.Kind = MemRoot::DynamicShared;
  else {
    R.Kind = MemRoot::SharedVar;
    R.Var = V;
  }
  return R;
}

/// A kernel's parameter: a pointer (or an object holding pointers) the host
/// passed points to no shared memory of this CTA; an integer may still be
/// a shared-window address the host computed.
static AliasSet kernelParameter(const ParmVarDecl *P) {
  return P->getType()->isIntegralOrEnumerationType() ? AliasSet()
                                                     : AliasSet::kernelArgument();
}

static AliasSet paramRoot(const ParmVarDecl *P, bool ByRef) {
  AliasSet S;
  MemRoot R;
  R.Kind = MemRoot::Param;
  R.ParamIndex = P->getFunctionScopeIndex();
  R.Var = P;
  R.ByRef = ByRef;
  S.add(R);
  return S;
}

/// How many array dimensions \p E still has where the pattern leaves its
/// type dependent but names an array member of a dependent struct
/// (`smem.stages` of `T stages[S][N]`: 2; `smem.stages[s]`: 1).
static unsigned patternArrayRank(const Expr *E) {
  E = E->IgnoreParens();
  if (!E->isTypeDependent())
    return 0;
  if (const auto *DM = dyn_cast<CXXDependentScopeMemberExpr>(E)) {
    const FieldDecl *FD = DM->isImplicitAccess() ? nullptr : patternField(DM);
    unsigned Rank = 0;
    for (QualType T = FD ? FD->getType() : QualType();
         !T.isNull() && T->isArrayType();
         T = T->getAsArrayTypeUnsafe()->getElementType())
      ++Rank;
    return Rank;
  }
  if (const auto *ASE = dyn_cast<ArraySubscriptExpr>(E)) {
    unsigned Base = patternArrayRank(subscriptBase(ASE));
    return Base ? Base - 1 : 0;
  }
  return 0;
}

/// In a template pattern, `a[i]` or `*a` where `a` is neither a pointer nor
/// an array but of a type that depends on template parameters (a
/// `cuda::std::array<T, N>`, a `T`): an operator of some class, or of a
/// pointer only an instantiation knows; not guessed to be an access.
static bool isObjectOfDependentType(const Expr *Base) {
  QualType T = Base->IgnoreParenImpCasts()->getType();
  if (!T->isDependentType() || T->isPointerType() || T->isArrayType() ||
      patternArrayRank(Base) > 0)
    return false;
  // `*v[i]` where `v[i]` is known to give a pointer all the same.
  QualType Known = patternType(Base);
  return Known.isNull() || (!Known->isPointerType() && !Known->isArrayType());
}

/// The argument of `std::forward(x)`, `std::move(x)` and the like: casts
/// that clang treats as builtins and leaves without an instantiated body.
static const Expr *castCallArgument(const Expr *E) {
  const auto *Call = dyn_cast<CallExpr>(E);
  if (!Call || Call->getNumArgs() != 1)
    return nullptr;
  switch (Call->getBuiltinCallee()) {
  case Builtin::BIforward:
  case Builtin::BIforward_like:
  case Builtin::BImove:
  case Builtin::BImove_if_noexcept:
  case Builtin::BIas_const:
    return Call->getArg(0);
  default:
    return nullptr;
  }
}

AliasSet MemoryModel::objectOf(const Expr *E, const FunctionDecl *Fn) {
  if (!E)
    return {};
  E = E->IgnoreParens();
  if (const Expr *Arg = castCallArgument(E))
    return objectOf(Arg, Fn);
  // `return data()[i];` destroys the temporary `data()` after the return.
  if (const auto *FE = dyn_cast<FullExpr>(E))
    return objectOf(FE->getSubExpr(), Fn);
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    // `auto [g, s] = ...`: a binding names a member, an element, or a
    // hidden variable initialised by `get<I>(...)`.
    if (const auto *BD = dyn_cast<BindingDecl>(DRE->getDecl()))
      return objectOf(BD->getBinding(), Fn);
    const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
    if (!V)
      return {};
    if (isSharedVar(V)) {
      AliasSet S;
      S.add(sharedRoot(V));
      return S;
    }
    if (!V->getType()->isReferenceType())
      return {};
    if (const auto *P = dyn_cast<ParmVarDecl>(V)) {
      const auto *Owner = dyn_cast_or_null<FunctionDecl>(P->getDeclContext());
      return isKernel(Owner) ? kernelParameter(P)
                             : paramRoot(P, /*ByRef=*/true);
    }
    return V->getInit() ? objectOf(V->getInit(), Fn) : AliasSet();
  }
  if (const auto *ASE = dyn_cast<ArraySubscriptExpr>(E)) {
    if (const CXXMethodDecl *Op = subscriptCallable(ASE->getLHS(), 1))
      return Op->getReturnType()->isReferenceType()
                 ? subscriptValue(ASE, Op, Fn)
                 : AliasSet(); // a temporary
    const Expr *Array = subscriptBase(ASE);
    if (isObjectOfDependentType(Array)) {
      // Whatever the member is (an array, an array-like class stored in
      // place), an element of an object that lies in shared memory lies
      // there too: `s.tile[i]` of `Storage &s = *(Storage *)smem`, or of a
      // `SharedStorage &s` parameter (what the caller binds).
      AliasSet Object = objectOf(Array, Fn);
      return Object.isUnknown() ? AliasSet() : Object;
    }
    auto Carved = carve(Array, subscriptIndex(ASE), false, Fn);
    return separated(Carved ? *Carved : valueOf(Array, Fn),
                     subscriptIndex(ASE));
  }
  if (std::optional<UnaryOperation> U = unaryOperation(E)) {
    if (U->Opcode == UO_Deref && !isObjectOfDependentType(U->Operand))
      return valueOf(U->Operand, Fn);
    return {};
  }
  if (const auto *ME = dyn_cast<MemberExpr>(E)) {
    // `tile.rows` of a static member: that variable, not the object.
    if (const auto *V = dyn_cast<VarDecl>(ME->getMemberDecl())) {
      AliasSet S;
      if (isSharedVar(V))
        S.add(sharedRoot(V));
      return S;
    }
    AliasSet Base = ME->isArrow() ? valueOf(ME->getBase(), Fn)
                                  : objectOf(ME->getBase(), Fn);
    if (const auto *FD = dyn_cast<FieldDecl>(ME->getMemberDecl()))
      return field(Base, FD);
    return Base;
  }
  // `s.f` / `p->f` of a template pattern, where the member's type depends on
  // template parameters.
  if (const auto *ME = dyn_cast<CXXDependentScopeMemberExpr>(E)) {
    if (ME->isImplicitAccess())
      return {};
    AliasSet Base = ME->isArrow() ? valueOf(ME->getBase(), Fn)
                                  : objectOf(ME->getBase(), Fn);
    if (const FieldDecl *FD = patternField(ME))
      return field(Base, FD);
    return memberNamed(Base, ME->getMember().getAsIdentifierInfo());
  }
  if (const auto *CE = dyn_cast<CastExpr>(E)) {
    if (CE->getCastKind() == CK_DerivedToBase ||
        CE->getCastKind() == CK_UncheckedDerivedToBase)
      return baseSubobject(objectOf(CE->getSubExpr(), Fn), CE);
    return objectOf(CE->getSubExpr(), Fn);
  }
  // A temporary (`uint32_t const &a = cast_smem_ptr_to_uint(p)`, a value
  // bound to a const& parameter) is a fresh object, never shared memory,
  // whatever address it holds.
  if (isa<MaterializeTemporaryExpr>(E))
    return {};
  if (const auto *CO = dyn_cast<AbstractConditionalOperator>(E)) {
    AliasSet S = objectOf(CO->getTrueExpr(), Fn);
    S.merge(objectOf(CO->getFalseExpr(), Fn));
    return S;
  }
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    // Only a call returning a reference designates an existing object.
    if (Call->isGLValue())
      return callValue(Call, Fn);
    // A pattern's call waits for the instantiation to have a value
    // category; its one candidate's return type tells it (`tile.at(r, c)`).
    if (Call->isTypeDependent()) {
      DependentCallee D = dependentCallee(Call);
      if (D.Viable.size() == 1 &&
          D.Viable.front()->getReturnType()->isReferenceType())
        return callValue(Call, Fn);
    }
    return {};
  }
  return {};
}

/// \p E without parentheses, implicit casts, and the explicit casts that
/// still designate the same object: `static_cast<S &&>(s)` (forwarding,
/// also spelled `std::forward<S>(s)`), a const-adding cast, a base-class
/// view.
static const Expr *ignoreSameObjectCasts(const Expr *E) {
  while (true) {
    E = E->IgnoreParenImpCasts();
    if (const Expr *Arg = castCallArgument(E)) {
      E = Arg;
      continue;
    }
    const auto *CE = dyn_cast<ExplicitCastExpr>(E);
    if (!CE || (CE->getCastKind() != CK_NoOp &&
                CE->getCastKind() != CK_DerivedToBase &&
                CE->getCastKind() != CK_UncheckedDerivedToBase))
      return E;
    E = CE->getSubExpr();
  }
}

/// ignoreSameObjectCasts, also looking through reinterpreting casts to a
/// reference: the bytes, and so what they hold, are the same.
static const Expr *ignoreSameBytesCasts(const Expr *E) {
  while (true) {
    E = ignoreSameObjectCasts(E);
    const auto *CE = dyn_cast<ExplicitCastExpr>(E);
    if (!CE || CE->getCastKind() != CK_LValueBitCast)
      return E;
    E = CE->getSubExpr();
  }
}

static const Expr *localPointee(const Expr *Base);

/// The local variable at the root of `v`, `v.a.b` or `v[i].a` (an aggregate
/// held in registers, such as a matrix descriptor built field by field), or
/// `p[i]` where the local pointer `p` is initialised to such an aggregate
/// (`auto p = reinterpret_cast<uint32_t *>(regs)`). An element reached
/// through any other pointer is elsewhere, not part of the pointer.
static const VarDecl *localAggregateRoot(const Expr *E) {
  while (true) {
    E = ignoreSameObjectCasts(E);
    if (const auto *ME = dyn_cast<MemberExpr>(E)) {
      if (ME->isArrow())
        return nullptr;
      E = ME->getBase();
    } else if (const auto *ASE = dyn_cast<ArraySubscriptExpr>(E)) {
      const Expr *Base = ASE->getBase()->IgnoreParenImpCasts();
      if (Base->getType()->isArrayType() || Base->getType()->isDependentType())
        E = Base;
      else if (!(E = localPointee(Base)))
        return nullptr;
    } else if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
      const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
      return V && V->hasLocalStorage() && !isa<ParmVarDecl>(V) ? V : nullptr;
    } else {
      return nullptr;
    }
  }
}

/// The local aggregate that the local pointer \p Base was initialised to
/// point at (`&desc`, an array decayed, through any cast), or null.
static const Expr *localPointee(const Expr *Base) {
  const auto *DRE = dyn_cast<DeclRefExpr>(Base);
  const auto *P = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  if (!P || isa<ParmVarDecl>(P) || !P->hasLocalStorage() ||
      !P->getType()->isPointerType() || !P->getInit())
    return nullptr;
  const Expr *Init = P->getInit()->IgnoreParenImpCasts();
  while (const auto *CE = dyn_cast<ExplicitCastExpr>(Init))
    Init = CE->getSubExpr()->IgnoreParenImpCasts();
  if (std::optional<UnaryOperation> U = unaryOperation(Init);
      U && U->Opcode == UO_AddrOf)
    return U->Operand;
  return Init->getType()->isArrayType() ? Init : nullptr;
}

/// The parameter at the root of `p.a.b` or `p.a[i]` (an aggregate passed by
/// value or by reference).
static const ParmVarDecl *paramAggregateRoot(const Expr *E) {
  bool SawMember = false;
  while (true) {
    E = ignoreSameObjectCasts(E);
    if (const auto *ME = dyn_cast<MemberExpr>(E)) {
      if (ME->isArrow())
        return nullptr;
      SawMember = true;
      E = ME->getBase();
    } else if (const auto *ASE = dyn_cast<ArraySubscriptExpr>(E)) {
      if (!ASE->getBase()->IgnoreImpCasts()->getType()->isArrayType())
        return nullptr;
      E = ASE->getBase();
    } else if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
      return SawMember ? dyn_cast<ParmVarDecl>(DRE->getDecl()) : nullptr;
    } else {
      return nullptr;
    }
  }
}

AliasSet MemoryModel::valueOf(const Expr *E, const FunctionDecl *Fn) {
  if (!E)
    return {};
  E = E->IgnoreParens();
  if (const Expr *Arg = castCallArgument(E))
    return valueOf(Arg, Fn);
  if (const auto *CE = dyn_cast<CastExpr>(E)) {
    const Expr *Sub = CE->getSubExpr();
    switch (CE->getCastKind()) {
    case CK_ArrayToPointerDecay:
      return objectOf(Sub, Fn);
    case CK_LValueToRValue:
      return loadedValue(Sub, Fn);
    case CK_DerivedToBase:
    case CK_UncheckedDerivedToBase:
      return baseSubobject(valueOf(Sub, Fn), CE);
    default:
      return valueOf(Sub, Fn);
    }
  }
  // A template pattern does not decay an array of dependent type (`float
  // v[N / 4]`, a `__shared__` one it casts), nor a row of one (`buf[stage]`):
  // the array used as a value is its address, not the elements it holds.
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
    if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
        V && (V->getType()->isArrayType() ||
              (isSharedVar(V) && V->getType()->isDependentType())))
      return objectOf(E, Fn);
  if (isa<ArraySubscriptExpr, MemberExpr>(E) && E->getType()->isArrayType())
    return objectOf(E, Fn);
  // `smem.stages[s]` where `smem`'s type is dependent: a row of an array
  // member, used as its address.
  if (patternArrayRank(E) > 0)
    return objectOf(E, Fn);
  // `s.tile` passed as an address, where `s`'s type is a template
  // parameter: a member of storage in shared memory is held there (an
  // array, used as its address), not a pointer to elsewhere.
  if (const auto *DM = dyn_cast<CXXDependentScopeMemberExpr>(E);
      DM && !DM->isImplicitAccess() && !DM->isArrow() && !patternField(DM)) {
    AliasSet Object = objectOf(E, Fn);
    if (!Object.empty() && !Object.isUnknown())
      return Object;
  }
  // `v[i]` of a visitor whose stored lambda computes the element.
  if (const auto *ASE = dyn_cast<ArraySubscriptExpr>(E))
    if (const CXXMethodDecl *Op = subscriptCallable(ASE->getLHS(), 1);
        Op && !Op->getReturnType()->isReferenceType())
      return subscriptValue(ASE, Op, Fn);
  // An object used as a value: a reference parameter's argument, the source
  // of a copy, the object a conversion operator is called on.
  if (E->isGLValue() && isa<DeclRefExpr, MemberExpr>(E))
    return loadedValue(E, Fn);
  if (const auto *CE = dyn_cast<CXXConstructExpr>(E)) {
    // A copy or move keeps what the source object holds; another
    // constructor, what it stores from its arguments.
    const CXXConstructorDecl *CD = CE->getConstructor();
    if (!CD)
      return {};
    if (CD->isCopyOrMoveConstructor() && CE->getNumArgs() >= 1)
      return valueOf(CE->getArg(0), Fn);
    return substitute(ctorValue(CD), CE, Fn);
  }
  if (const auto *BT = dyn_cast<CXXBindTemporaryExpr>(E))
    return valueOf(BT->getSubExpr(), Fn);
  // `Tile(p)`, `Tile{p}` in a pattern: what a constructor stores (an
  // aggregate's braces are read below).
  if (const auto *UC = dyn_cast<CXXUnresolvedConstructExpr>(E))
    if (AliasSet S = patternConstructed(UC->getTypeAsWritten(),
                                        {UC->arg_begin(), UC->arg_end()}, Fn);
        !S.empty())
      return S;
  if (const auto *IL = dyn_cast<InitListExpr>(E);
      IL && IL->getType()->isDependentType())
    if (AliasSet S = patternConstructed(IL->getType(),
                                        {IL->getInits(), IL->getNumInits()}, Fn);
        !S.empty())
      return S;
  if (std::optional<UnaryOperation> U = unaryOperation(E)) {
    if (U->Opcode == UO_AddrOf)
      return objectOf(U->Operand, Fn);
    if (U->Opcode == UO_Deref || U->Opcode == UO_LNot)
      return {};
    return valueOf(U->Operand, Fn);
  }
  if (const auto *BO = dyn_cast<BinaryOperator>(E)) {
    if (BO->isAssignmentOp() || BO->getOpcode() == BO_Comma)
      return valueOf(BO->getRHS(), Fn);
    if (BO->isComparisonOp() || BO->isLogicalOp())
      return {};
    return arithmeticValue(BO->getLHS(), BO->getRHS(), BO->getOpcode(), Fn);
  }
  // `p + i` where a pattern leaves `p` dependent and lookup found operator
  // overloads (cuda_bf16.h declares some): resolved at instantiation, an
  // address computed from what either side holds all the same.
  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(E);
      OC && !OC->getDirectCallee() && OC->getNumArgs() == 2 &&
      (OC->getOperator() == OO_Plus || OC->getOperator() == OO_Minus))
    return arithmeticValue(OC->getArg(0), OC->getArg(1),
                           OC->getOperator() == OO_Plus ? BO_Add : BO_Sub, Fn);
  if (const auto *CO = dyn_cast<AbstractConditionalOperator>(E)) {
    AliasSet S = valueOf(CO->getTrueExpr(), Fn);
    S.merge(valueOf(CO->getFalseExpr(), Fn));
    return S;
  }
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    // An accessor returning a reference used as a value: what the object
    // it returns holds (and, as before, the object itself).
    AliasSet S = callValue(Call, Fn);
    if (Call->isGLValue())
      S.merge(loadedValue(Call, Fn));
    // A pattern's CuTe tensor of shared memory, or a pointer into one
    // (`raw_pointer_cast(sD.data())` with `sD = make_tensor(make_smem_ptr(p),
    // layout)`, or `sD(_, stage)` itself): the tensor's own reading, where
    // lookup says nothing.
    if (S.empty() && Call->isTypeDependent() && TensorPointee &&
        !InCuteTensor) {
      InCuteTensor = true;
      S = TensorPointee(Call, Fn);
      InCuteTensor = false;
    }
    return S;
  }
  if (isa<CXXThisExpr>(E)) {
    AliasSet S;
    MemRoot R;
    R.Kind = MemRoot::This;
    R.Var = thisCapturedBy(Fn); // a lambda's: the enclosing member's
    S.add(R);
    return S;
  }
  if (const auto *MTE = dyn_cast<MaterializeTemporaryExpr>(E))
    return valueOf(MTE->getSubExpr(), Fn);
  // An aggregate built from values (`ViewEngine{ptr}`) holds them all.
  if (const auto *IL = dyn_cast<InitListExpr>(E)) {
    if (const InitListExpr *Syn = IL->getSyntacticForm())
      IL = Syn;
    AliasSet S;
    for (const Expr *Init : IL->inits())
      S.merge(valueOf(Init, Fn));
    return S;
  }
  if (const auto *PL = dyn_cast<CXXParenListInitExpr>(E)) {
    AliasSet S;
    for (const Expr *Init : PL->getInitExprs())
      S.merge(valueOf(Init, Fn));
    return S;
  }
  if (const auto *EWC = dyn_cast<ExprWithCleanups>(E))
    return valueOf(EWC->getSubExpr(), Fn);
  if (const auto *DAE = dyn_cast<CXXDefaultArgExpr>(E))
    return valueOf(DAE->getExpr(), Fn);
  return {};
}

AliasSet MemoryModel::arithmeticValue(const Expr *L, const Expr *R,
                                      BinaryOperatorKind Op,
                                      const FunctionDecl *Fn) {
  // Pointer arithmetic keeps the pointer's object; integer arithmetic on
  // addresses (descriptors, cvta results) keeps whatever either side holds.
  bool Additive = Op == BO_Add || Op == BO_Sub;
  if (L->getType()->isPointerType()) {
    if (!Additive)
      return valueOf(L, Fn);
    auto Carved = carve(L, R, Op == BO_Sub, Fn);
    return separated(Carved ? *Carved : valueOf(L, Fn), R);
  }
  if (R->getType()->isPointerType()) {
    if (Op != BO_Add)
      return valueOf(R, Fn);
    auto Carved = carve(R, L, false, Fn);
    return separated(Carved ? *Carved : valueOf(R, Fn), L);
  }
  AliasSet S = valueOf(L, Fn), Other = valueOf(R, Fn);
  // An address held as an integer (`base + warp * kStride`).
  if (Additive && Other.empty())
    S = separated(std::move(S), R);
  else if (Op == BO_Add && S.empty())
    Other = separated(std::move(Other), L);
  S.merge(Other);
  return S;
}

AliasSet MemoryModel::separated(AliasSet S, const Expr *Offset) {
  if (S.empty() || S.isUnknown())
    return S;
  if (std::optional<ThreadGroup> G = Groups.separatedBy(Offset))
    S.makePrivateTo(*G);
  return S;
}

/// Whether \p E is `*this`.
static bool isDereferencedThis(const Expr *E) {
  const auto *UO = dyn_cast<UnaryOperator>(E->IgnoreParenImpCasts());
  return UO && UO->getOpcode() == UO_Deref &&
         isa<CXXThisExpr>(UO->getSubExpr()->IgnoreParenImpCasts());
}

/// Whether \p E is `this->f`, `this->f.g`, `(*this).f[i]` and the like.
/// The field of `*this` that \p E (`this->a.b[i]`, `a.b`) reads part of:
/// `a`; null where that is not a field.
static const FieldDecl *fieldUnderThis(const Expr *E) {
  while (true) {
    E = E->IgnoreParenImpCasts();
    if (const auto *ME = dyn_cast<MemberExpr>(E)) {
      if (isa<CXXThisExpr>(ME->getBase()->IgnoreParenImpCasts()))
        return dyn_cast<FieldDecl>(ME->getMemberDecl());
      E = ME->getBase();
    } else if (const auto *ASE = dyn_cast<ArraySubscriptExpr>(E)) {
      E = ASE->getBase();
    } else {
      return nullptr;
    }
  }
}

static bool isFieldOfThis(const Expr *E) {
  bool SawMember = false;
  while (true) {
    E = E->IgnoreParenImpCasts();
    if (const auto *ME = dyn_cast<MemberExpr>(E)) {
      SawMember = true;
      if (ME->isArrow())
        return isa<CXXThisExpr>(ME->getBase()->IgnoreParenImpCasts());
      E = ME->getBase();
    } else if (const auto *ASE = dyn_cast<ArraySubscriptExpr>(E)) {
      E = ASE->getBase()->IgnoreImpCasts();
      if (!E->getType()->isArrayType())
        return false; // an element through a pointer field: not *this's
    } else if (isa<UnaryOperator>(E)) {
      return SawMember && isDereferencedThis(E);
    } else {
      return false;
    }
  }
}

AliasSet MemoryModel::loadedValue(const Expr *Sub, const FunctionDecl *Fn) {
  // `static_cast<Args &&>(args)` still designates `args`: it holds the same,
  // and so does `reinterpret_cast<uint64_t const &>(desc)`, its bytes read
  // as another type.
  Sub = ignoreSameBytesCasts(Sub);
  if (const auto *DRE = dyn_cast<DeclRefExpr>(Sub)) {
    if (const auto *BD = dyn_cast<BindingDecl>(DRE->getDecl()))
      return BD->getBinding() ? loadedValue(BD->getBinding(), Fn) : AliasSet();
    const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
    if (!V)
      return {};
    if (const auto *P = dyn_cast<ParmVarDecl>(V)) {
      const auto *Owner = dyn_cast_or_null<FunctionDecl>(P->getDeclContext());
      return isKernel(Owner) ? kernelParameter(P) : paramRoot(P, false);
    }
    if (V->hasLocalStorage())
      return V->getType()->isReferenceType() ? valueOf(V->getInit(), Fn)
                                             : varValue(V, Fn);
    return {};
  }
  if (const VarDecl *Root = localAggregateRoot(Sub))
    return varValue(Root, Fn);
  // `Stage *p = odd ? a : b;`: arms of one type are an lvalue, loaded after
  // the choice; what either variable holds.
  if (const auto *CO = dyn_cast<AbstractConditionalOperator>(Sub)) {
    AliasSet S = loadedValue(CO->getTrueExpr(), Fn);
    S.merge(loadedValue(CO->getFalseExpr(), Fn));
    return S;
  }
  // A field of an aggregate parameter (`t.ptr_` of a `const Tuple &t`): what
  // the caller's argument holds.
  if (const ParmVarDecl *P = paramAggregateRoot(Sub)) {
    const auto *Owner = dyn_cast_or_null<FunctionDecl>(P->getDeclContext());
    return isKernel(Owner) ? AliasSet() : paramRoot(P, false);
  }
  // The object an accessor returns by reference (`begin()`, `data()`,
  // `get<I>(t)`): what that object holds.
  if (const auto *Call = dyn_cast<CallExpr>(Sub))
    if (const FunctionDecl *Callee = Call->getDirectCallee();
        Callee && Call->isGLValue())
      return substitute(returnedContents(Callee), Call, Callee, Fn);
  if (isFieldOfThis(Sub)) {
    AliasSet S;
    MemRoot R;
    R.Kind = MemRoot::ThisValue;
    R.Var = thisCapturedBy(Fn);
    R.LoadedField = fieldUnderThis(Sub);
    S.add(R);
    return S;
  }
  return {};
}

namespace {
/// Collects every value stored into local variables of one function body:
/// initialisers, plain and compound assignments, and assignments to fields
/// or elements of local aggregates.
class AssignmentIndexer : public RecursiveASTVisitor<AssignmentIndexer> {
public:
  explicit AssignmentIndexer(
      llvm::DenseMap<const VarDecl *, llvm::SmallVector<const Expr *, 4>> &Out)
      : Out(Out) {}
  bool VisitVarDecl(VarDecl *V) {
    if (V->hasLocalStorage() && V->getInit())
      Out[V].push_back(V->getInit());
    return true;
  }
  bool VisitBinaryOperator(BinaryOperator *BO) {
    if (BO->isAssignmentOp())
      record(BO->getLHS(), BO->getRHS());
    return true;
  }
  bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *OC) {
    if (OC->isAssignmentOp() && OC->getNumArgs() == 2)
      record(OC->getArg(0), OC->getArg(1));
    return true;
  }

private:
  /// A store into a local also stores into the local that a reference
  /// variable is bound to: `auto &w = reinterpret_cast<uint32_t(&)[2]>(desc);
  /// w[0] += addr;` puts the address into `desc`.
  void record(const Expr *Target, const Expr *Value) {
    const VarDecl *V = localAggregateRoot(Target);
    for (unsigned Depth = 0; V && Depth < 4; ++Depth) {
      Out[V].push_back(Value);
      V = referencedLocal(V);
    }
  }
  static const VarDecl *referencedLocal(const VarDecl *V) {
    if (!V->getType()->isReferenceType() || !V->getInit())
      return nullptr;
    const VarDecl *Bound = localAggregateRoot(ignoreSameBytesCasts(V->getInit()));
    return Bound != V ? Bound : nullptr;
  }

  llvm::DenseMap<const VarDecl *, llvm::SmallVector<const Expr *, 4>> &Out;
};
} // namespace

const llvm::SmallVector<const Expr *, 4> &
MemoryModel::assignments(const VarDecl *V) {
  const DeclContext *DC = V->getParentFunctionOrMethod();
  if (DC && !AssignmentsIndexed.count(DC)) {
    AssignmentsIndexed[DC] = true;
    if (const auto *FD = dyn_cast<FunctionDecl>(DC))
      if (Stmt *Body = FD->getBody())
        AssignmentIndexer(Assigned).TraverseStmt(Body);
  }
  return Assigned[V];
}

AliasSet MemoryModel::varValue(const VarDecl *V, const FunctionDecl *Fn) {
  auto Cached = VarValues.find(V);
  if (Cached != VarValues.end())
    return Cached->second;
  if (InProgress.count(V))
    return {};
  InProgress[V] = true;
  const auto *Owner = dyn_cast_or_null<FunctionDecl>(
      V->getParentFunctionOrMethod());
  AliasSet S;
  // Copy: resolving a value may index another function and grow the map.
  llvm::SmallVector<const Expr *, 4> Values = assignments(V);
  for (const Expr *Value : Values) {
    // `Tile t(p);` in a pattern: constructor arguments with no type yet.
    if (const auto *PL = dyn_cast<ParenListExpr>(Value)) {
      llvm::SmallVector<const Expr *, 4> Args;
      for (unsigned I = 0; I < PL->getNumExprs(); ++I)
        Args.push_back(PL->getExpr(I));
      S.merge(patternConstructed(V->getType(), Args, Owner ? Owner : Fn));
      continue;
    }
    S.merge(valueOf(Value, Owner ? Owner : Fn));
  }
  InProgress.erase(V);
  VarValues[V] = S;
  return S;
}

AliasSet MemoryModel::returnOf(const FunctionDecl *Callee) {
  const FunctionDecl *Def = bodyToRead(Callee);
  if (!Def)
    return {};
  auto Cached = Returns.find(Def);
  if (Cached != Returns.end())
    return Cached->second;
  if (InProgress.count(Def))
    return {};
  InProgress[Def] = true;
  auto Values = returnValues(Def->getBody());
  bool ByRef = Def->getReturnType()->isReferenceType();
  AliasSet S;
  for (const Expr *V : Values)
    S.merge(ByRef ? objectOf(V, Def) : valueOf(V, Def));
  InProgress.erase(Def);
  Returns[Def] = S;
  return S;
}

AliasSet MemoryModel::returnedContents(const FunctionDecl *Callee) {
  const FunctionDecl *Def = bodyToRead(Callee);
  if (!Def || !Def->getReturnType()->isReferenceType())
    return {};
  auto Cached = ReturnContents.find(Def);
  if (Cached != ReturnContents.end())
    return Cached->second;
  // Its own key: returnOf may be in progress for the same function.
  const void *Key = reinterpret_cast<const char *>(Def) + 1;
  if (InProgress.count(Key))
    return {};
  InProgress[Key] = true;
  auto Values = returnValues(Def->getBody());
  AliasSet S;
  for (const Expr *V : Values)
    S.merge(loadedValue(V, Def));
  InProgress.erase(Key);
  ReturnContents[Def] = S;
  return S;
}

namespace {
/// Values a constructor body assigns to fields of `*this`.
class FieldStoreCollector : public RecursiveASTVisitor<FieldStoreCollector> {
public:
  llvm::SmallVector<const Expr *, 4> Values;
  bool VisitBinaryOperator(BinaryOperator *BO) {
    if (BO->isAssignmentOp() && isFieldOfThis(BO->getLHS()))
      Values.push_back(BO->getRHS());
    return true;
  }
  bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *OC) {
    if (OC->isAssignmentOp() && OC->getNumArgs() == 2 &&
        isFieldOfThis(OC->getArg(0)))
      Values.push_back(OC->getArg(1));
    return true;
  }
  bool TraverseLambdaExpr(LambdaExpr *) { return true; }
};
} // namespace

/// The one value a member initialiser gives: `base(p)` in a pattern is a
/// list of one expression, with no type until the instantiation.
static const Expr *initializerValue(const Expr *Init) {
  if (const auto *PL = dyn_cast<ParenListExpr>(Init);
      PL && PL->getNumExprs() == 1)
    return PL->getExpr(0);
  if (const auto *IL = dyn_cast<InitListExpr>(Init);
      IL && IL->getNumInits() == 1 && IL->getType()->isDependentType())
    return IL->getInit(0);
  return Init;
}

AliasSet MemoryModel::ctorValue(const CXXConstructorDecl *Ctor) {
  // `using Base::Base;` passes its arguments on unchanged.
  if (Ctor->isInheritingConstructor())
    if (const CXXConstructorDecl *Inherited =
            Ctor->getInheritedConstructor().getConstructor())
      return ctorValue(Inherited);
  const FunctionDecl *Def = bodyToRead(Ctor);
  if (!Def)
    return {};
  auto Cached = CtorValues.find(Def);
  if (Cached != CtorValues.end())
    return Cached->second;
  if (InProgress.count(Def))
    return {};
  InProgress[Def] = true;
  AliasSet S;
  if (const auto *CD = dyn_cast<CXXConstructorDecl>(Def))
    for (const CXXCtorInitializer *Init : CD->inits())
      if (Init->isWritten() || Init->isBaseInitializer())
        S.merge(valueOf(initializerValue(Init->getInit()), Def));
  FieldStoreCollector FC;
  FC.TraverseStmt(Def->getBody());
  for (const Expr *V : FC.Values)
    S.merge(valueOf(V, Def));
  InProgress.erase(Def);
  CtorValues[Def] = S;
  return S;
}

/// The objects \p S designates, narrowed to the part \p Inner names.
static AliasSet narrowAll(const AliasSet &S, const MemRoot &Inner) {
  AliasSet Out;
  if (S.isUnknown())
    Out = AliasSet::unknown();
  for (const MemRoot &R : S.roots())
    // A value loaded from `*this` is not the object the part belongs to.
    Out.add(R.Kind == MemRoot::ThisValue ? R : R.narrowedTo(Inner));
  return Out;
}

AliasSet MemoryModel::memberNamed(const AliasSet &S,
                                   const IdentifierInfo *Name) {
  if (S.empty() || !Name)
    return S;
  MemRoot Inner;
  Inner.MemberName = Name;
  return narrowAll(S, Inner);
}

AliasSet MemoryModel::field(const AliasSet &S, const FieldDecl *FD) {
  const RecordDecl *RD = FD->getParent();
  if (S.empty() || RD->isInvalidDecl())
    return S;
  MemRoot Inner;
  if (RD->isDependentType() || !RD->isCompleteDefinition() ||
      FD->getType()->isDependentType()) {
    // No layout: the member itself says which part.
    Inner.Field = FD;
    Inner.Member = FD;
    return narrowAll(S, Inner);
  }
  Inner.Field = FD;
  Inner.Begin = Ctx.getASTRecordLayout(RD).getFieldOffset(
                    FD->getFieldIndex()) / Ctx.getCharWidth();
  QualType T = FD->getType();
  if (!T->isIncompleteType() && !T->isSizelessType())
    Inner.End = Inner.Begin + Ctx.getTypeSizeInChars(T).getQuantity();
  return narrowAll(S, Inner);
}

AliasSet MemoryModel::baseSubobject(const AliasSet &S, const CastExpr *CE) {
  if (S.empty())
    return S;
  MemRoot Inner;
  QualType From = CE->getSubExpr()->getType();
  if (From->isPointerType())
    From = From->getPointeeType();
  const CXXRecordDecl *Derived = From->getAsCXXRecordDecl();
  for (const CXXBaseSpecifier *B : CE->path()) {
    const CXXRecordDecl *Base = B->getType()->getAsCXXRecordDecl();
    if (!Derived || !Base || B->isVirtual() || Derived->isInvalidDecl() ||
        Derived->isDependentType() || !Derived->hasDefinition()) {
      Inner.Placed = false;
      break;
    }
    Inner.Begin +=
        Ctx.getASTRecordLayout(Derived).getBaseClassOffset(Base).getQuantity();
    Derived = Base;
  }
  return narrowAll(S, Inner);
}

std::optional<AliasSet> MemoryModel::carve(const Expr *Ptr, const Expr *Offset,
                                           bool Negate, const FunctionDecl *Fn) {
  const auto *DRE = dyn_cast<DeclRefExpr>(Ptr->IgnoreParenCasts());
  const auto *V = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  if (!V || !isSharedVar(V) || sharedRoot(V).Kind != MemRoot::DynamicShared)
    return carveSymbolic(Ptr, Offset, Negate, Fn);
  MemRoot R = sharedRoot(V);
  QualType Elem = Ptr->getType()->isPointerType()
                      ? Ptr->getType()->getPointeeType()
                      : QualType();
  Expr::EvalResult K;
  if (Negate || Elem.isNull() || Elem->isIncompleteType() ||
      Elem->isDependentType() || Offset->isValueDependent() ||
      !Offset->EvaluateAsInt(K, Ctx) || K.Val.getInt().isNegative()) {
    if (Offset->isValueDependent() || (!Elem.isNull() && Elem->isDependentType()))
      return carveSymbolic(Ptr, Offset, Negate, Fn);
    if (std::optional<StageRange> Range = stageRange(Offset, Fn);
        Range && Range->Counted && !Negate && !Elem.isNull() &&
        !Elem->isIncompleteType()) {
      // A stage array filled by a bounded loop: every stage it reaches.
      uint64_t Size = Ctx.getTypeSizeInChars(Elem).getQuantity();
      R.Begin = uint64_t(Range->Low) * Size;
      R.End = uint64_t(Range->High) * Size;
    } else {
      R.Placed = false; // somewhere in dynamic shared memory
    }
  } else {
    R.Carved = true;
    R.Begin = K.Val.getInt().getZExtValue() *
              Ctx.getTypeSizeInChars(Elem).getQuantity();
  }
  AliasSet S;
  S.add(R);
  return S;
}

static bool namesVar(const Expr *E, const VarDecl *V) {
  const auto *Ref = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
  return Ref && Ref->getDecl() == V;
}

/// Whether \p Inc only counts \p V up: `++i`, `i++`, `i += C` (C > 0).
static bool countsUp(const Expr *Inc, const VarDecl *V) {
  if (!Inc)
    return false;
  Inc = Inc->IgnoreParenImpCasts();
  if (const auto *UO = dyn_cast<UnaryOperator>(Inc))
    return UO->isIncrementOp() && namesVar(UO->getSubExpr(), V);
  const auto *BO = dyn_cast<BinaryOperator>(Inc);
  Expr::EvalResult Step;
  return BO && BO->getOpcode() == BO_AddAssign && namesVar(BO->getLHS(), V) &&
         !BO->getRHS()->isValueDependent() &&
         BO->getRHS()->EvaluateAsInt(Step, V->getASTContext()) &&
         Step.Val.getInt().isStrictlyPositive();
}

/// Whether \p Body assigns \p V or takes its address.
static bool assignedIn(const Stmt *Body, const VarDecl *V) {
  llvm::SmallVector<const Stmt *, 32> Work{Body};
  while (!Work.empty()) {
    const Stmt *S = Work.pop_back_val();
    if (!S)
      continue;
    if (const auto *BO = dyn_cast<BinaryOperator>(S);
        BO && BO->isAssignmentOp() && namesVar(BO->getLHS(), V))
      return true;
    if (const auto *E = dyn_cast<Expr>(S)) {
      std::optional<UnaryOperation> U = unaryOperation(E);
      if (U && (UnaryOperator::isIncrementDecrementOp(U->Opcode) ||
                U->Opcode == UO_AddrOf) &&
          namesVar(U->Operand, V))
        return true;
    }
    for (const Stmt *Child : S->children())
      Work.push_back(Child);
  }
  return false;
}

/// The counter \p For runs through, from a constant start up to a constant
/// bound (`i < N`, `i <= N`, `i != N`), counting up and not assigned in the
/// body: [first, last + 1).
static std::optional<std::pair<int64_t, int64_t>>
countedRange(const ForStmt *For, const VarDecl *V, ASTContext &Ctx) {
  Expr::EvalResult Start, Bound;
  const auto *Cond =
      dyn_cast_or_null<BinaryOperator>(For->getCond() ? For->getCond()->IgnoreParenImpCasts() : nullptr);
  if (!V->getInit() || V->getInit()->isValueDependent() ||
      !V->getInit()->EvaluateAsInt(Start, Ctx) ||
      Start.Val.getInt().isNegative() || !countsUp(For->getInc(), V) ||
      assignedIn(For->getBody(), V) || !Cond || !namesVar(Cond->getLHS(), V) ||
      Cond->getRHS()->isValueDependent() ||
      !Cond->getRHS()->EvaluateAsInt(Bound, Ctx))
    return std::nullopt;
  int64_t First = Start.Val.getInt().getExtValue();
  int64_t End = Bound.Val.getInt().getExtValue();
  switch (Cond->getOpcode()) {
  case BO_LT:
  case BO_NE:
    break;
  case BO_LE:
    ++End;
    break;
  default:
    return std::nullopt;
  }
  if (End <= First)
    return std::nullopt;
  return std::make_pair(First, End);
}

const llvm::DenseMap<const VarDecl *, std::pair<int64_t, int64_t>> &
MemoryModel::loopRanges(const FunctionDecl *Fn) {
  auto [It, New] = LoopRanges.try_emplace(Fn);
  if (!New || !Fn->getBody())
    return It->second;
  llvm::DenseMap<const VarDecl *, std::pair<int64_t, int64_t>> Found;
  llvm::SmallVector<const Stmt *, 32> Work{Fn->getBody()};
  while (!Work.empty()) {
    const Stmt *S = Work.pop_back_val();
    if (!S || isa<LambdaExpr>(S))
      continue;
    for (const Stmt *Child : S->children())
      Work.push_back(Child);
    const auto *For = dyn_cast<ForStmt>(S);
    const auto *Init = For ? dyn_cast_or_null<DeclStmt>(For->getInit()) : nullptr;
    const auto *V = Init && Init->isSingleDecl()
                        ? dyn_cast<VarDecl>(Init->getSingleDecl())
                        : nullptr;
    if (V)
      if (auto Range = countedRange(For, V, Ctx))
        Found[V] = *Range;
  }
  return LoopRanges[Fn] = std::move(Found);
}

std::optional<MemoryModel::StageRange>
MemoryModel::stageRange(const Expr *Offset, const FunctionDecl *Fn) {
  Offset = Offset->IgnoreParenImpCasts();
  Expr::EvalResult K;
  if (!Offset->isValueDependent() && Offset->EvaluateAsInt(K, Ctx)) {
    if (K.Val.getInt().isNegative())
      return std::nullopt;
    int64_t C = K.Val.getInt().getExtValue();
    return StageRange{C, C, /*Counted=*/false};
  }
  const auto *BO = dyn_cast<BinaryOperator>(Offset);
  if (!BO)
    return std::nullopt;
  if (BO->getOpcode() == BO_Add) {
    auto L = stageRange(BO->getLHS(), Fn);
    auto R = L ? stageRange(BO->getRHS(), Fn) : std::nullopt;
    if (!R)
      return std::nullopt;
    return StageRange{L->Low + R->Low, L->High + R->High,
                      L->Counted || R->Counted};
  }
  if (BO->getOpcode() != BO_Mul)
    return std::nullopt;
  // index * stride, the stride a constant of two or more elements: stage
  // `i` reaches up to where stage `i + 1` starts.
  for (auto [Index, Stride] : {std::pair(BO->getLHS(), BO->getRHS()),
                               std::pair(BO->getRHS(), BO->getLHS())}) {
    Expr::EvalResult C;
    if (Stride->isValueDependent() || !Stride->EvaluateAsInt(C, Ctx) ||
        C.Val.getInt().slt(2))
      continue;
    const auto *Ref = dyn_cast<DeclRefExpr>(Index->IgnoreParenImpCasts());
    const auto *V = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
    const auto &Ranges = loopRanges(Fn);
    if (auto It = V ? Ranges.find(V) : Ranges.end(); It != Ranges.end()) {
      int64_t Step = C.Val.getInt().getExtValue();
      return StageRange{It->second.first * Step, It->second.second * Step,
                        /*Counted=*/true};
    }
  }
  return std::nullopt;
}

std::optional<AliasSet> MemoryModel::carveSymbolic(const Expr *Ptr,
                                                   const Expr *Offset,
                                                   bool Negate,
                                                   const FunctionDecl *Fn) {
  // Where Ptr points: the dynamic-shared base, or a place already carved.
  std::optional<SymbolicPlace> From;
  std::optional<ThreadGroup> Private; // the part it points into
  bool FromBase = false;
  const auto *DRE = dyn_cast<DeclRefExpr>(Ptr->IgnoreParenCasts());
  if (const auto *V = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
      V && isSharedVar(V) && sharedRoot(V).Kind == MemRoot::DynamicShared) {
    SymbolicPlace Base;
    const DeclContext *Owner = V->getDeclContext();
    if (!V->isLocalVarDecl())
      if (const auto *Outer =
              dyn_cast_or_null<DeclContext>(Fn->getNonClosureContext()))
        Owner = Outer;
    Base.Owner = Owner;
    Base.Base = Poly::constant(0);
    From = Base;
    FromBase = true;
  } else {
    AliasSet P = valueOf(Ptr, Fn);
    if (P.isUnknown() || P.roots().size() != 1)
      return std::nullopt;
    const MemRoot &R = P.roots().front();
    if (R.Kind != MemRoot::DynamicShared || !R.Place || R.Field || R.Begin)
      return std::nullopt;
    From = *R.Place;
    Private = R.PrivateTo;
  }
  QualType PT = Ptr->getType();
  if (PT->isDependentType() && !PT->isPointerType() && !PT->isArrayType())
    PT = patternType(Ptr);
  QualType Elem;
  if (!PT.isNull() && PT->isPointerType())
    Elem = PT->getPointeeType();
  else if (!PT.isNull() && PT->isArrayType())
    Elem = QualType(PT->getPointeeOrArrayElementType(), 0);
  std::optional<Poly> Size = sizeOfType(Elem, Ctx);
  std::optional<Poly> Index = polyOf(Offset, Fn, Ctx);
  std::optional<SymbolicPlace> Moved;
  if (Size && Index)
    Moved = movedPlace(*From,
                       Negate ? Poly::constant(0) - *Index * *Size
                              : *Index * *Size,
                       FromBase);
  MemRoot R;
  R.Kind = MemRoot::DynamicShared;
  R.PrivateTo = Private;
  if (Moved) {
    R.Carved = true;
    R.Place = internPlace(*Moved);
  } else {
    R.Placed = false;
  }
  AliasSet S;
  S.add(R);
  return S;
}

/// \p R with the parameters its place mentions bound to \p Arg's values in
/// \p Caller (`smem_b[kNumStages]` fixes the lambda's `i`); unplaced where
/// an argument is not an integer expression.
static MemRoot bindPlace(MemRoot R, const FunctionDecl *Caller,
                         const ASTContext &Ctx,
                         llvm::function_ref<const Expr *(unsigned)> Arg) {
  if (!R.Place || !R.Place->Base.mentions(isParamSymbol))
    return R;
  bool Lost = false;
  Poly Bound = R.Place->Base.substitute(isParamSymbol, [&](Symbol S) {
    const Expr *A = Arg(paramOfSymbol(S));
    std::optional<Poly> P = A ? polyOf(A, Caller, Ctx) : std::nullopt;
    Lost |= !P;
    return P;
  });
  SymbolicPlace From = *R.Place;
  From.Base = Poly::constant(0);
  std::optional<SymbolicPlace> Moved =
      Lost ? std::nullopt : movedPlace(From, Bound, /*FromBase=*/true);
  R.Place = Moved ? internPlace(*Moved) : nullptr;
  R.Placed = bool(Moved);
  return R;
}

/// Adds what an argument designates, narrowed to the part of the
/// parameter's object \p Param names (its field, its offset).
static void mergeNarrowed(AliasSet &Out, const AliasSet &Arg,
                          const MemRoot &Param) {
  if (Arg.isUnknown())
    Out.merge(AliasSet::unknown());
  if (Arg.onlyKernelArgument())
    Out.merge(AliasSet::kernelArgument());
  for (const MemRoot &A : Arg.roots())
    Out.add(A.narrowedTo(Param));
}

/// Whether \p Owner's parameters are \p Callee's: the callee itself, or
/// the template body it is analysed through (a member never instantiated,
/// a member template of a class template specialization: bodyToRead).
static bool isOwnerOf(const FunctionDecl *Owner, const FunctionDecl *Callee) {
  const FunctionDecl *O = Owner->getCanonicalDecl();
  if (O == Callee->getCanonicalDecl())
    return true;
  const FunctionDecl *Pattern = Callee->getTemplateInstantiationPattern();
  if (Pattern && O == Pattern->getCanonicalDecl())
    return true;
  const FunctionDecl *Read = bodyToRead(Callee);
  return Read && O == Read->getCanonicalDecl();
}

/// Whether \p R is a parameter, or the `*this`, of a function other than
/// \p Callee: one a lambda captured from the function around it, which
/// means the same there (and in the functions the lambda is passed to).
static bool capturedParam(const MemRoot &R, const FunctionDecl *Callee) {
  const FunctionDecl *Owner = nullptr;
  if (R.Kind == MemRoot::Param) {
    const auto *P = dyn_cast_or_null<ParmVarDecl>(R.Var);
    Owner = P ? dyn_cast<FunctionDecl>(P->getDeclContext()) : nullptr;
  } else if (R.Kind == MemRoot::This || R.Kind == MemRoot::ThisValue) {
    Owner = dyn_cast_or_null<FunctionDecl>(R.Var);
  }
  if (!Owner || !Callee)
    return false;
  return !isOwnerOf(Owner, Callee);
}

/// The callee's `*this` root \p R where the call is on the caller's own
/// object: inside a lambda, the `this` the lambda captured.
static MemRoot callersThis(MemRoot R, const FunctionDecl *Caller) {
  R.Var = thisCapturedBy(Caller);
  return R;
}

/// \p S with its parameter roots bound to what \p Arg (by parameter index;
/// null: none passed) designates in \p Caller; roots of an object the
/// call does not name (`this`, values loaded from it) are dropped.
static AliasSet bindArguments(MemoryModel &M, const AliasSet &S,
                              const FunctionDecl *Callee,
                              const FunctionDecl *Caller,
                              llvm::function_ref<const Expr *(unsigned)> Arg) {
  if (!S.hasParamOrThis() && !S.hasParamPlace() && !S.hasParamGroup())
    return S;
  AliasSet Out;
  if (S.isUnknown())
    Out = AliasSet::unknown();
  for (const MemRoot &Unbound : S.roots()) {
    MemRoot R = M.bindGroup(Unbound, Callee, Arg);
    if (!isCallerBound(R))
      Out.add(bindPlace(R, Caller, M.context(), Arg));
    else if (capturedParam(R, Callee))
      Out.add(R);
    else if (const Expr *E = R.Kind == MemRoot::Param ? Arg(R.ParamIndex) : nullptr)
      mergeNarrowed(Out, R.ByRef ? M.objectOf(E, Caller) : M.valueOf(E, Caller), R);
  }
  return Out;
}

AliasSet MemoryModel::subscriptValue(const ArraySubscriptExpr *ASE,
                                     const CXXMethodDecl *Op,
                                     const FunctionDecl *Fn) {
  // The lambda's one parameter is the index; a `this` it captured is not
  // the visitor's, so not known here.
  return bindArguments(*this, returnOf(Op), Op, Fn, [ASE](unsigned K) {
    return K == 0 ? ASE->getRHS() : nullptr;
  });
}

AliasSet MemoryModel::callValue(const CallExpr *Call, const FunctionDecl *Fn) {
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!Callee) {
    // A template pattern's call whose lookup found one candidate.
    DependentCallee D = dependentCallee(Call);
    if (D.Viable.size() != 1)
      return {};
    Callee = D.Viable.front();
  }
  AliasSet S = substitute(returnOf(Callee), Call, Callee, Fn);
  const VarDecl *Pool = bumpAllocator(Call, Callee);
  if (!Pool || S.isUnknown())
    return S;
  // Memory of its own: offsets from here on are inside the allocation.
  AliasSet Out;
  for (MemRoot R : S.roots()) {
    if (!isCallerBound(R)) {
      R.Allocation = Call;
      R.Allocator = Pool;
      R.Begin = 0;
      R.End = MemRoot::NoEnd;
      R.Placed = true;
      R.Carved = false;
      R.Place = nullptr;
      R.Member = nullptr;
      R.Field = nullptr;
    }
    Out.add(R);
  }
  return Out;
}

const VarDecl *MemoryModel::bumpAllocator(const CallExpr *Call,
                                          const FunctionDecl *Callee) {
  const FunctionDecl *Def = nullptr;
  if (!isa<CXXMethodDecl>(Callee) || !Callee->hasBody(Def) || !Def)
    return nullptr;
  auto [It, New] = Bumped.try_emplace(Def, nullptr);
  if (New)
    It->second = bumpedField(Def);
  if (!It->second)
    return nullptr;
  // On a local object (`tma_allocator al(smem)`), set by its initialiser
  // only: a copy or a reset would hand out the same memory again.
  bool Arrow, ImplicitThis;
  const Expr *Obj = memberCallObject(Call, Arrow, ImplicitThis);
  const auto *DRE =
      Obj && !Arrow ? dyn_cast<DeclRefExpr>(Obj->IgnoreParenImpCasts()) : nullptr;
  const auto *V = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  if (!V || !V->hasLocalStorage() || isa<ParmVarDecl>(V) ||
      V->getType()->isReferenceType() || !V->getInit() ||
      assignments(V).size() != 1)
    return nullptr;
  return V;
}

const Expr *MemoryModel::argFor(const CallExpr *Call, const FunctionDecl *Callee,
                                unsigned Param) {
  // A member operator call passes the object as argument 0.
  if (isa<CXXOperatorCallExpr>(Call))
    if (const auto *MD = dyn_cast<CXXMethodDecl>(Callee))
      if (MD->isInstance())
        ++Param;
  return Param < Call->getNumArgs() ? Call->getArg(Param) : nullptr;
}

MemRoot MemoryModel::bindGroup(MemRoot R, const FunctionDecl *Callee,
                               llvm::function_ref<const Expr *(unsigned)> Arg) {
  const ParmVarDecl *P = R.PrivateTo ? R.PrivateTo->ByParam : nullptr;
  const auto *Owner = P ? dyn_cast<FunctionDecl>(P->getDeclContext()) : nullptr;
  if (!Owner || !Callee || !isOwnerOf(Owner, Callee))
    return R; // a parameter a lambda captured: bound further out
  const Expr *A = Arg(P->getFunctionScopeIndex());
  R.PrivateTo = A ? Groups.separatedBy(A) : std::nullopt;
  return R;
}

AliasSet MemoryModel::substitute(const AliasSet &S, const CallExpr *Call,
                                 const FunctionDecl *Callee,
                                 const FunctionDecl *Caller) {
  if (!S.hasParamOrThis() && !S.hasParamPlace() && !S.hasParamGroup())
    return S;
  AliasSet Out;
  if (S.isUnknown())
    Out = AliasSet::unknown();
  for (const MemRoot &Unbound : S.roots()) {
    MemRoot R = bindGroup(Unbound, Callee, [&](unsigned K) {
      return argFor(Call, Callee, K);
    });
    AliasSet Part = substituteRoot(R, Call, Callee, Caller);
    // The object's part was the argument's group's in the callee.
    if (Unbound.PrivateTo && Unbound.PrivateTo->ByParam && R.PrivateTo)
      Part.makePrivateTo(*R.PrivateTo);
    Out.merge(Part);
  }
  return Out;
}

AliasSet MemoryModel::substituteRoot(const MemRoot &R, const CallExpr *Call,
                                     const FunctionDecl *Callee,
                                     const FunctionDecl *Caller) {
  AliasSet Out;
  if (capturedParam(R, Callee)) {
    Out.add(R);
  } else if (R.Kind == MemRoot::Param) {
    const Expr *Arg = argFor(Call, Callee, R.ParamIndex);
    mergeNarrowed(Out, R.ByRef ? objectOf(Arg, Caller) : valueOf(Arg, Caller),
                  R);
  } else if (R.Kind == MemRoot::This) {
    // Also the member calls a template pattern leaves unresolved.
    bool Arrow, ImplicitThis;
    if (const Expr *Obj = memberCallObject(Call, Arrow, ImplicitThis)) {
      mergeNarrowed(Out, Arrow ? valueOf(Obj, Caller) : objectOf(Obj, Caller),
                    R);
    } else if (ImplicitThis) {
      Out.add(callersThis(R, Caller)); // the caller's own object
    } else if (isa<CXXOperatorCallExpr>(Call) && Call->getNumArgs()) {
      mergeNarrowed(Out, objectOf(Call->getArg(0), Caller), R);
    }
  } else if (R.Kind == MemRoot::ThisValue) {
    // What the object holds: known for a local aggregate (or a temporary,
    // or the caller's own `*this`), not through an arbitrary pointer.
    bool Arrow, ImplicitThis;
    if (const Expr *Obj = memberCallObject(Call, Arrow, ImplicitThis)) {
      if (Arrow ? isa<CXXThisExpr>(Obj->IgnoreParenImpCasts())
                : isDereferencedThis(Obj))
        Out.add(callersThis(R, Caller));
      else if (!Arrow)
        Out.merge(fieldValue(Obj, R.LoadedField, Caller));
    } else if (ImplicitThis) {
      Out.add(callersThis(R, Caller));
    } else if (isa<CXXOperatorCallExpr>(Call) && Call->getNumArgs()) {
      // `*this + i` of an iterator's operator[]: the caller's own object.
      if (isDereferencedThis(Call->getArg(0)))
        Out.add(callersThis(R, Caller));
      else
        Out.merge(valueOf(Call->getArg(0), Caller));
    }
  } else {
    Out.add(bindPlace(R, Caller, Ctx, [&](unsigned K) {
      return argFor(Call, Callee, K);
    }));
  }
  return Out;
}

static const CXXConstructorDecl *patternConstructor(QualType T, size_t Args);

/// \p E without what does not change the object it makes (temporaries,
/// parentheses, a functional cast around a construction).
static const Expr *objectExpr(const Expr *E) {
  E = E->IgnoreImplicit()->IgnoreParens();
  if (const auto *FC = dyn_cast<CXXFunctionalCastExpr>(E))
    E = FC->getSubExpr()->IgnoreImplicit();
  return E;
}

/// Whether fieldValue follows \p E to the construction of its object.
static bool constructionInSight(const Expr *E) {
  return isa<CXXConstructExpr, CXXUnresolvedConstructExpr, DeclRefExpr,
             CallExpr>(objectExpr(E));
}

AliasSet MemoryModel::fieldValue(const Expr *Obj, const FieldDecl *F,
                                 const FunctionDecl *Fn, unsigned Depth) {
  constexpr unsigned MaxDepth = 8;
  if (!F || !Obj || Depth > MaxDepth)
    return valueOf(Obj, Fn);
  const Expr *E = objectExpr(Obj);
  if (const auto *CE = dyn_cast<CXXConstructExpr>(E))
    return constructedField(CE->getConstructor(),
                            {CE->getArgs(), CE->getNumArgs()}, Obj, F, Fn,
                            Depth);
  // `Layout(p, n)` in a pattern, its arguments dependent: the one
  // constructor of the class that takes them.
  if (const auto *UC = dyn_cast<CXXUnresolvedConstructExpr>(E)) {
    llvm::SmallVector<const Expr *, 4> Args(UC->arguments());
    return constructedField(patternConstructor(UC->getTypeAsWritten(),
                                               Args.size()),
                            Args, Obj, F, Fn, Depth);
  }
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    // A local object: the field as each value stored in it holds it.
    const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
    if (!V || !V->hasLocalStorage() || isa<ParmVarDecl>(V) ||
        V->getType()->isReferenceType() || assignments(V).empty() ||
        !llvm::all_of(assignments(V), constructionInSight))
      return valueOf(Obj, Fn);
    // `buffer = buffer.part(i)`: the stored values other than the one in
    // progress say what the field may hold.
    if (!FieldsInProgress.insert(V).second)
      return {};
    AliasSet S;
    for (const Expr *Stored : assignments(V))
      S.merge(fieldValue(Stored, F, Fn, Depth + 1));
    FieldsInProgress.erase(V);
    return S;
  }
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    // An object returned by value: the field of each object returned.
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (!Callee) {
      DependentCallee D = dependentCallee(Call);
      Callee = D.Viable.size() == 1 ? D.Viable.front() : nullptr;
    }
    const FunctionDecl *Def = bodyToRead(Callee);
    if (!Def || Def->getReturnType()->isReferenceType() ||
        Def->getReturnType()->isPointerType())
      return valueOf(Obj, Fn);
    AliasSet S;
    for (const Expr *V : returnValues(Def->getBody()))
      S.merge(fieldValue(V, F, Def, Depth + 1));
    return substitute(S, Call, Callee, Fn);
  }
  return valueOf(Obj, Fn);
}

AliasSet MemoryModel::constructedField(const CXXConstructorDecl *CD,
                                       ArrayRef<const Expr *> Args,
                                       const Expr *Whole, const FieldDecl *F,
                                       const FunctionDecl *Fn,
                                       unsigned Depth) {
  if (!CD)
    return valueOf(Whole, Fn);
  if (CD->isCopyOrMoveConstructor() && Args.size() == 1)
    return fieldValue(Args[0], F, Fn, Depth + 1);
  const auto *Def = dyn_cast_or_null<CXXConstructorDecl>(bodyToRead(CD));
  if (!Def || CD->isInheritingConstructor())
    return valueOf(Whole, Fn);
  // A field the body assigns as well: all the constructor stores.
  FieldStoreCollector FC;
  FC.TraverseStmt(Def->getBody());
  if (!FC.Values.empty())
    return valueOf(Whole, Fn);
  for (const CXXCtorInitializer *Init : Def->inits()) {
    const FieldDecl *Member = Init->getMember();
    if (!Member || Member->getName() != F->getName())
      continue;
    AliasSet V = valueOf(initializerValue(Init->getInit()), Def);
    return bindArguments(*this, V, CD, Fn, [Args](unsigned K) {
      return K < Args.size() ? Args[K] : nullptr;
    });
  }
  // Not initialised by this constructor (a default member initialiser):
  // all the object holds.
  return valueOf(Whole, Fn);
}

/// The one constructor of the class \p T names in a pattern that takes
/// \p Args arguments (copy and move constructors aside); null otherwise.
static const CXXConstructorDecl *patternConstructor(QualType T,
                                                   size_t Args) {
  const CXXRecordDecl *RD = classPattern(T);
  if (!RD)
    return nullptr;
  const CXXConstructorDecl *Only = nullptr;
  for (const CXXConstructorDecl *CD : RD->ctors()) {
    if (CD->isCopyOrMoveConstructor() ||
        Args < CD->getMinRequiredArguments() || Args > CD->getNumParams())
      continue;
    if (Only)
      return nullptr;
    Only = CD;
  }
  return Only;
}

AliasSet MemoryModel::patternConstructed(QualType T,
                                         ArrayRef<const Expr *> Args,
                                         const FunctionDecl *Fn) {
  const CXXConstructorDecl *Only = patternConstructor(T, Args.size());
  if (!Only)
    return {};
  return bindArguments(*this, ctorValue(Only), Only, Fn, [&](unsigned K) {
    return K < Args.size() ? Args[K] : nullptr;
  });
}

AliasSet MemoryModel::substitute(const AliasSet &S, const CXXConstructExpr *Ctor,
                                 const FunctionDecl *Caller) {
  // `using Base::Base;`: the roots are the inherited constructor's.
  const CXXConstructorDecl *CD = Ctor->getConstructor();
  if (CD && CD->isInheritingConstructor())
    if (const CXXConstructorDecl *Inherited =
            CD->getInheritedConstructor().getConstructor())
      CD = Inherited;
  return bindArguments(*this, S, CD, Caller, [Ctor](unsigned K) {
    return K < Ctor->getNumArgs() ? Ctor->getArg(K) : nullptr;
  });
}

} // namespace proxyfence
