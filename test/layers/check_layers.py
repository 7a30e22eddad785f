#!/usr/bin/env python3
"""Checks that the engine's layers include one way only (docs/architecture.md).

Each source file belongs to a layer: lib/<layer>/..., rules/... (the rules
layer), or an entry header include/proxyfence/X.h (the layer whose folder
holds X.cpp). A file may include headers of its own layer and of the layers
below it, never above. The clang-tidy plugin reaches only the report, rules
and frontend entry points. An entry header that nothing in tool/ includes
belongs beside its .cpp. Include cycles between modules (X.h with X.cpp) are
reported too.

Exit status: 0 clean, 1 violations (one line each), 2 bad usage.
--graph prints the module graph as levels, upward arrows and cycles.
"""
import argparse
import os
import re
import sys

# Lowest first. Folders under lib/, except rules/, which is top-level.
LAYERS = ["support", "ptx", "frontend", "model", "analysis", "fix", "rules",
          "report", "verify", "driver"]
# What each tool may include directly (None: any layer).
TOOLS = {
    "tool/ProxyFenceTidyModule.cpp": {"report", "rules", "frontend"},
    "tool/proxyfence.cpp": None,
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
SOURCE_SUFFIXES = (".h", ".cpp", ".inc", ".def")


def layer_folder(root, layer):
    return os.path.join(root, "rules" if layer == "rules" else os.path.join("lib", layer))


def source_files(root):
    """(relative path, layer or tool key) for every file that is checked."""
    for layer in LAYERS:
        top = layer_folder(root, layer)
        for dirpath, _, names in os.walk(top):
            for n in sorted(names):
                if n.endswith(SOURCE_SUFFIXES):
                    yield os.path.relpath(os.path.join(dirpath, n), root), layer
    pub = os.path.join(root, "include", "proxyfence")
    for n in sorted(os.listdir(pub)) if os.path.isdir(pub) else []:
        rel = os.path.join("include", "proxyfence", n)
        yield rel, None  # resolved by entry_layer
    for rel in TOOLS:
        if os.path.exists(os.path.join(root, rel)):
            yield rel, "tool"


def entry_layer(root, name):
    """The layer of include/proxyfence/<name>: where its .cpp lives."""
    stem = os.path.splitext(name)[0]
    for layer in LAYERS:
        if os.path.exists(os.path.join(layer_folder(root, layer), stem + ".cpp")):
            return layer
    return None


def resolve(root, inc):
    """(relative path, layer) of a project include, or None for others."""
    first, _, rest = inc.partition("/")
    if first == "proxyfence" and rest:
        rel = os.path.join("include", "proxyfence", rest)
        return rel, entry_layer(root, rest)
    if first in LAYERS and rest:
        rel = os.path.relpath(os.path.join(layer_folder(root, first), rest), root)
        return rel, first
    return None


def module_of(rel):
    """X.h and X.cpp of one folder are one module; entry headers join
    their .cpp's module."""
    stem = os.path.splitext(rel)[0]
    if rel.startswith(os.path.join("include", "proxyfence") + os.sep):
        return "entry:" + os.path.basename(stem)
    return stem


def collect(root):
    files, errors, edges = {}, [], []
    for rel, layer in source_files(root):
        if layer is None:
            layer = entry_layer(root, os.path.basename(rel))
            if layer is None:
                errors.append(f"{rel}: an entry header with no .cpp in any layer folder")
                continue
        files[rel] = layer
    for rel, layer in files.items():
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            text = f.read()
        for m in INCLUDE.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            target = resolve(root, m.group(1))
            if target is None:
                continue
            trel, tlayer = target
            if not os.path.exists(os.path.join(root, trel)):
                errors.append(f"{rel}:{line}: includes \"{m.group(1)}\", which does not exist")
                continue
            edges.append((rel, line, m.group(1), trel, layer, tlayer))
    return files, errors, edges


def check(root):
    files, errors, edges = collect(root)
    rank = {l: i for i, l in enumerate(LAYERS)}
    used_by_tools = set()
    for rel, line, inc, trel, layer, tlayer in edges:
        if layer == "tool":
            used_by_tools.add(trel)
            allowed = TOOLS.get(rel)
            if allowed is not None and tlayer not in allowed:
                errors.append(f"{rel}:{line}: includes \"{inc}\" ({tlayer}); it may reach only "
                              + ", ".join(sorted(allowed)))
            continue
        if rank[tlayer] > rank[layer]:
            errors.append(f"{rel}:{line}: includes \"{inc}\": {layer} may not include {tlayer}, "
                          "a layer above it")
    for rel in files:
        if rel.startswith(os.path.join("include", "proxyfence")) and rel not in used_by_tools:
            errors.append(f"{rel}: no tool includes it; a header only lib/ uses belongs beside its .cpp")
    for cycle in cycles(graph(edges)):
        errors.append("include cycle: " + " -> ".join(cycle + [cycle[0]]))
    return errors


def graph(edges):
    g = {}
    for rel, _, _, trel, layer, _ in edges:
        if layer == "tool":
            continue
        a, b = module_of(rel), module_of(trel)
        if a != b:
            g.setdefault(a, set()).add(b)
            g.setdefault(b, set())
    # An entry header is the public face of its .cpp's module.
    merged = {}
    for a, outs in g.items():
        merged.setdefault(entry_alias(a, g), set()).update(entry_alias(b, g) for b in outs)
    for a in merged:
        merged[a].discard(a)
    return merged


def entry_alias(node, g):
    if not node.startswith("entry:"):
        return node
    name = node[len("entry:"):]
    for other in g:
        if not other.startswith("entry:") and os.path.basename(other) == name:
            return other
    return node


def cycles(g):
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(g.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(g):
        if v not in index:
            visit(v)
    return out


def levels(g):
    """Longest include chain below each module (cycles cut at a repeat)."""
    memo = {}

    def depth(v, seen):
        if v in memo:
            return memo[v]
        if v in seen:
            return 0
        seen.add(v)
        d = 1 + max((depth(w, seen) for w in g.get(v, ())), default=0)
        seen.discard(v)
        memo[v] = d
        return d

    return {v: depth(v, set()) for v in g}


def print_graph(root):
    files, _, edges = collect(root)
    g = graph(edges)
    rank = {l: i for i, l in enumerate(LAYERS)}
    up = [e for e in edges if e[4] != "tool" and rank[e[5]] > rank[e[4]]]
    lv = levels(g)
    print(f"modules: {len(g)}, include arrows between modules: {sum(len(v) for v in g.values())}")
    print(f"levels: {max(lv.values(), default=0)}")
    print(f"upward includes: {len(up)}")
    for rel, line, inc, *_ in up:
        print(f"  {rel}:{line} -> {inc}")
    cs = cycles(g)
    print(f"cycles: {len(cs)}")
    for c in cs:
        print("  " + " -> ".join(c + [c[0]]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(__file__), "..", ".."))
    ap.add_argument("--graph", action="store_true", help="print levels, upward arrows, cycles")
    a = ap.parse_args()
    root = os.path.abspath(a.root)
    if not os.path.isdir(os.path.join(root, "lib")):
        print(f"check_layers: error: no lib/ under {root}", file=sys.stderr)
        return 2
    if a.graph:
        print_graph(root)
        return 0
    errors = check(root)
    for e in errors:
        print(e)
    print(f"check_layers: {len(errors)} violation(s)" if errors else "check_layers: layers include one way")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
