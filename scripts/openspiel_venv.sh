# Sourced by the OpenSpiel scripts: installs open_spiel into scripts/.venv on first use, builds
# the release binary and sets DESCENT_BIN to it.
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ ! -x scripts/.venv/bin/python ]; then
  python3 -m venv scripts/.venv
  scripts/.venv/bin/pip install --quiet -r scripts/requirements-references.txt
fi
cargo build --release --bin descent
DESCENT_BIN="${CARGO_TARGET_DIR:-target}/release/descent"
