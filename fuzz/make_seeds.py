#!/usr/bin/env python3
"""Regenerates the seed corpora in fuzz/corpus/ from the repository's own
inputs: every inline-asm template of the lit tests and examples (for
PtxFuzzer), the PTX modules of the ptx-check tests and nvcc's PTX of the
examples (for PtxModuleFuzzer), plus hand-written odd spellings. Seeds are
named by their SHA-1, as libFuzzer names its corpus files, so rerunning adds
nothing twice. Regression inputs added by hand stay.

Usage: fuzz/make_seeds.py [--nvcc PATH]
"""
import argparse
import glob
import hashlib
import os
import re
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Spellings real asm uses that the repository's files may not show.
ODD_ASM = [
    "fence.proxy.async.shared::cta;",
    "fence.proxy.async;",
    "fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster;",
    "fence.mbarrier_init.release.cluster;",
    "  \t fence.proxy.async.shared::cta \t ;  // trailing comment\n",
    "/* a comment */ bar.sync 0; /* another */",
    "bar.sync 1, 128;\nbar.arrive 2, 64;\nbarrier.cta.sync.aligned 0;",
    "bar.warp.sync -1;",
    "barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.aligned;",
    "{\n .reg .pred p;\n setp.eq.u32 p, %0, 0;\n @p st.shared.u32 [%1], %2;\n}\n",
    "{ .reg .pred P1; LAB_WAIT: mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1; @P1 bra DONE; bra LAB_WAIT; DONE: }",
    "@!%1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %2;",
    "mbarrier.init.shared::cta.b64 [%0], %1;",
    "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];",
    "st.shared.v4.f32 [%0], {%1, %2, %3, %4};",
    "st.shared.b32 [%[smem] + 16], %[bar];",
    "stmatrix.sync.aligned.x4.m8n8.shared.b16 [%0], {%1, %2, %3, %4};",
    "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];",
    "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];",
    "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];",
    "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, {%2, %3, %4}], [%5], %6;",
    "cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;",
    "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];",
    "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%0], [%1], %2;",
    "cp.async.bulk.commit_group;\ncp.async.bulk.wait_group.read 0;",
    "cp.async.bulk.prefetch.tensor.2d.L2.global [%0, {%1, %2}];",
    "cp.async.mbarrier.arrive.noinc.shared.b64 [%0];",
    "wgmma.fence.sync.aligned;",
    "{\n.reg .pred p;\nsetp.ne.b32 p, %10, 0;\n"
    "wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 \n"
    "{%0, %1, %2, %3, %4, %5, %6, %7},\n %8,\n %9,\n p, 1, 1, 0, 0;\n}\n",
    "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%0, %1, %2, %3}, {%4, %5, %6, %7}, %8, p, 1, 1, 1;",
    "wgmma.commit_group.sync.aligned;\nwgmma.wait_group.sync.aligned 0;",
    "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;",
    "tcgen05.mma.cta_group::2.kind::f16 [%0], [%1], %2, %3, p;",
    "tcgen05.cp.cta_group::1.128x256b [%0], %1;",
    "tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%0], %1;",
    "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 128;",
    "st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%0], %1, [%2];",
    "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%0], %1, [%2];",
    "atom.shared.add.u32 %0, [%1], 1;\nred.shared.add.u32 [%0], 1;",
    "st.u32 [%0], %1;\nld.u32 %0, [%1];\nst.global.u32 [%0], %1;",
    "st.bulk.weak [%0], %1, 0;",
    "clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.multicast::cluster::all.b128 [%0], [%1];",
    "mov.u32 %0, %%laneid;",
    "mov.u32 %0, %laneid;",
    "L%=: bra L%=;",
    "membar.proxy.async;",
    "{ { { bar.sync 0; } } }",
    "}}}{{{ ;;; @ @p",
    "[%0], {%1",
    "%[unterminated",
    "/* never closed",
    "// only a comment",
    "st.shared.u32 [%99999999999999999999], %1;",
    "\r\n\tfence.proxy.async.shared::cta;\r\n\tbar.sync 0;\r\n",
    "st.shared.u32\t[%0],\v%1;\f",
    "label::with::colons: bra label;",
]

ASM_START = re.compile(r"\basm\s*(?:volatile|__volatile__)?\s*\(")
STRING = re.compile(r'\s*"((?:[^"\\\n]|\\.)*)"')
ESCAPES = {"n": "\n", "t": "\t", "\\": "\\", '"': '"', "'": "'", "r": "\r",
           "0": "\0", "v": "\v", "f": "\f"}


def asm_templates(text):
    """The string literal(s) that open each asm statement, joined."""
    for m in ASM_START.finditer(text):
        pos, parts = m.end(), []
        while True:
            s = STRING.match(text, pos)
            if not s:
                break
            parts.append(s.group(1))
            pos = s.end()
        if parts:
            raw = "".join(parts)
            yield re.sub(r"\\(.)", lambda e: ESCAPES.get(e.group(1), e.group(1)), raw)


def write_seed(directory, data):
    data = data.encode() if isinstance(data, str) else data
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, hashlib.sha1(data).hexdigest())
    if not os.path.exists(path):
        with open(path, "wb") as f:
            f.write(data)
        return 1
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nvcc", default="/usr/local/cuda/bin/nvcc")
    args = ap.parse_args()
    asm_dir = os.path.join(ROOT, "fuzz", "corpus", "PtxFuzzer")
    mod_dir = os.path.join(ROOT, "fuzz", "corpus", "PtxModuleFuzzer")

    sources = sorted(glob.glob(os.path.join(ROOT, "test", "lit", "**", "*.cu"), recursive=True) +
                     glob.glob(os.path.join(ROOT, "examples", "*", "*.cu")))
    added = sum(write_seed(asm_dir, t) for src in sources
                for t in asm_templates(open(src, encoding="utf-8", errors="replace").read()))
    added += sum(write_seed(asm_dir, t) for t in ODD_ASM)
    print("PtxFuzzer: %d new seeds" % added)

    added = 0
    for test in sorted(glob.glob(os.path.join(ROOT, "test", "lit", "verify", "ptx-*.test"))):
        text = open(test, encoding="utf-8").read()
        if text.lstrip("/ \t\n").find(".version") >= 0 and ".entry" in text:
            added += write_seed(mod_dir, text)
    if os.access(args.nvcc, os.X_OK):
        with tempfile.TemporaryDirectory() as tmp:
            for src in sorted(glob.glob(os.path.join(ROOT, "examples", "*", "*.cu"))):
                if src.endswith(".fixed.cu"):
                    continue
                arch = "100a" if "tcgen05" in open(src).read() else "90a"
                out = os.path.join(tmp, "out.ptx")
                subprocess.run([args.nvcc, "-std=c++17", "-ptx", "-lineinfo",
                                "-arch=sm_" + arch, src, "-o", out], check=True)
                added += write_seed(mod_dir, open(out, "rb").read())
    print("PtxModuleFuzzer: %d new seeds" % added)


if __name__ == "__main__":
    main()
