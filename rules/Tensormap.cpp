//===- Tensormap.cpp - proxyfence-tensormap -------------------------------===//
//
// A tensor map (CUtensorMap) that device code modifies is read by TMA
// through the tensormap proxy. PTX ISA, "Proxies" in the memory consistency
// model, tensormap.replace, tensormap.cp_fenceproxy and membar/fence
// (fence.proxy.tensormap::generic): the writer makes its generic-proxy
// writes visible with fence.proxy.tensormap::generic.release (or writes the
// map with tensormap.cp_fenceproxy, which fences), and the thread that hands
// the map to TMA executes fence.proxy.tensormap::generic.acquire on the
// map's address before its first use, after whatever synchronisation told
// it the map is ready.
//
// One PathFlow pass per kernel meets each TMA operation and each hand-off
// with what the path did before it; the last tensor-map write is the mark.
// Tensor-map addresses are not compared: a kernel that modifies any map is
// expected to acquire before each TMA use that follows a synchronisation,
// unless the using thread wrote the maps itself and acquired after its last
// write: its later synchronisations (a pipeline's empty-barrier waits) tell
// it nothing about maps it wrote.
//
//===----------------------------------------------------------------------===//
#include "rules/OrderRules.h"
#include "analysis/PathFlow.h"
#include "model/TensorMapWrites.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include <set>
#include <tuple>

using namespace clang;

namespace proxyfence {

const StandaloneRule TensormapRule = {
    "proxyfence-tensormap",
    "tensor map modified in device code and used by TMA without "
    "fence.proxy.tensormap::generic.release after the write and "
    "fence.proxy.tensormap::generic.acquire before the use"};

namespace {
enum Bit : unsigned {
  Unreleased = 1, // a tensor-map write since the last release fence
  Acquired = 2,   // an acquire since the last synchronisation
  Wrote = 4,      // a tensor-map write since the entry
};

/// TMA operations that read a tensor map.
bool usesMap(const Event &E) {
  return (E.Kind == EffectKind::AsyncRead || E.Kind == EffectKind::AsyncWrite) &&
         (E.Op == AsyncOp::TensorLoad || E.Op == AsyncOp::TensorStore);
}

/// A write of a map TMA may read: not one in shared memory (TMA reads maps
/// from the param, const and global state spaces only; PTX ISA,
/// cp.async.bulk.tensor), which must be copied out first, and that copy is
/// the write that counts.
bool writesUsableMap(const Event &E) {
  return E.Kind == EffectKind::TensormapWrite && !E.ExplicitShared &&
         E.Mem.empty();
}

unsigned step(unsigned B, const Event &E) {
  switch (E.Kind) {
  case EffectKind::TensormapWrite:
    // A write after the acquire needs one of its own.
    return writesUsableMap(E) ? (B | Unreleased | Wrote) & ~Acquired : B;
  case EffectKind::TensormapRelease:
    return B & ~Unreleased;
  case EffectKind::TensormapAcquire:
    return B | Acquired;
  default:
    if (!isThreadSync(E) || ((B & Wrote) && !(B & Unreleased)))
      return B;
    return B & ~Acquired;
  }
}

std::string textOf(const Expr *E, const ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  return Lexer::getSourceText(
             SM.getExpansionRange(E->getSourceRange()),
             SM, Ctx.getLangOpts())
      .str();
}

/// The map operand of a TMA statement: an argument that is (a pointer to) a
/// tensor map. Null when none is.
const Expr *mapOperand(const Stmt *S) {
  auto isMap = [](const Expr *E) {
    const Expr *Bare = E->IgnoreParenImpCasts();
    if (const auto *Cast = dyn_cast<ExplicitCastExpr>(Bare))
      Bare = Cast->getSubExpr()->IgnoreParenImpCasts();
    QualType T = Bare->getType();
    return isTensorMapType(T) ||
           (T->isPointerType() && isTensorMapType(T->getPointeeType()));
  };
  const auto *Call = dyn_cast<CallExpr>(S);
  if (!Call)
    if (const auto *E = dyn_cast<Expr>(S))
      Call = dyn_cast<CallExpr>(E->IgnoreParenImpCasts());
  if (Call)
    for (const Expr *Arg : Call->arguments())
      if (isMap(Arg))
        return Arg;
  if (const auto *Asm = dyn_cast<GCCAsmStmt>(S))
    for (unsigned I = 0; I < Asm->getNumInputs(); ++I)
      if (isMap(Asm->getInputExpr(I)))
        return Asm->getInputExpr(I);
  return nullptr;
}

/// Whether \p E addresses only `const __grid_constant__` kernel parameters
/// (`&tensor_map_b`, a const local set to one, `c ? &m1 : &m2`): maps that no
/// code modifies.
bool gridConstantMap(const Expr *E, unsigned Depth = 0) {
  if (!E || Depth > 4)
    return false;
  E = E->IgnoreParenCasts();
  if (const auto *UO = dyn_cast<UnaryOperator>(E))
    return UO->getOpcode() == UO_AddrOf &&
           gridConstantMap(UO->getSubExpr(), Depth + 1);
  if (const auto *CO = dyn_cast<ConditionalOperator>(E))
    return gridConstantMap(CO->getTrueExpr(), Depth + 1) &&
           gridConstantMap(CO->getFalseExpr(), Depth + 1);
  const auto *DRE = dyn_cast<DeclRefExpr>(E);
  const auto *V = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  if (!V)
    return false;
  if (isa<ParmVarDecl>(V))
    return V->hasAttr<CUDAGridConstantAttr>() && isTensorMapType(V->getType());
  // A local pointer set once: `const auto p = &map;`.
  return V->isLocalVarDecl() && V->getType().isConstQualified() &&
         V->getInit() && gridConstantMap(V->getInit(), Depth + 1);
}

/// The address of the tensor map a TMA statement uses, as source text: an
/// argument that is (a pointer to) a CUtensorMap, or whose parameter names a
/// map or descriptor; empty when none is recognised.
std::string mapAddress(const Stmt *S, const ASTContext &Ctx) {
  auto fromExpr = [&](const Expr *E) -> std::string {
    const Expr *Bare = E->IgnoreParenImpCasts();
    // reinterpret_cast<uint64_t>(&map): the pointer inside.
    if (const auto *Cast = dyn_cast<ExplicitCastExpr>(Bare))
      Bare = Cast->getSubExpr()->IgnoreParenImpCasts();
    QualType T = Bare->getType();
    if (T->isPointerType() && isTensorMapType(T->getPointeeType()))
      return textOf(Bare, Ctx);
    if (isTensorMapType(T))
      return "&" + textOf(Bare, Ctx);
    return "";
  };
  auto named = [](llvm::StringRef N) {
    std::string L = N.lower();
    return llvm::StringRef(L).contains("map") ||
           llvm::StringRef(L).contains("desc");
  };
  if (const auto *Asm = dyn_cast<GCCAsmStmt>(S)) {
    for (unsigned I = 0; I < Asm->getNumInputs(); ++I)
      if (std::string A = fromExpr(Asm->getInputExpr(I)); !A.empty())
        return A;
    return "";
  }
  const auto *Call = dyn_cast<CallExpr>(S);
  if (!Call)
    if (const auto *E = dyn_cast<Expr>(S))
      Call = dyn_cast<CallExpr>(E->IgnoreParenImpCasts());
  if (!Call)
    return "";
  const FunctionDecl *Callee = Call->getDirectCallee();
  for (unsigned I = 0; I < Call->getNumArgs(); ++I) {
    if (std::string A = fromExpr(Call->getArg(I)); !A.empty())
      return A;
    if (Callee && I < Callee->getNumParams() &&
        named(Callee->getParamDecl(I)->getName()) &&
        Call->getArg(I)->getType()->isPointerType())
      return textOf(Call->getArg(I)->IgnoreParenImpCasts(), Ctx);
  }
  return "";
}
} // namespace

std::vector<OrderFinding>
findTensormapOrder(ASTContext &Ctx, EventExtractor &Events,
                   llvm::ArrayRef<const FunctionDecl *> Roots) {
  // Every finding needs a root that modifies a map: with no map written in
  // what the proxy analysis of the same roots met, the paths need no walk.
  if (!Events.extracted(EffectKind::TensormapWrite))
    return {};
  PathFlowSpec Spec{step, writesUsableMap, [](const Event &E) {
                      return usesMap(E) || isThreadHandoff(E) ||
                             writesUsableMap(E);
                    }};
  PathFlow Flow(Ctx, Events, Spec);
  OrderFindingList Found(TensormapRule);
  for (const FunctionDecl *Root : entryRoots(Roots)) {
    std::vector<PathHit> Hits = Flow.run(Root);
    bool Modifies = llvm::any_of(
        Hits, [](const PathHit &H) { return writesUsableMap(H.E); });
    if (!Modifies)
      continue;
    bool UsedByTma = llvm::any_of(
        Hits, [](const PathHit &H) { return usesMap(H.E); });
    // A write whose own thread's TMA use is reported needs no second
    // warning at a hand-off: the one release after it fixes both.
    std::set<const Stmt *> WritesReported;
    for (const PathHit &H : Hits)
      if (usesMap(H.E) && (H.Bits & Unreleased) && H.Mark &&
          !gridConstantMap(mapOperand(H.E.At.S)))
        WritesReported.insert(H.Mark->At.S);
    for (const PathHit &H : Hits) {
      // A `const __grid_constant__` map is never the one modified.
      if (usesMap(H.E) && gridConstantMap(mapOperand(H.E.At.S)))
        continue;
      if (usesMap(H.E) && (H.Bits & Unreleased)) {
        OrderFinding F;
        F.Message = "the " + H.E.What + " reads a tensor map this thread "
                    "modified, with no fence.proxy.tensormap::generic.release "
                    "after the write: the tensormap proxy may see the old map";
        F.At = H.E;
        if (H.Mark) {
          F.Notes.push_back({*H.Mark, "the tensor map is modified here; the "
                                      "release fence goes after it"});
          F.FixAt = H.Mark->At;
          F.FixAfter = true;
        } else {
          F.FixAt = H.E.At;
        }
        F.Kinds = {FixKind::TensormapRelease};
        Found.add(std::move(F), 0);
      }
      if (usesMap(H.E) && !(H.Bits & Acquired)) {
        OrderFinding F;
        F.Message = "the " + H.E.What + " uses a tensor map that device code "
                    "modifies, with no fence.proxy.tensormap::generic.acquire "
                    "on the map before it";
        F.At = H.E;
        F.MapAddress = mapAddress(H.E.At.S, Ctx);
        if (F.MapAddress.empty())
          F.NoFix = "the tensor map's address is not recognised at the use";
        else
          F.Kinds = {FixKind::TensormapAcquire};
        F.FixAt = H.E.At;
        Found.add(std::move(F), 1);
      }
      if (isThreadHandoff(H.E) && (H.Bits & Unreleased) && UsedByTma &&
          !(H.Mark && WritesReported.count(H.Mark->At.S))) {
        OrderFinding F;
        F.Message = "a tensor map modified by this thread is handed to other "
                    "threads here with no fence.proxy.tensormap::generic."
                    "release after the write";
        F.At = H.E;
        if (H.Mark) {
          F.Notes.push_back({*H.Mark, "the tensor map is modified here"});
          F.FixAt = H.Mark->At;
          F.FixAfter = true;
        } else {
          F.FixAt = H.E.At;
        }
        F.Kinds = {FixKind::TensormapRelease};
        Found.add(std::move(F), 2);
      }
    }
  }
  return Found.take();
}

} // namespace proxyfence
