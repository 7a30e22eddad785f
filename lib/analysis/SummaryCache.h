//===- SummaryCache.h - one summary per function and context ---------------===//
//
// The analyses that see callees through summaries (ProxyDataflow,
// InitPublication, PathFlow) make each summary once per function and
// context (bindings, incoming state). While a summary is being made, its
// slot already holds a seed, and a call back into the function (recursion)
// gets that seed: such a call is transparent.
//
//===----------------------------------------------------------------------===//
#ifndef PROXYFENCE_ANALYSIS_SUMMARYCACHE_H
#define PROXYFENCE_ANALYSIS_SUMMARYCACHE_H

#include "clang/AST/Decl.h"
#include "llvm/ADT/DenseMap.h"
#include <map>
#include <memory>

namespace proxyfence {

template <typename KeyT, typename SummaryT> class SummaryCache {
public:
  /// Whether a summary of \p Fn is being made. A caller that specialises on
  /// bindings asks for the unspecialised summary then, so that constants
  /// cannot unfold a recursion forever.
  bool inProgress(const clang::FunctionDecl *Fn) const {
    return InProgress.lookup(Fn);
  }

  /// The summary of \p Key, a context of \p Fn. The first time, \p Seed
  /// fills the slot that recursive calls see, and \p Make (with \p Fn in
  /// progress) the summary itself. Summaries never move once made.
  template <typename SeedFn, typename MakeFn>
  const SummaryT &get(const KeyT &Key, const clang::FunctionDecl *Fn,
                      SeedFn Seed, MakeFn Make) {
    auto It = Summaries.find(Key);
    if (It != Summaries.end())
      return *It->second; // done, or in progress (recursion: transparent)
    std::unique_ptr<SummaryT> &Slot = Summaries[Key];
    Slot = std::make_unique<SummaryT>();
    Seed(*Slot);
    SummaryT Result;
    ++InProgress[Fn];
    Make(Result);
    --InProgress[Fn];
    *Slot = std::move(Result); // std::map: the slot outlives the inserts
    return *Slot;
  }

private:
  std::map<KeyT, std::unique_ptr<SummaryT>> Summaries;
  llvm::DenseMap<const clang::FunctionDecl *, unsigned> InProgress;
};

} // namespace proxyfence

#endif
