//===- Memory.h - which shared-memory object an access touches ------------===//
#ifndef PROXYFENCE_MEMORY_H
#define PROXYFENCE_MEMORY_H

#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "model/SymbolicPlace.h"
#include "model/ThreadGroups.h"
#include "llvm/ADT/SmallVector.h"
#include <functional>
#include <optional>
#include <string>

namespace proxyfence {

/// Names of nested members, interned: equal paths are one pointer.
struct MemberPath {
  const MemberPath *Parent; // null at the first name below MemberName
  const clang::IdentifierInfo *Name;
  unsigned Depth; // 1 for the first name
  static const MemberPath *get(const MemberPath *Parent,
                               const clang::IdentifierInfo *Name);
  /// Whether one of the paths leads into the other (or they are equal).
  static bool nested(const MemberPath *A, const MemberPath *B);
};

/// One shared-memory object an address may point into.
struct MemRoot {
  enum KindTy : unsigned char {
    SharedVar,     // a `__shared__` variable
    DynamicShared, // `extern __shared__` storage: all such arrays alias
    Param,         // whatever the caller passes for parameter ParamIndex
    This,          // the object a member function is called on
    ThisValue,     // a value loaded from that object's fields (a descriptor
                   // object whose conversion operator returns a field)
  };
  KindTy Kind = SharedVar;
  /// For Param: the parameter is a reference, so the caller's argument names
  /// the object itself rather than holding its address.
  bool ByRef = false;
  unsigned ParamIndex = 0;
  const clang::ValueDecl *Var = nullptr; // SharedVar, or the ParmVarDecl

  /// The bytes of the object that may be touched, relative to its start:
  /// [Begin, End). A struct field narrows them (distinct fields never
  /// overlap, union members do); NoEnd runs to the end of the object. For
  /// Param and This roots the range applies to whatever the caller passes.
  static constexpr uint64_t NoEnd = ~uint64_t(0);
  uint64_t Begin = 0, End = NoEnd;
  /// False where the position inside the object is not known (an offset
  /// that is not a constant from the dynamic-shared base): overlaps all.
  bool Placed = true;
  /// Begin was set by a constant offset from the `extern __shared__` base
  /// (`smem + OFF`): such regions end where the next one starts.
  bool Carved = false;
  /// The innermost field named, for messages ("'SharedStorage::C'").
  const clang::FieldDecl *Field = nullptr;
  /// DynamicShared carved by template values: where the region starts
  /// (Begin and End are then relative to it).
  const SymbolicPlace *Place = nullptr;
  /// A member of a record whose layout template values decide (a
  /// dependent shared-storage struct): no offsets, but distinct members of
  /// one struct never overlap. Begin and End are then relative to it.
  const clang::FieldDecl *Member = nullptr;
  /// The same for a member of an object whose type is a template parameter
  /// (no declaration to name it): its name. Distinct names never overlap.
  const clang::IdentifierInfo *MemberName = nullptr;
  /// Below MemberName, the names of the members inside it
  /// (`mainloop.smem_q` of `s.tensors.mainloop.smem_q`): two paths overlap
  /// when one leads into the other, as for the first name a union is not
  /// guessed (the storage's type waits for the instantiation).
  const struct MemberPath *InnerPath = nullptr;
  /// What one call of a bump allocator returns (`al.allocate<T, 2>()`):
  /// the call and the allocator object. Calls of one allocator never
  /// overlap; Begin and End are then relative to the allocation.
  const clang::Expr *Allocation = nullptr;
  const clang::ValueDecl *Allocator = nullptr;
  /// The address was placed by the index of a group of threads (a warp's
  /// part, `smem + warp * kStride`): each group reaches a part of its own.
  std::optional<ThreadGroup> PrivateTo;
  /// ThisValue: the field of `*this` the value was loaded from (the first
  /// one under `this` in `this->a.b`); null where not known.
  const clang::FieldDecl *LoadedField = nullptr;

  bool operator==(const MemRoot &O) const {
    return Kind == O.Kind && ParamIndex == O.ParamIndex && Var == O.Var &&
           ByRef == O.ByRef && Begin == O.Begin && End == O.End &&
           Placed == O.Placed && Carved == O.Carved && Field == O.Field &&
           Place == O.Place && Member == O.Member &&
           MemberName == O.MemberName && InnerPath == O.InnerPath &&
           Allocation == O.Allocation && Allocator == O.Allocator &&
           PrivateTo == O.PrivateTo && LoadedField == O.LoadedField;
  }
  /// Whether the bytes of two roots of the same object may overlap.
  bool overlaps(const MemRoot &O) const;
  /// Narrows this root to the part \p Inner describes of whatever it
  /// designates (a field of a parameter, applied to the argument).
  MemRoot narrowedTo(const MemRoot &Inner) const;
};

/// The set of shared-memory objects an address may refer to. Empty means
/// "not known to be shared memory"; Unknown means "any shared memory".
class AliasSet {
public:
  static AliasSet unknown() {
    AliasSet S;
    S.Unknown = true;
    return S;
  }
  /// What a kernel's parameter points to: memory the host passed, never
  /// this CTA's shared memory (no shared address exists before the launch).
  static AliasSet kernelArgument() {
    AliasSet S;
    S.KernelArgument = true;
    return S;
  }
  bool isUnknown() const { return Unknown; }
  /// Known not to be shared memory: derived from kernel parameters only.
  bool onlyKernelArgument() const { return empty() && KernelArgument; }
  bool empty() const { return !Unknown && Roots.empty(); }
  const llvm::SmallVectorImpl<MemRoot> &roots() const { return Roots; }
  void add(const MemRoot &R);
  void merge(const AliasSet &O);
  bool mayAlias(const AliasSet &O) const;
  bool hasParamOrThis() const;
  /// Whether a root is private to a group a parameter decides.
  bool hasParamGroup() const;
  /// Whether a root's place depends on the function's parameters (a
  /// visitor's lambda computing `smem + OFF + i * STRIDE`).
  bool hasParamPlace() const;
  /// mayAlias, counting only objects of the function itself: what its
  /// parameters and `*this` designate is the caller's to say.
  bool mayAliasLocally(const AliasSet &O) const;
  /// Whether both sets name overlapping parts of one parameter's object (or
  /// of `*this`): the same memory whatever a caller binds there.
  bool overlapsInSameCallerObject(const AliasSet &O) const;
  /// The group of threads every root is private to, if they all are to
  /// one (ThreadGroups.h).
  std::optional<ThreadGroup> privateTo() const;
  /// Marks the roots not yet private to a group as private to \p G.
  void makePrivateTo(const ThreadGroup &G);
  /// "'tile'", "dynamic shared memory", "shared memory".
  std::string describe() const;
  /// "shared memory 'tile'", "dynamic shared memory", "shared memory".
  std::string describeMemory() const;

private:
  llvm::SmallVector<MemRoot, 2> Roots;
  bool Unknown = false;
  bool KernelArgument = false;
};

/// Resolves expressions of device code to the shared-memory objects they
/// designate or point to. Follows locals (through every assignment to them),
/// casts, pointer and integer arithmetic (descriptors), `&`, `[]`, `*`,
/// members, parameters, and calls whose body returns a value derived from
/// their arguments (`__cvta_generic_to_shared`, CuTe's cast helpers). Results
/// of bodies are cached, so each function is walked once.
/// The definition whose body says what \p F does: its own, or for a
/// member of a class template specialization that nothing instantiated
/// (only a pattern calls it), the class template's as written. Null when
/// neither has a body.
const clang::FunctionDecl *bodyToRead(const clang::FunctionDecl *F);

class MemoryModel {
public:
  /// The shared memory a pattern's CuTe tensor, or a pointer into one,
  /// views (`raw_pointer_cast(sD.data())`, `sVt(_, stage)` passed to a
  /// helper), for calls lookup says nothing of: set by the event extractor,
  /// which reads tensors (CuteCopies.h).
  void setTensorPointee(
      std::function<AliasSet(const clang::Expr *, const clang::FunctionDecl *)>
          F) {
    TensorPointee = std::move(F);
  }
  explicit MemoryModel(clang::ASTContext &Ctx) : Ctx(Ctx), Groups(Ctx) {
    resetPlaces();
  }

  /// Objects an lvalue expression designates (`tile[i]`, `*p`, `s.f`).
  AliasSet objectOf(const clang::Expr *E, const clang::FunctionDecl *Fn);
  /// Objects a pointer or integer address value points into.
  AliasSet valueOf(const clang::Expr *E, const clang::FunctionDecl *Fn);

  /// Replaces Param/This roots of \p S by what the call's arguments resolve
  /// to in the caller \p Caller.
  AliasSet substitute(const AliasSet &S, const clang::CallExpr *Call,
                      const clang::FunctionDecl *Callee,
                      const clang::FunctionDecl *Caller);
  AliasSet substitute(const AliasSet &S, const clang::CXXConstructExpr *Ctor,
                      const clang::FunctionDecl *Caller);
  /// \p R with the group it is private to bound, where its offset was a
  /// multiple of a parameter of \p Callee (ThreadGroup::ByParam): the group
  /// the argument \p Arg gives separates it in the caller, or none.
  MemRoot bindGroup(MemRoot R, const clang::FunctionDecl *Callee,
                    llvm::function_ref<const clang::Expr *(unsigned)> Arg);

  static bool isSharedVar(const clang::VarDecl *V);
  ThreadGroups &groups() { return Groups; }
  clang::ASTContext &context() { return Ctx; }

private:
  /// The value field \p F of the object \p Obj holds, where the
  /// construction of that object is in sight (a temporary, a local's
  /// initialiser or assignments, what a call returns by value): the
  /// initialiser its constructor gives \p F. Otherwise, and for a null
  /// \p F, the values of all its fields.
  AliasSet fieldValue(const clang::Expr *Obj, const clang::FieldDecl *F,
                      const clang::FunctionDecl *Fn, unsigned Depth = 0);
  llvm::SmallPtrSet<const clang::VarDecl *, 4> FieldsInProgress;
  /// fieldValue of the object \p CD constructs from \p Args (\p Whole
  /// being that construction).
  AliasSet constructedField(const clang::CXXConstructorDecl *CD,
                            llvm::ArrayRef<const clang::Expr *> Args,
                            const clang::Expr *Whole, const clang::FieldDecl *F,
                            const clang::FunctionDecl *Fn, unsigned Depth);
  /// What one root of a callee's set designates in the caller.
  AliasSet substituteRoot(const MemRoot &R, const clang::CallExpr *Call,
                          const clang::FunctionDecl *Callee,
                          const clang::FunctionDecl *Caller);
  AliasSet varValue(const clang::VarDecl *V, const clang::FunctionDecl *Fn);
  /// The value stored in the object a glvalue designates (`v`, `v.f`,
  /// `this->f`), for locals and for the fields of `*this`.
  AliasSet loadedValue(const clang::Expr *Sub, const clang::FunctionDecl *Fn);
  AliasSet returnOf(const clang::FunctionDecl *Callee);
  /// For a function returning a reference: the value held in the object it
  /// returns (`T *&data() { return ptr_; }`), in terms of its parameters.
  AliasSet returnedContents(const clang::FunctionDecl *Callee);
  /// What a constructor stores into the fields of the new object (member
  /// initialisers, assignments to `this->f` in its body), in terms of its
  /// parameters: a descriptor object built from a tile's address.
  AliasSet ctorValue(const clang::CXXConstructorDecl *Ctor);
  /// `Tile t(p)`, `Tile{p}`, `Tile(p)` in a pattern, `Tile` a class
  /// template's specialisation: what the one constructor of its pattern that
  /// takes \p Args stores from them. Empty when none or several could.
  AliasSet patternConstructed(clang::QualType T,
                              llvm::ArrayRef<const clang::Expr *> Args,
                              const clang::FunctionDecl *Fn);
  AliasSet callValue(const clang::CallExpr *Call, const clang::FunctionDecl *Fn);
  /// The allocator object of \p Call when it calls a bump allocator: a
  /// member that returns its pointer field's value and then advances the
  /// field, on a local object that nothing else sets back. Null otherwise.
  const clang::VarDecl *bumpAllocator(const clang::CallExpr *Call,
                                      const clang::FunctionDecl *Callee);
  /// `v[i]` of a visitor: what its lambda \p Op returns for index `i`.
  AliasSet subscriptValue(const clang::ArraySubscriptExpr *ASE,
                          const clang::CXXMethodDecl *Op,
                          const clang::FunctionDecl *Fn);
  /// \p S restricted to the member named \p Name of the objects it
  /// designates, whose type is a template parameter.
  AliasSet memberNamed(const AliasSet &S, const clang::IdentifierInfo *Name);
  /// \p S restricted to field \p FD of the objects it designates.
  AliasSet field(const AliasSet &S, const clang::FieldDecl *FD);

  /// \p S moved to the base-class subobject a derived-to-base cast names.
  AliasSet baseSubobject(const AliasSet &S, const clang::CastExpr *CE);
  /// `L op R` as a value: pointer arithmetic keeps (a carved part of) the
  /// pointer's object, other arithmetic what either side holds.
  AliasSet arithmeticValue(const clang::Expr *L, const clang::Expr *R,
                           clang::BinaryOperatorKind Op,
                           const clang::FunctionDecl *Fn);
  /// The dynamic-shared base plus a constant byte offset, when \p Ptr is
  /// the `extern __shared__` array itself (the `smem + OFF` carving idiom);
  /// in a template, a place that template values decide, also from a
  /// pointer already so placed.
  std::optional<AliasSet> carve(const clang::Expr *Ptr,
                                const clang::Expr *Offset, bool Negate,
                                const clang::FunctionDecl *Fn);
  /// The elements an offset of constants plus `i * STRIDE` reaches, `i`
  /// the counter of a `for` loop with constant start and bound that counts
  /// up (the loop that fills an array of stage pointers): from the first
  /// stage to the end of the last. Nullopt for other offsets, and for
  /// constants alone (Counted false then).
  struct StageRange {
    int64_t Low, High;
    bool Counted;
  };
  std::optional<StageRange> stageRange(const clang::Expr *Offset,
                                       const clang::FunctionDecl *Fn);
  /// Those loop counters of \p Fn, with the range each runs through.
  const llvm::DenseMap<const clang::VarDecl *, std::pair<int64_t, int64_t>> &
  loopRanges(const clang::FunctionDecl *Fn);
  std::optional<AliasSet> carveSymbolic(const clang::Expr *Ptr,
                                        const clang::Expr *Offset, bool Negate,
                                        const clang::FunctionDecl *Fn);
  const llvm::SmallVector<const clang::Expr *, 4> &
  assignments(const clang::VarDecl *V);
  const clang::Expr *argFor(const clang::CallExpr *Call,
                            const clang::FunctionDecl *Callee, unsigned Param);

  /// \p S, each of its roots private to the group \p Offset separates.
  AliasSet separated(AliasSet S, const clang::Expr *Offset);

  clang::ASTContext &Ctx;
  ThreadGroups Groups;
  llvm::DenseMap<const clang::FunctionDecl *, AliasSet> Returns;
  /// bumpedField of each member called, null ones too.
  llvm::DenseMap<const clang::FunctionDecl *, const clang::FieldDecl *> Bumped;
  llvm::DenseMap<const clang::FunctionDecl *, AliasSet> CtorValues;
  llvm::DenseMap<const clang::FunctionDecl *, AliasSet> ReturnContents;
  llvm::DenseMap<const clang::VarDecl *, AliasSet> VarValues;
  llvm::DenseMap<const clang::DeclContext *, bool> AssignmentsIndexed;
  llvm::DenseMap<const clang::VarDecl *,
                 llvm::SmallVector<const clang::Expr *, 4>>
      Assigned;
  llvm::DenseMap<const void *, bool> InProgress;
  /// Reading a CuTe tensor asks for values again: once.
  bool InCuteTensor = false;
  std::function<AliasSet(const clang::Expr *, const clang::FunctionDecl *)>
      TensorPointee;
  llvm::DenseMap<const clang::FunctionDecl *,
                 llvm::DenseMap<const clang::VarDecl *,
                                std::pair<int64_t, int64_t>>>
      LoopRanges;
};

} // namespace proxyfence

#endif
