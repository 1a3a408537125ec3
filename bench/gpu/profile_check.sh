#!/usr/bin/env bash
# The agent's profile tool on a CUDA host: `kbharness profile` (Nsight Compute, and Nsight
# Systems where installed) on honest CUDA candidates of the demo set for the sample suite, each
# summary printed as the agent reads it. Run from the repository root on a machine with a GPU,
# torch with CUDA, nvcc and ncu:
#
#   bench/gpu/profile_check.sh                      # three demo candidates
#   bench/gpu/profile_check.sh TASK.py CANDIDATE.py # one pair of your own (absolute or relative)
#
# Environment: PYTHON (default python3), OUT (where the JSON documents go, default
# /tmp/kbstudio-profile), SANDBOX (auto | bwrap | none; default auto, as the agent's tool),
# CALLS (profiled forward calls, default 3), TIMEOUT (seconds for the profiler runs, default 300).
# Exit status: 0 when every profile came back with status "ok", 1 otherwise.
set -u
PYTHON="${PYTHON:-python3}"
OUT="${OUT:-/tmp/kbstudio-profile}"
SANDBOX="${SANDBOX:-auto}"
CALLS="${CALLS:-3}"
TIMEOUT="${TIMEOUT:-300}"
ROOT="$(pwd)"
if [ ! -d "$ROOT/resources/harness/kbharness" ]; then
  echo "run from the repository root" >&2
  exit 2
fi
mkdir -p "$OUT"
export PYTHONPATH="$ROOT/resources/harness" PYTHONUNBUFFERED=1

echo "== host"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -4
for tool in ncu nsys nvcc; do
  where="$(command -v "$tool" || true)"
  echo "$tool: ${where:-not on PATH} $([ -n "$where" ] && "$where" --version 2>/dev/null | tail -1)"
done
"$PYTHON" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "gpu", torch.cuda.is_available())'

SUITE="$ROOT/resources/suites/sample"
DEMO="$ROOT/resources/demo/cuda/demo-a"
if [ $# -ge 2 ]; then
  PAIRS=("$(realpath "$1")|$(realpath "$2")")
else
  PAIRS=("$SUITE/level1/relu.py|$DEMO/l1-relu.py"
         "$SUITE/level1/gelu_tanh.py|$DEMO/l1-gelu-tanh.py"
         "$SUITE/level2/linear_bias_relu.py|$DEMO/l2-linear-bias-relu.py")
fi

failed=0
for pair in "${PAIRS[@]}"; do
  task="${pair%%|*}"; cand="${pair##*|}"
  name="$(basename "$cand" .py)"
  echo
  echo "== profile of $cand on $(basename "$task")"
  req="$OUT/$name.request.json"
  cat > "$req" <<JSON
{"schema": "kbstudio.eval-request/1", "task_path": "$task", "candidate_path": "$cand",
 "device": "cuda", "gpu_index": 0, "seed": 20261204,
 "precision": "fp32", "sandbox": "$SANDBOX",
 "policy": {"allow_torch_ops": false, "allow_vendor_libraries": "none"}}
JSON
  start=$(date +%s)
  "$PYTHON" -m kbharness profile --request "$req" --result "$OUT/$name.profile.json" \
      --calls "$CALLS" --timeout "$TIMEOUT" > "$OUT/$name.log" 2>&1
  rc=$?
  echo "(exit status $rc, $(( $(date +%s) - start )) s; JSON in $OUT/$name.profile.json, log in $OUT/$name.log)"
  "$PYTHON" - "$OUT/$name.profile.json" <<'PY' || failed=1
import json, sys
try:
    doc = json.load(open(sys.argv[1]))
except (OSError, ValueError) as e:
    print("no profile document: %s" % e)
    sys.exit(1)
print("status: %s; sandbox: %s; ncu: %s %s; nsys: %s" % (doc.get("status"), doc.get("sandbox"), doc.get("ncu"),
                                                        doc.get("ncu_version") or "", doc.get("nsys")))
print(doc.get("summary") or doc.get("message"))
sys.exit(0 if doc.get("status") == "ok" else 1)
PY
  [ $rc -eq 0 ] || { failed=1; tail -20 "$OUT/$name.log"; }
done
echo
[ $failed -eq 0 ] && echo "profile_check: every profile came back" || echo "profile_check: some profiles failed (see above)"
exit $failed
