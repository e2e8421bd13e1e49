#!/usr/bin/env bash
# Checks descent's ONNX export against onnxruntime (not part of CI): builds descent with the
# `onnx` feature, trains a few tic-tac-toe games, exports, and compares onnxruntime's values with
# burn's (scripts/check_onnx.py). Installs onnxruntime into scripts/.venv-onnx on first use.
#
#   scripts/check_onnx.sh [ARCH ...]   (default: paper-cnn resnet-b2c32-se-gsp32-fc64)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x scripts/.venv-onnx/bin/python ]; then
  python3 -m venv scripts/.venv-onnx
  scripts/.venv-onnx/bin/pip install --quiet -r scripts/requirements-onnx.txt
fi
cargo build --release --features onnx --bin descent
DESCENT="${CARGO_TARGET_DIR:-target}/release/descent"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
ARCHS=${*:-paper-cnn resnet-b2c32-se-gsp32-fc64}
for arch in $ARCHS; do
  sed "s/architecture: .*/architecture: $arch/" configs/tic_tac_toe.yaml > "$WORK/$arch.yaml"
  "$DESCENT" train "$WORK/$arch.yaml" --run-dir "$WORK/$arch" --max-games 4 --quiet > /dev/null
  "$DESCENT" export "$WORK/$arch" --out "$WORK/$arch.descent" > /dev/null
  echo "== $arch"
  scripts/.venv-onnx/bin/python scripts/check_onnx.py "$WORK/$arch.descent"
done
