#!/usr/bin/env bash
# Two training runs at once on a GPU machine (docs/gpu.md, "Runs with many players"): Connect
# Four and Awale, each pinned to half the CPU cores with PLAYERS self-play threads sharing one
# batching evaluator on the GPU (wgpu), the learner on the GPU too; each run exported and its
# values written by `check-net` for the same-values check back on a CPU machine. Results (run
# metrics, exports, values, GPU use) land in $OUT/gpu-runs.tar.gz.
#
# Build here and bring the binary (scripts/gpu_check.sh says how: gpu-bin/descent.gz), and the
# Vulkan loader's .deb in .gl/ when the machine has none.
# Usage: OUT=/some/dir RUN_SECONDS=720 PLAYERS=32 bash scripts/gpu_runs.sh
set -uo pipefail
out=${OUT:?set OUT to the folder the results go to}
run_seconds=${RUN_SECONDS:-720}
players=${PLAYERS:-32}
work=${WORK:-$(mktemp -d)}
bin=$work/descent
gunzip -c gpu-bin/descent.gz >"$bin" && chmod +x "$bin"
if ! ldconfig -p | grep -q libvulkan && compgen -G ".gl/*.deb" >/dev/null; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
[ -f "$icd" ] && export VK_DRIVER_FILES=$icd
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cores=$(nproc)
half=$((cores / 2))

# The run's config: its GPU preset with PLAYERS players, a lag bound that keeps their games
# (about PLAYERS games finish while one is played), and checkpoints every 3 minutes so that a
# run stopped while its games finish keeps what it learned.
config() { # preset out
  sed -e "s/^  threads: .*/  threads: $players/" -e "s/^  max_lag: .*/  max_lag: $((3 * players))/" \
    -e "s/^  every_time: .*/  every_time: 3m/" "$1" >"$2"
}

train() { # name preset cpus
  local name=$1 cfg=$work/$1.yaml
  config "$2" "$cfg"
  echo "=== $name on cores $3 ($(date +%T))"
  timeout -s INT -k 120 $((run_seconds + 60)) taskset -c "$3" "$bin" train "$cfg" \
    --run-dir "$work/$name" --max-time "${run_seconds}s" --quiet
  echo "=== $name stopped: $? ($(date +%T))"
  "$bin" export "$work/$name" --out "$work/$name.descent" --no-safetensors
  "$bin" check-net "$work/$name.descent" --game "$(sed -n 's/^game: *\([a-z_0-9]*\).*/\1/p' "$cfg")" \
    --device wgpu --out "$work/$name.values.json"
}

nvidia-smi --query-gpu=timestamp,utilization.gpu,memory.used --format=csv,noheader -l 5 \
  >"$work/gpu-use.csv" 2>/dev/null &
sampler=$!
train connect_four-gpu configs/gpu-connect_four.yaml "0-$((half - 1))" >"$work/connect_four.log" 2>&1 &
c4=$!
train awale-gpu configs/gpu-awale.yaml "$half-$((cores - 1))" >"$work/awale.log" 2>&1 &
awale=$!
wait $c4 $awale
kill $sampler 2>/dev/null
cat "$work"/*.log
tar -C "$work" -czf "$out/gpu-runs.tar.gz" --exclude='ckpt-*' --exclude='latest' --exclude='nets' \
  --exclude='descent' .
ls -la "$out"
