//===- Events.h - proxy events of device code -----------------------------===//
//
// Every statement of a device function becomes zero or more events: what it
// does to shared memory and through which proxy, which fences and barriers it
// executes. Inline asm is classified from its PTX text (Ptx.h), calls from
// the callee's summary (each analysis keeps its own: ProxyDataflow.h,
// InitPublication.h), bodiless callees from the vocabulary.
//
//===----------------------------------------------------------------------===//
#ifndef PROXYFENCE_EVENTS_H
#define PROXYFENCE_EVENTS_H

#include "model/AddressSpaceGuards.h"
#include "model/BarrierPath.h"
#include "model/CuteCopies.h"
#include "model/Bindings.h"
#include "model/DependentCalls.h"
#include "model/Memory.h"
#include "model/OwnFences.h"
#include "ptx/Ptx.h"
#include "model/Vocabulary.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceLocation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

namespace proxyfence {

using ptx::AsyncOp;
using ptx::BarrierScope;
using ptx::EffectKind;
using ptx::FenceSpace;

/// A statement together with the function whose body holds it.
struct StmtRef {
  const clang::Stmt *S = nullptr;
  const clang::FunctionDecl *Fn = nullptr;
  explicit operator bool() const { return S != nullptr; }
  bool operator==(const StmtRef &O) const { return S == O.S; }
  bool operator<(const StmtRef &O) const { return S < O.S; }
};

/// The id of a CTA barrier (`bar.sync id`, `bar.arrive id`), as far as it
/// is known: a constant, or a parameter or const local of the function
/// holding the event plus a constant offset (so that two roles passing the
/// same variable are seen to use the same barrier), or a field of `*this`
/// (a NamedBarrier object's id, known where the object is constructed), or
/// a constant base plus a runtime index (`dQFull + warp_group_idx`): one
/// barrier of a row, which each role indexes by its own warp group.
struct BarrierId {
  enum KindT { Unknown, Const, Param, Var, Field, Indexed } Kind = Unknown;
  int64_t Offset = 0; // the value when Const, the base when Indexed
  /// The parameter or local; for Indexed, the index when it is a const local
  /// of the function holding the event, else null.
  const clang::VarDecl *Variable = nullptr;
  /// Indexed by a loop's own variable: the role visits every barrier of the
  /// row in turn (a writer warp serving each warp group). Two rows meet
  /// only where one side walks: each group syncing its own entry is no
  /// hand-off between groups.
  bool Walks = false;
  const clang::FieldDecl *Member = nullptr; // Field
  /// Equal ids name the same barrier; different constants name different
  /// ones; rows with the same base, one of them walked, are taken for the
  /// same barrier (the role that walks meets each other role at its own
  /// entry); anything else cannot be decided.
  enum class Match { Same, Different, Unknown };
  Match compare(const BarrierId &O) const;
  std::string describe() const;
};

/// One step inward along the calls through which a lifted event happens:
/// the statement of the callee that performs it, the callee through which it
/// does there, and the next step. Lets a report show the event at the
/// statement of a file it reports (a header's own `copy(...)` call) when the
/// call it was lifted to lies elsewhere (the kernel in another file).
struct CallFrame {
  StmtRef At;
  const clang::FunctionDecl *Via = nullptr;
  const CallFrame *Inner = nullptr;
};

struct Event {
  EffectKind Kind;
  AsyncOp Op = AsyncOp::None;
  BarrierScope Scope = BarrierScope::Cta;
  FenceSpace Space = FenceSpace::All;
  bool ArriveOnly = false;
  bool Relaxed = false;
  bool CrossCta = false;
  /// A named barrier's thread count, where it is a constant; 0 otherwise.
  unsigned ThreadCount = 0;
  /// The instruction names the shared state space (`st.shared`,
  /// `stmatrix...shared`): it touches shared memory whatever a caller
  /// passes for its address.
  bool ExplicitShared = false;
  /// Shared memory touched (for accesses and async ops).
  AliasSet Mem;
  /// The mbarrier the operation initialises, arrives at, waits on or
  /// completes on (a TMA load's completion barrier); empty when it has none.
  AliasSet Mbarrier;
  /// The same barrier as the code spells its way to it (BarrierPath.h).
  std::optional<BarrierPath> MbarrierPath;
  /// For Barrier events other than bar.warp.sync: which barrier.
  BarrierId Id;
  /// Statement of the analysed function that performs the event: the access
  /// itself, or the call through which a callee performs it.
  StmtRef At;
  /// Where the operation is written (inside the callee for summarised events).
  clang::SourceLocation Loc;
  /// The callee through which the event happens, when it is not direct.
  const clang::FunctionDecl *Via = nullptr;
  /// For the ends of a role pair or a deferred hazard lifted from a callee:
  /// the statement of the function that paired them that performs it, and
  /// the callee through which it does there. Messages show these rather than the call that lifted them (a
  /// CUTLASS kernel's one `op(params, smem)` call for every role).
  StmtRef Origin;
  const clang::FunctionDecl *OriginVia = nullptr;
  /// The calls inside At (and inside Origin) through which it happens.
  const CallFrame *Inside = nullptr;
  const CallFrame *OriginInside = nullptr;
  /// When the event happens inside a lambda: the statement of the
  /// innermost lambda's body that performs it, and the call of that lambda.
  /// The user wrote the operation there, so a warning is shown there.
  StmtRef InLambda;
  StmtRef LambdaCall;
  /// Short description for messages: "C++ store", "st.shared", "TMA store".
  std::string What;
};

/// \p E, shown where it is now even once lifted into callers.
inline Event withOrigin(Event E) {
  if (!E.Origin) {
    E.Origin = E.At;
    E.OriginVia = E.Via;
    E.OriginInside = E.Inside;
  }
  return E;
}

/// Where messages show \p E: its role function's statement, if it has one.
inline StmtRef shownAt(const Event &E) { return E.Origin ? E.Origin : E.At; }
/// Where a warning about the async operation \p E is shown: the statement
/// of the lambda body that issues it (written there by the user), when that
/// body is in the file of shownAt(E); otherwise shownAt(E).
StmtRef warningAt(const clang::SourceManager &SM, const Event &E);
/// Whether \p F is the call operator of a lambda.
inline bool isLambdaBody(const clang::FunctionDecl *F) {
  const auto *MD = llvm::dyn_cast_or_null<clang::CXXMethodDecl>(F);
  return MD && MD->getParent()->isLambda();
}
inline const clang::FunctionDecl *shownVia(const Event &E) {
  return E.Origin ? E.OriginVia : E.Via;
}

/// The events one function's path states refer to by index, each event
/// (statement, place, kind, ordinal) stored once.
class EventTable {
public:
  unsigned intern(const Event &E, unsigned Ordinal) {
    auto Key = std::make_tuple(E.At.S, E.Loc.getRawEncoding(),
                               unsigned(E.Kind), Ordinal);
    auto [It, New] = Index.try_emplace(Key, Known.size());
    if (New)
      Known.push_back(E);
    return It->second;
  }
  const Event &operator[](unsigned I) const { return Known[I]; }
  const std::vector<Event> &events() const { return Known; }

private:
  std::vector<Event> Known;
  std::map<std::tuple<const clang::Stmt *, unsigned, unsigned, unsigned>,
           unsigned>
      Index;
};

/// A call of a function whose body is in the translation unit: each
/// analysis applies its own summary of Def there.
struct CallSite {
  const clang::Expr *Site;           // CallExpr or CXXConstructExpr
  const clang::FunctionDecl *Callee; // as named at the call
  const clang::FunctionDecl *Def;    // the definition to summarise
};

/// Turns statements of device code (CFG elements) into events: inline asm
/// from its PTX text, C++ accesses of shared memory, bodiless callees from the
/// vocabulary. Every analysis extracts through one instance, so all of them
/// see the same events and each asm statement is parsed for the stats once.
class EventExtractor {
public:
  using Sink = llvm::function_ref<void(const Event &, unsigned Ordinal)>;
  /// Counts the asm statements and PTX instructions read into the two
  /// counters.
  EventExtractor(MemoryModel &Memory, unsigned &AsmStatements,
                 unsigned &AsmInstructions);

  /// Passes the events \p S performs itself to \p Out in program order, each
  /// with an ordinal naming it stably within \p S. When \p S calls a function
  /// that has a body, returns the call site instead: what the callee does is
  /// its summary's business, which each analysis keeps in its own terms.
  /// \p B: the constants \p Fn is specialised on, whose function
  /// parameters name the callee of a call through them.
  std::optional<CallSite> extract(const clang::Stmt *S,
                                  const clang::FunctionDecl *Fn, Sink Out,
                                  const Bindings *B = nullptr);
  /// An event of a callee's summary as the caller \p Fn sees it at \p C:
  /// memory substituted, attributed to the call.
  Event lift(const Event &Inner, const CallSite &C,
             const clang::FunctionDecl *Fn);
  MemoryModel &memory() { return Memory; }
  /// Calls of template patterns whose callee could not be resolved, located
  /// ("file:line:col: 'name'"), each once.
  const std::vector<std::string> &unresolvedCalls() const {
    return UnresolvedSites;
  }
  /// Calls of template patterns resolved through the classes that declare
  /// the member they name (DependentCalls.h: MemberNameIndex).
  unsigned resolvedByMemberName() const { return ResolvedByName.size(); }
  /// Whether any statement extracted so far performed an event of kind
  /// \p K: a rule that needs one has nothing to look for in a translation
  /// unit whose analysis met none.
  bool extracted(EffectKind K) const { return KindsSeen & kindBit(K); }
  /// The same calls as statements.
  const llvm::DenseSet<const clang::Stmt *> &unresolvedStatements() const {
    return Unresolved;
  }
  /// Whether a function with a body does nothing the analyses see: several
  /// such candidates of a dependent call are as good as one.
  /// With \p ReadsCount false: nothing but generic-proxy reads.
  void setNoEffect(
      std::function<bool(const clang::FunctionDecl *, bool ReadsCount)> F) {
    NoEffect = std::move(F);
  }
  /// Whether every path through a function with a body fences what reaches
  /// it.
  void setFencesIncoming(std::function<bool(const clang::FunctionDecl *)> F) {
    FencesIncoming = std::move(F);
  }
  /// A key of what a function with a body does, as the analyses see it:
  /// candidates of a dependent call with equal keys act as one.
  void setEffectShape(
      std::function<std::string(const clang::FunctionDecl *)> F) {
    EffectShape = std::move(F);
  }
  /// Effects of bodiless functions from a configuration file, looked up
  /// before the built-in vocabulary; must outlive the extractor.
  void setUserVocabulary(const VocabularyTable *V) {
    User = V;
    Own.setUserVocabulary(V);
  }

private:
  static uint64_t kindBit(EffectKind K) { return uint64_t(1) << unsigned(K); }
  uint64_t KindsSeen = 0;
  void asmStmt(const clang::GCCAsmStmt *Asm, const clang::FunctionDecl *Fn,
               Sink Out);
  void bodilessCall(const clang::CallExpr *Call,
                    const clang::FunctionDecl *Callee,
                    const clang::FunctionDecl *Fn, Sink Out);
  std::optional<CallSite> callOf(const clang::CallExpr *Call,
                                 const clang::FunctionDecl *Callee,
                                 const clang::FunctionDecl *Fn, Sink Out);
  /// A call of a template pattern without a direct callee: resolved as far
  /// as lookup says (DependentCalls.h), else counted as unresolved.
  std::optional<CallSite> dependentCall(const clang::CallExpr *Call,
                                        const clang::FunctionDecl *Fn,
                                        Sink Out);
  bool hasNoEffect(const clang::FunctionDecl *F, bool ReadsCount = true);
  static bool isCallOnArrayElement(const clang::CallExpr *Call);
  /// Whether every candidate has a body and the same effects as the first.
  bool sameEffects(llvm::ArrayRef<const clang::FunctionDecl *> Candidates);
  std::string describeUnresolved(const clang::CallExpr *Call);
  AliasSet substitute(const AliasSet &S, const CallSite &C,
                      const clang::FunctionDecl *Fn);
  BarrierId barrierIdOf(const clang::Expr *E, const clang::FunctionDecl *Fn);
  /// A field id (\p Inner) at a member call: what the object's constructor
  /// stores there, from its arguments (Roles.cpp).
  BarrierId memberBarrierId(const BarrierId &Inner, const CallSite &C,
                            const clang::FunctionDecl *Fn);
  BarrierId asmBarrierId(const ptx::Instruction &I, const ptx::Effect &Eff,
                         const clang::GCCAsmStmt *Asm,
                         const clang::FunctionDecl *Fn);
  std::optional<unsigned> asmConstant(const ptx::Instruction &I, int K,
                                      const clang::GCCAsmStmt *Asm,
                                      const clang::FunctionDecl *Fn);
  /// The one frame of (At, Via, Inner): lifting the same event through the
  /// same calls again makes no new one.
  const CallFrame *frame(StmtRef At, const clang::FunctionDecl *Via,
                         const CallFrame *Inner);

  MemoryModel &Memory;
  AddressSpaceGuards Guards{Memory};
  CuteMmaReader Mmas{Memory};
  llvm::DenseMap<std::tuple<const clang::Stmt *, const clang::FunctionDecl *,
                            const CallFrame *>,
                 const CallFrame *>
      Frames;
  unsigned &AsmStatements;
  unsigned &AsmInstructions;
  llvm::DenseSet<const clang::Stmt *> Counted;
  const VocabularyTable *User = nullptr;
  std::unique_ptr<PatternReads> Reads = std::make_unique<PatternReads>();
  std::function<bool(const clang::FunctionDecl *, bool)> NoEffect;
  std::function<bool(const clang::FunctionDecl *)> FencesIncoming;
  std::function<std::string(const clang::FunctionDecl *)> EffectShape;
  llvm::DenseSet<const clang::Stmt *> Unresolved;
  std::vector<std::string> UnresolvedSites;
  /// More classes declaring a member of one name than this: too common a
  /// name (`copy`, `get`) to stand for the instantiation's class.
  static constexpr unsigned MaxClassesByName = 8;
  MemberNameIndex Members;
  llvm::DenseSet<const clang::Stmt *> ResolvedByName;
  OwnFences Own;
};

/// "TMA store", "bulk store", "wgmma", ... for messages.
const char *asyncOpName(AsyncOp Op);
/// The event of one classified PTX effect, performed at \p At / \p Loc.
/// Memory is left for the caller to resolve.
Event eventOf(const ptx::Effect &Eff, StmtRef At, clang::SourceLocation Loc,
              std::string What);
/// Whether a proxy fence of this space orders shared-memory accesses.
inline bool fenceCoversShared(FenceSpace S) { return S != FenceSpace::Global; }
/// A generic-proxy load or store.
inline bool isGenericAccess(const Event &E) {
  return E.Kind == EffectKind::GenericRead || E.Kind == EffectKind::GenericWrite;
}
/// Events that hand data from one thread to another (where writers fence).
inline bool isHandoff(const Event &E) {
  return E.Kind == EffectKind::Barrier || E.Kind == EffectKind::ClusterArrive ||
         E.Kind == EffectKind::MbarrierArrive;
}

} // namespace proxyfence

#endif
