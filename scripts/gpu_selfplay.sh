#!/usr/bin/env bash
# Self-play with many games in flight on a GPU machine (docs/gpu.md, "Many games in flight"), in
# one call of a few minutes:
#   1. `descent bench selfplay` of Connect Four with the paper CNN and the §8.4.1 ResNet
#      (132 filters × 8 blocks), on the GPU (wgpu) with 1 … 256 games in flight on each of
#      PLAYERS threads, and on the same machine's CPU cores (descent-cpu, one thread a core);
#   2. both networks trained at once (half the cores each) with self-play batched on the GPU
#      (`run.games_per_thread`), GPU use sampled by nvidia-smi every second;
#   3. each run exported, its values written by `check-net` on the GPU for the same-values
#      check back on a CPU machine.
# Results: $OUT/gpu-selfplay.tar.gz (benches, logs, metrics, values, GPU use) and
# $OUT/gpu-nets.tar.gz (the exported networks).
#
# Build where cargo works and bring the binary, stripped and compressed:
#   cargo build --release --features wgpu && mkdir -p gpu-bin
#   strip -o gpu-bin/descent target/release/descent && gzip -9f gpu-bin/descent
# Vulkan's loader (libvulkan1) is unpacked from .gl/*.deb when the machine has none.
# Usage: OUT=/some/dir BENCH_SECONDS=12 RUN_SECONDS=100 PLAYERS=14 bash scripts/gpu_selfplay.sh
set -uo pipefail
out=${OUT:?set OUT to the folder the results go to}
bench_seconds=${BENCH_SECONDS:-12}
run_seconds=${RUN_SECONDS:-100}
players=${PLAYERS:-14}
work=$(mktemp -d)
bin=$work/descent
gunzip -c gpu-bin/descent.gz >"$bin" && chmod +x "$bin"
log() { printf '\n=== %s (%s)\n' "$*" "$(date +%T)" | tee -a "$work/sections.log"; }

# The Vulkan loader and GL vendor-neutral libraries the NVIDIA ICD loads through.
if compgen -G ".gl/*.deb" >/dev/null; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
[ -f "$icd" ] && export VK_DRIVER_FILES=$icd
egl=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
[ -f "$egl" ] && export __EGL_VENDOR_LIBRARY_FILENAMES=$egl
if ! timeout 60 "$bin" bench nn connect_four --device wgpu --batch 256 --seconds 0.5; then
  echo "wgpu finds no adapter: the Vulkan ICDs here"
  ls -la /usr/local/nvidia/share/vulkan/icd.d/ /usr/share/vulkan/icd.d/ /etc/vulkan/icd.d/ 2>&1
  ldconfig -p | grep -E "vulkan|GLX_nvidia|EGL_nvidia" 2>&1
  exit 1
fi
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
cores=$(nproc)
echo "cores: $cores"
nvidia-smi --query-gpu=timestamp,utilization.gpu,memory.used --format=csv,noheader -l 1 \
  >"$work/gpu-use.csv" 2>/dev/null &
sampler=$!

resnet=resnet-b8c132-fc256-fc256
bench() { # name device threads games-in-flight arch
  log "bench $1"
  timeout 200 "$bin" bench selfplay connect_four --device "$2" --threads "$3" \
    --games-in-flight "$4" --arch "$5" --seconds "$bench_seconds" --json >"$work/bench-$1.json"
  python3 - "$work/bench-$1.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
print(r["arch"], r["device"], r["threads"], "threads; peak", round(r["matrix_peak_gflops"]), "GFLOP/s;",
      "positions a game", r["mean_positions_per_game"])
for m in r["measurements"]:
    print(f'  {m["games_in_flight"]:5} in flight: {m["mean_positions_per_call"]:8.1f} a call '
          f'{m["positions_per_s"]:9.0f} pos/s {m["moves_per_s"]:7.1f} moves/s '
          f'games/h {m["games_per_hour"]} ({m["games_finished"]} finished) '
          f'{100 * m["share_of_peak"]:.2f} % of peak, network {100 * m["network_share"]:.0f} %')
EOF
}

bench cnn-wgpu wgpu "$players" "${CNN_GPU_GAMES:-1,16,64,256}" paper-cnn
[ -n "${SKIP_CPU:-}" ] || bench cnn-cpu descent-cpu "$cores" 1,4,16 paper-cnn
bench resnet-wgpu wgpu "$players" "${RESNET_GPU_GAMES:-1,16,64}" "$resnet"
[ -n "${SKIP_CPU:-}" ] || bench resnet-cpu descent-cpu "$cores" 1,4 "$resnet"

# A run's config: configs/gpu-connect_four.yaml with ARCH, THREADS players of GAMES games each.
config() { # arch threads games out
  sed -e "s/^  architecture: .*/  architecture: $1/" -e "s/^  threads: .*/  threads: $2/" \
    -e "s/^  games_per_thread: .*/  games_per_thread: $3/" \
    -e "s/^  max_lag: .*/  max_lag: $((3 * $2 * $3))/" \
    -e "s/^  every_time: .*/  every_time: 1m/" -e "s/^  every_games: .*/  every_games: 1000000/" \
    -e "/^evaluation:/a\\  at_end: false" configs/gpu-connect_four.yaml >"$4"
}

train() { # name arch cpus threads games
  local name=$1 cfg=$work/$1.yaml
  config "$2" "$4" "$5" "$cfg"
  echo "=== $name on cores $3 ($(date +%T))"
  # A first SIGINT asks the run to finish its games in play and checkpoint.
  timeout -s INT -k 90 $((run_seconds + 30)) taskset -c "$3" "$bin" train "$cfg" \
    --run-dir "$work/$name" --max-time "${run_seconds}s" --quiet
  echo "=== $name stopped: $? ($(date +%T))"
  "$bin" export "$work/$name" --out "$work/$name.descent" --no-safetensors
  "$bin" check-net "$work/$name.descent" --game connect_four --device wgpu \
    --out "$work/$name.values.json"
  tail -n 2 "$work/$name/metrics.jsonl" | cut -c1-900
}

half=$((cores / 2))
run_threads=$((half - 2))
log "train both networks"
train cnn-run paper-cnn "0-$((half - 1))" "$run_threads" 32 >"$work/cnn-run.log" 2>&1 &
cnn=$!
train resnet-run "$resnet" "$half-$((cores - 1))" "$run_threads" 4 >"$work/resnet-run.log" 2>&1 &
res=$!
wait $cnn $res
log "done"
kill $sampler 2>/dev/null
cat "$work/cnn-run.log" "$work/resnet-run.log"
tar -C "$work" -czf "$out/gpu-selfplay.tar.gz" --exclude='ckpt-*' --exclude='latest' --exclude='nets' \
  --exclude='*.descent' --exclude='descent' --exclude='replay*' .
tar -C "$work" -czf "$out/gpu-nets.tar.gz" cnn-run.descent resnet-run.descent
ls -la "$out"
