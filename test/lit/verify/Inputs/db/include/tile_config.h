#pragma once
// Only found through the compile database's -I; TILE_ELEMS comes from -D.
#ifndef TILE_ELEMS
#error "TILE_ELEMS is defined by the compile command"
#endif
constexpr int kTileElems = TILE_ELEMS;
