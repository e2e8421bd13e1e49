#!/usr/bin/env bash
# The GPU machine's checks in one call (docs/gpu.md): the Vulkan driver found, `bench nn` on the
# GPU, 2-minute Connect Four and Awale runs on the GPU (and Connect Four on the same machine's
# CPU cores, for comparison), each run exported with its values written by `check-net` for the
# same-values check back on a CPU machine. Everything lands in $OUT/gpu-results.tar.gz.
#
# Build where cargo works and bring the binary along, stripped and compressed:
#   cargo build --release --features wgpu && mkdir -p gpu-bin
#   strip -o gpu-bin/descent target/release/descent && gzip -9 gpu-bin/descent
# Vulkan's loader (libvulkan1 …) unpacked from .gl/*.deb when the machine has none.
# Usage: OUT=/some/dir RUN_SECONDS=120 bash scripts/gpu_check.sh
# (BENCH_ARCHS, BENCH_BATCHES, TRAIN_BATCHES change the bench's networks and sizes.)
set -uo pipefail
out=${OUT:?set OUT to the folder the results go to}
run_time=${RUN_SECONDS:-120}s
work=$(mktemp -d)
bin=${DESCENT_BIN:-$work/descent}
[ -x "$bin" ] || gunzip -c gpu-bin/descent.gz >"$bin" && chmod +x "$bin"
log() { printf '\n=== %s (%s)\n' "$*" "$(date +%T)"; }

if ! ldconfig -p | grep -q libvulkan && compgen -G ".gl/*.deb" >/dev/null; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
[ -f "$icd" ] && export VK_DRIVER_FILES=$icd
ls /usr/local/nvidia/share/vulkan/icd.d/ 2>&1
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
nproc

log "smoke: one batch on wgpu"
timeout 120 "$bin" bench nn connect_four --device wgpu --batch 256 --seconds 0.5 || {
  echo "wgpu does not run here"; exit 1; }

train() { # name config extra-args…
  local name=$1 config=$2; shift 2
  log "train $name"
  nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv,noheader -l 2 \
    >"$work/$name.gpu-use.csv" 2>/dev/null &
  local sampler=$!
  # A first SIGINT asks the run to finish its games in play and checkpoint.
  time timeout -s INT -k 60 $((${run_time%s} + 60)) "$bin" train "$config" --run-dir "$work/$name" \
    --max-time "$run_time" --quiet "$@"
  kill "$sampler" 2>/dev/null
  "$bin" export "$work/$name" --out "$work/$name.descent" --no-safetensors
  "$bin" check-net "$work/$name.descent" --game "$(sed -n 's/^game: *\([a-z_0-9]*\).*/\1/p' "$config")" \
    --device wgpu --out "$work/$name.values.json"
  tail -n 3 "$work/$name/metrics.jsonl" | cut -c1-600
}

train connect_four-gpu configs/gpu-connect_four.yaml

for arch in ${BENCH_ARCHS:-paper-cnn resnet-b8c132-fc256-fc256}; do
  log "bench nn $arch"
  timeout 150 "$bin" bench nn connect_four --arch "$arch" --device wgpu \
    --batch "${BENCH_BATCHES:-1,32,256,3000}" --train --train-batch "${TRAIN_BATCHES:-32,256,3000}" \
    --seconds 1 --json | tee "$work/bench-$arch.json" |
    python3 -c 'import json,sys; r=json.load(sys.stdin); print(json.dumps(r, indent=1))'
done

train awale-gpu configs/gpu-awale.yaml
train connect_four-cpu16 configs/gpu-connect_four.yaml --device descent-cpu

log "pack"
tar -C "$work" -czf "$out/gpu-results.tar.gz" --exclude='ckpt-*' --exclude='latest' --exclude='*.bin*' .
ls -la "$out"
