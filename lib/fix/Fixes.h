//===- Fixes.h - where the fence goes and how it is spelled ----------------===//
#ifndef PROXYFENCE_FIXES_H
#define PROXYFENCE_FIXES_H

#include "analysis/ProxyDataflow.h"
#include "clang/AST/ParentMap.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Tooling/Core/Replacement.h"
#include "llvm/ADT/DenseMap.h"
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

namespace proxyfence {

enum class FenceStyle { Auto, Ptx, CudaPtx, CudaExperimental, Cutlass };
std::optional<FenceStyle> parseFenceStyle(llvm::StringRef S);

/// What an inserted statement does; each is spelled in the file's style.
enum class FixKind {
  ProxyFence,     // fence.proxy.async.shared::cta
  InitFence,      // fence.mbarrier_init.release.cluster
  ClusterBarrier, // barrier.cluster.arrive.relaxed + barrier.cluster.wait
  CtaBarrier,     // __syncthreads()
  TmemWaitLd,       // tcgen05.wait::ld
  TmemWaitSt,       // tcgen05.wait::st
  TmemFenceBefore,  // tcgen05.fence::before_thread_sync
  TmemFenceAfter,   // tcgen05.fence::after_thread_sync
  TensormapRelease, // fence.proxy.tensormap::generic.release.gpu
  TensormapAcquire, // fence.proxy.tensormap::generic.acquire.gpu [{map}], 128
};

/// The fix for one finding: where the fence goes, or why there is none.
struct PlannedFix {
  bool Ok = false;
  std::string Reason;         // when !Ok: "inside a macro expansion", ...
  clang::SourceLocation At;   // where the fence is inserted (file location)
  const clang::Stmt *Before = nullptr; // the statement the fence precedes
  const clang::Stmt *After = nullptr;  // or the statement it follows
  bool NeedsBraces = false;   // Before/After is the unbraced body of if/for
  bool Hoisted = false;       // moved out of a loop with no write inside
  bool AtAsync = false; // before the async operation, not the barrier crossed
  std::string FenceText;      // the statements inserted, one per line
  std::vector<std::string> Includes; // headers they need, e.g. "<cuda/ptx>"
};

/// Plans fixes for findings and turns them into replacements: one fence per
/// insertion point, spelled in the file's style, plus the include the
/// spelling needs.
class FixPlanner {
public:
  FixPlanner(clang::ASTContext &Ctx, FenceStyle Style,
             std::function<bool(clang::SourceLocation)> Editable);

  /// Plans all findings together (hoisting looks at every write that meets
  /// a fence at the same point). Result I is the fix of finding I.
  std::vector<PlannedFix> plan(const std::vector<Finding> &Findings);

  /// Adds the edits of every Ok fix to \p Out, keyed by file path.
  void addReplacements(const std::vector<PlannedFix> &Fixes,
                       std::map<std::string, clang::tooling::Replacements> &Out);

  /// Plans inserting the statements of \p Kinds, in this order, right after
  /// the statement of \p S's function that holds \p S (braces added around a
  /// lone body of if/for/while). With no kinds it only locates that
  /// statement and the insertion point.
  PlannedFix planAfter(StmtRef S, llvm::ArrayRef<FixKind> Kinds);
  /// The same, right before that statement.
  PlannedFix planBefore(StmtRef S, llvm::ArrayRef<FixKind> Kinds);

  /// Spelling used in the file holding \p Loc.
  FenceStyle styleAt(clang::SourceLocation Loc);
  std::string fenceText(FenceStyle S, FixKind K = FixKind::ProxyFence) const;
  const clang::ParentMap &parents(const clang::FunctionDecl *Fn);

private:
  /// The statement of a compound statement (or the sole body of a control
  /// statement) that contains \p S; null when there is none.
  /// planAfter, or planBefore when !\p After.
  PlannedFix planAround(StmtRef S, llvm::ArrayRef<FixKind> Kinds, bool After);
  const clang::Stmt *statementOf(StmtRef S, bool &NeedsBraces,
                                 std::string &Reason);
  bool isInside(const clang::Stmt *Inner, const clang::Stmt *Outer,
                const clang::ParentMap &PM);
  std::optional<std::string> includeFor(FenceStyle S,
                                        FixKind K = FixKind::ProxyFence);
  /// Whether a statement starting at \p Loc (ending at \p End) can be
  /// edited; the file location to edit at, or why not.
  std::optional<clang::SourceLocation>
  editableStart(clang::SourceLocation Loc, clang::SourceLocation End,
                std::string &Reason);
  /// File offset just past a statement: its last token, and the `;` that
  /// ends an expression statement.
  unsigned endOffset(const clang::Stmt *S);
  bool declared(llvm::ArrayRef<llvm::StringRef> Path);

  clang::ASTContext &Ctx;
  clang::SourceManager &SM;
  FenceStyle Style;
  std::function<bool(clang::SourceLocation)> Editable;
  llvm::DenseMap<const clang::FunctionDecl *, std::unique_ptr<clang::ParentMap>>
      ParentMaps;
  llvm::DenseMap<clang::FileID, FenceStyle> Styles;
};

} // namespace proxyfence

#endif
