#!/usr/bin/env bash
# GPU checks of the harness itself (no engine): the CUDA adversarial candidates, and four of the
# KernelBench fixtures (tests/gpu/fixtures) evaluated with `kbharness evaluate` in CUDA mode.
# Run from the repository root with KernelBench problem files in CARRY/kb/level{1,2}.
set -u
CARRY="${CARRY:-.device-carry}"
OUT="${OUT:-/tmp/kbstudio-gpu}"
mkdir -p "$OUT"
export PYTHONPATH="$(pwd)/resources/harness" PYTHONUNBUFFERED=1
(timeout 250 python3 tests/adversarial/run_cuda.py --timeout 200 --build-dir /tmp/advcache > "$OUT/adversarial_cuda.txt" 2>&1; echo "rc=$?" >> "$OUT/adversarial_cuda.txt") &
for spec in level1/1_Square_matrix_multiplication_.py:l1_1_matmul level1/40_LayerNorm.py:l1_40_layernorm \
            level2/76_Gemm_Add_ReLU.py:l2_76_gemm_add_relu level2/12_Gemm_Multiply_LeakyReLU.py:l2_12_gemm_mul_leakyrelu; do
  problem="${spec%%:*}"; fx="${spec##*:}"
  cat > "/tmp/req_$fx.json" <<JSON
{"schema": "kbstudio.eval-request/1", "task_path": "$(pwd)/$CARRY/kb/$problem",
 "candidate_path": "$(pwd)/tests/gpu/fixtures/$fx.py", "device": "cuda", "gpu_index": 0,
 "build_dir": "/tmp/fxcache", "seed": 777, "correctness_trials": 5, "timing_trials": 100,
 "warmup": 3, "max_timing_seconds": 10, "baseline": {"eager": true, "compile": true}}
JSON
  (timeout 250 python3 -m kbharness evaluate --request - --result "$OUT/fx_$fx.json" < "/tmp/req_$fx.json" > "$OUT/fx_$fx.log" 2>&1) &
done
wait
cat "$OUT/adversarial_cuda.txt"
for f in "$OUT"/fx_*.json; do
  python3 -c "
import json,sys; d=json.load(open('$f')); t=d.get('timing') or {}
med=lambda k: (t.get(k) or {}).get('median_ms')
print('$f'.split('/')[-1], d.get('verdict'), d.get('message','')[:100], 'cand', med('candidate'), 'eager', med('eager'), 'compile', med('compile'), 'build', (d.get('build') or {}).get('seconds'), 'sandbox', d.get('sandbox'))"
done
