//===- TensorMapWrites.h - C++ code that modifies a tensor map -------------===//
//
// A tensor map (CUtensorMap, cute::TmaDescriptor) is modified in device code
// by PTX (tensormap.replace, Ptx.cpp) or by plain C++: a struct copy into a
// map in shared or global memory, a store into its bytes, memcpy. TMA reads
// the map through the tensormap proxy, so these are writes the
// proxyfence-tensormap rule must see.
//
//===----------------------------------------------------------------------===//
#ifndef PROXYFENCE_TENSORMAPWRITES_H
#define PROXYFENCE_TENSORMAPWRITES_H

#include "clang/AST/Expr.h"

namespace proxyfence {

/// Whether \p T is a tensor map (CUtensorMap or an alias of it).
bool isTensorMapType(clang::QualType T);

/// Whether storing to the lvalue \p Target writes into a tensor map: the map
/// itself, a member or element of it, or memory reached by casting a map's
/// address (`reinterpret_cast<uint64_t *>(map)[i]`).
bool writesTensorMap(const clang::Expr *Target);

/// Whether the pointer \p Dest (memcpy's destination) points into a tensor
/// map.
bool pointsIntoTensorMap(const clang::Expr *Dest);

} // namespace proxyfence

#endif
