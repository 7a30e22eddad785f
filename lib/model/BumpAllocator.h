//===- BumpAllocator.h - members that hand out fresh memory ---------------===//
//
// ThunderKittens and hand-written kernels carve dynamic shared memory with a
// bump allocator: `T &allocate() { T *p = (T *)ptr; ptr += sizeof(T) / 4;
// return *p; }`. Each call returns the pointer's value before advancing it,
// and the class never moves it back, so two calls of one allocator object
// hand out memory that does not overlap. This reads that from the member's
// body and the class's other members, not from names.
//
//===----------------------------------------------------------------------===//
#ifndef PROXYFENCE_BUMPALLOCATOR_H
#define PROXYFENCE_BUMPALLOCATOR_H

#include "clang/AST/Decl.h"

namespace proxyfence {

/// The pointer field of `*this` whose value member function \p Def returns
/// (through a local initialised from it before the field advances) and then
/// advances with `+=` or `++`, when no member of the class but its
/// constructors sets the field otherwise than by advancing it (an alignment
/// step `ptr = (T *)(p + pad)` with `p` read from it counts as advancing).
/// Null otherwise.
const clang::FieldDecl *bumpedField(const clang::FunctionDecl *Def);

} // namespace proxyfence

#endif
