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
    auto F = position(From), T = position(To);
    if (!F || !T)
      return IfUnknown;
    auto [FB, FI] = *F;
    auto [TB, TI] = *T;
    if (FB == TB && FI < TI)
      return true;
    auto &Seen = Reachable[FB];
    if (Seen.empty()) {
      Seen.assign(Graph.getNumBlockIDs(), false);
      std::vector<const clang::CFGBlock *> Work{Blocks[FB]};
      while (!Work.empty()) {
        const clang::CFGBlock *B = Work.back();
        Work.pop_back();
        for (const clang::CFGBlock *Succ : B->succs())
          if (Succ && !Seen[Succ->getBlockID()]) {
            Seen[Succ->getBlockID()] = true;
            Work.push_back(Succ);
          }
      }
    }
    return Seen[TB];
  }

private:
  const clang::CFG &Graph;
  std::vector<const clang::CFGBlock *> Blocks; // by ID
  /// Block and index of each statement of the CFG.
  std::map<const clang::Stmt *, std::pair<unsigned, unsigned>> Position;
  std::map<unsigned, std::vector<bool>> Reachable; // by block: successors'
};

} // namespace proxyfence

#endif
