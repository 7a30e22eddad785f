//===- CfgReach.h - which statements of a CFG can run after which ----------===//
//
// The proxy dataflow pairs roles, paths of one function that never meet;
// proxyfence-tcgen05-order asks whether one statement can run after another
// in one thread. Both ask the CFG which statements reach which.
//
//===----------------------------------------------------------------------===//
#ifndef PROXYFENCE_ANALYSIS_CFGREACH_H
#define PROXYFENCE_ANALYSIS_CFGREACH_H

#include "clang/Analysis/CFG.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include <map>
#include <optional>
#include <utility>
#include <vector>

namespace proxyfence {

class CfgReach {
public:
  explicit CfgReach(const clang::CFG &G)
      : Graph(G), Blocks(G.getNumBlockIDs()) {
    for (const clang::CFGBlock *B : G) {
      Blocks[B->getBlockID()] = B;
      unsigned I = 0;
      for (const clang::CFGElement &El : *B)
        if (auto CS = El.getAs<clang::CFGStmt>())
          Position.try_emplace(CS->getStmt(), B->getBlockID(), I++);
    }
  }

  /// The block of \p S and its index there; none when the CFG lacks it.
  std::optional<std::pair<unsigned, unsigned>>
  position(const clang::Stmt *S) const {
    auto It = Position.find(S);
    if (It == Position.end())
      return std::nullopt;
    return It->second;
  }

  /// Whether \p To can run after \p From on some path: later in the same
  /// block, or in a block reached from \p From's over at least one edge
  /// (so a statement follows itself only in a loop). \p IfUnknown when the
  /// CFG lacks either statement.
  bool canFollow(const clang::Stmt *From, const clang::Stmt *To,
                 bool IfUnknown) {
    return follows(From, To, IfUnknown, /*OneThread=*/false);
  }

  /// Marks the two-way branches whose condition \p ThreadFixed says each
  /// thread decides the same way every time (ThreadInvariance.h): a thread
  /// in one arm never reaches the other arm's blocks, though a loop's back
  /// edge joins them (a persistent kernel's role dispatch).
  void setThreadFixedBranches(
      llvm::function_ref<bool(const clang::Expr *)> ThreadFixed);

  /// canFollow for one thread: from inside an arm of a thread-fixed branch,
  /// that branch is only ever left through the same edge.
  bool canFollowInThread(const clang::Stmt *From, const clang::Stmt *To,
                         bool IfUnknown) {
    return follows(From, To, IfUnknown, /*OneThread=*/true);
  }

private:
  bool follows(const clang::Stmt *From, const clang::Stmt *To, bool IfUnknown,
               bool OneThread);
  /// Blocks reached from \p Start's successors over the edges \p Allowed
  /// (a block and a successor index) lets through.
  std::vector<bool>
  reachable(const clang::CFGBlock *Start,
            llvm::function_ref<bool(const clang::CFGBlock *, unsigned)>
                Allowed) const;

  const clang::CFG &Graph;
  std::vector<const clang::CFGBlock *> Blocks; // by ID
  /// Block and index of each statement of the CFG.
  std::map<const clang::Stmt *, std::pair<unsigned, unsigned>> Position;
  std::map<unsigned, std::vector<bool>> Reachable; // by block: successors'
  /// By block: the thread-fixed branches it lies in one arm of, and the
  /// edge (successor index) a thread there always takes at each.
  std::map<unsigned, std::vector<std::pair<unsigned, unsigned>>> FixedEdges;
  std::map<unsigned, std::vector<bool>> ThreadReachable; // by block
};

} // namespace proxyfence

#endif
