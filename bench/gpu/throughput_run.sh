#!/usr/bin/env bash
# On a CUDA host, from the repository root, with KernelBench's level1/level2 problem files in
# $KB (default .device-carry/kb). Everything goes to $OUT/log and JSON files in $OUT.
#   throughput_run.sh            CUDA unit tests, then the harness's end-to-end throughput
#                                (default transport: CUDA IPC), cold then cached builds
#   throughput_run.sh --kbstyle  the same candidates through KernelBench's procedure
#                                (bench/gpu/kbstyle.py; PASSES=cold,cached)
#   throughput_run.sh --checks   the CUDA adversarial suite, and the byte channel on the
#                                small candidates (the 6-7 GB ones are for CUDA IPC)
# The GPU's memory in use is sampled every 0.5 s throughout; the peak is printed at the end.
set -u
KB="${KB:-.device-carry/kb}"
OUT="${OUT:-/tmp/kbstudio-throughput}"
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
log="$OUT/log"
step() { echo; echo "===== $* ($(date -u +%H:%M:%S))"; }
nvidia-smi --query-gpu=memory.used,memory.total --format=csv,noheader,nounits -lms 500 > "$OUT/gpu_mem.csv" &
sampler=$!
{
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)'
  case "${1:-}" in
    --kbstyle)
      step "KernelBench's procedure, 3 at a time"
      timeout 580 python3 bench/gpu/kbstyle.py --kb-root "$KB" --jobs 3 --timeout 420 --passes "${PASSES:-cold,cached}" \
          --json "$OUT/kbstyle.json"
      ;;
    --checks)
      step "CUDA adversarial suite, default transport"
      PYTHONPATH="$(pwd)/resources/harness" timeout 200 python3 tests/adversarial/run_cuda.py \
          --timeout 100 --build-dir /tmp/tp/cache
      step "throughput, byte channel, small candidates"
      timeout 200 python3 bench/gpu/throughput.py --kb-root "$KB" --jobs 3 --transport bytes --out /tmp/tp \
          --files l2_12_gemm_mul_leakyrelu.py,l2_76_gemm_add_relu.py,wrong/l1_21_sigmoid_off_by_one.py \
          --passes cold --json "$OUT/throughput_bytes.json"
      ;;
    *)
      step "harness CUDA unit tests"
      (cd tests/harness && PYTHONPATH=../../resources/harness timeout 300 python3 -m unittest -v test_evaluate.CudaTests 2>&1 | tail -8)
      step "throughput, default transport (auto: CUDA IPC on a GPU): cold then cached builds"
      timeout 400 python3 bench/gpu/throughput.py --kb-root "$KB" --jobs 3 --out /tmp/tp \
          --json "$OUT/throughput_auto.json"
      ;;
  esac
  kill "$sampler" 2>/dev/null
  sort -n -t, -k1 "$OUT/gpu_mem.csv" | tail -1 | awk -F, '{printf "peak GPU memory in use: %d of %d MiB\n", $1, $2}'
} 2>&1 | tee -a "$log"
