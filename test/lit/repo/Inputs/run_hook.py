#!/usr/bin/env python3
"""Runs a hook of .pre-commit-hooks.yaml the way pre-commit runs a
`language: system` hook, for machines without pre-commit: the staged files
of REPO whose identify tags match `types_or` (cuda: .cu, .cuh), appended
to `entry` and `args`, in REPO, with BIN_DIR first on PATH. Prints
"exit=N" with the hook's exit status.

  run_hook.py HOOKS_YAML HOOK_ID REPO BIN_DIR [ARG...]
"""
import os
import shlex
import subprocess
import sys

import yaml

# identify's tags for these extensions (identify/extensions.py).
TAGS = {".cu": {"text", "cuda"}, ".cuh": {"text", "cuda"}, ".cpp": {"text", "c++"},
        ".h": {"text", "header", "c", "c++"}, ".txt": {"text", "plain-text"}}


def main(hooks_yaml, hook_id, repo, bin_dir, *extra):
    with open(hooks_yaml) as f:
        hooks = {h["id"]: h for h in yaml.safe_load(f)}
    hook = hooks[hook_id]
    if hook.get("language") != "system":
        sys.exit(f"run_hook: {hook_id} is not a language: system hook")
    wanted = set(hook.get("types_or", []))
    staged = subprocess.run(["git", "diff", "--cached", "--name-only", "--diff-filter=ACMR"],
                            cwd=repo, capture_output=True, text=True, check=True).stdout.split()
    files = [p for p in staged if TAGS.get(os.path.splitext(p)[1], set()) & wanted]
    if not files:
        print("(no files to check)")  # pre-commit skips the hook
        return 0
    argv = shlex.split(hook["entry"]) + list(hook.get("args", [])) + list(extra) + files
    env = dict(os.environ, PATH=bin_dir + os.pathsep + os.environ.get("PATH", ""))
    rc = subprocess.run(argv, cwd=repo, env=env).returncode
    print(f"exit={rc}")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
