#!/usr/bin/env bash
# On a CUDA host, from the repository root, with KernelBench's level1/level2 problem files in
# $KB (default .device-carry/kb): the harness's end-to-end throughput with each tensor
# transport, the CUDA adversarial suite over CUDA IPC, then (with --kbstyle) the same
# candidates through KernelBench's procedure (bench/gpu/kbstyle.py). Everything goes to
# $OUT/log and JSON files in $OUT.
set -u
KB="${KB:-.device-carry/kb}"
OUT="${OUT:-/tmp/kbstudio-throughput}"
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
log="$OUT/log"
step() { echo; echo "===== $* ($(date -u +%H:%M:%S))"; }
{
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)'
  if [ "${1:-}" = "--kbstyle" ]; then
    step "KernelBench's procedure, 3 at a time"
    timeout 540 python3 bench/gpu/kbstyle.py --kb-root "$KB" --jobs 3 --passes "${PASSES:-cold,cached}" \
        --json "$OUT/kbstyle.json"
    exit 0
  fi
  step "harness CUDA unit tests"
  (cd tests/harness && PYTHONPATH=../../resources/harness timeout 120 python3 -m unittest -v test_evaluate.CudaTests 2>&1 | tail -6)
  step "throughput, default transport (auto: CUDA IPC on a GPU): cold then cached builds"
  timeout 280 python3 bench/gpu/throughput.py --kb-root "$KB" --jobs 3 --out /tmp/tp \
      --json "$OUT/throughput_auto.json"
  step "throughput, byte channel: cached builds"
  timeout 150 python3 bench/gpu/throughput.py --kb-root "$KB" --jobs 3 --transport bytes --out /tmp/tp \
      --passes cached --no-warm --json "$OUT/throughput_bytes.json"
  step "CUDA adversarial suite, default transport"
  PYTHONPATH="$(pwd)/resources/harness" timeout 120 python3 tests/adversarial/run_cuda.py \
      --timeout 100 --build-dir /tmp/tp/cache
} 2>&1 | tee -a "$log"
