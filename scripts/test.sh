#!/usr/bin/env bash
# Sets everything up, builds, and runs every test (gtest units + lit/FileCheck).
# GPU-only tests are reported UNSUPPORTED with a message when no GPU exists.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh build
cd build
ctest --output-on-failure -j "$(nproc)"
