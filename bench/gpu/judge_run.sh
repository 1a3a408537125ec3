#!/usr/bin/env bash
# The judge-integrity and fairness measurements of bench/RESULTS.md, on a CUDA host, from the
# repository root:  OUT=/tmp/out bash bench/gpu/judge_run.sh [attacks] [fair-suite] [fair-net] [fair-kb]
#                    [fixtures] [sandbox] [profile] [old]
# KernelBench problems are read from .device-carry/kb/level{1,2}; an older harness to compare
# with from .device-carry/oldharness/resources/harness; a bubblewrap binary (for the sandbox
# step, where the host has none) from .device-carry/bw/bwrap.
set -u
OUT="${OUT:-/tmp/kbstudio-gpu}"
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
steps="${*:-attacks fair-suite}"
echo "== environment"
python3 -c 'import torch, triton; print(torch.__version__, torch.version.cuda, triton.__version__, torch.cuda.get_device_name())'
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
kb=$(for f in $(cat bench/gpu/fidelity_problems.txt); do echo .device-carry/kb/$f; done)
for step in $steps; do
  case $step in
    attacks)
      echo "== judge attacks (CUDA), with honest controls"
      timeout ${T_ATTACKS:-400} python3 tests/adversarial/run_cuda.py --save-dir /tmp/attack-docs \
        --manifest tests/adversarial/candidates/judge_cuda/manifest.json 2>&1 | tee "$OUT/attacks.txt"
      python3 -c 'import glob, json, os, sys; json.dump({os.path.basename(p): json.load(open(p)) for p in glob.glob("/tmp/attack-docs/*.json")}, open(sys.argv[1], "w"), indent=1)' "$OUT/attack_docs.json"
      [ -n "${SKIP_EARLIER:-}" ] && continue
      echo "== earlier adversarial manifest (CUDA entries)"
      timeout ${T_EARLIER:-300} python3 tests/adversarial/run_cuda.py 2>&1 | tee "$OUT/adversarial.txt" ;;
    fair-suite)
      echo "== identical code: sample suite and networks"
      timeout ${T_SUITE:-500} python3 bench/gpu/fairness.py --out "$OUT/fair_suite.json" --repeat 2 \
        resources/suites/sample/level*/*.py resources/suites/networks/level3/*.py 2>&1 | tee "$OUT/fair_suite.txt" ;;
    fair-net)
      echo "== identical code: the networks suite"
      timeout ${T_NET:-300} python3 bench/gpu/fairness.py --out "$OUT/fair_net.json" --repeat ${REPEAT_NET:-2} \
        resources/suites/networks/level3/*.py 2>&1 | tee "$OUT/fair_net.txt" ;;
    fixtures)
      echo "== honest and wrong CUDA fixtures through the harness; symbols of the built libraries"
      timeout ${T_FIX:-300} python3 bench/gpu/honest_fixtures.py --kb-root .device-carry/kb \
        --out "$OUT/fixtures.json" ${FIX_ARGS:-} 2>&1 | tee "$OUT/fixtures.txt" ;;
    sandbox)
      echo "== the candidate's sandbox on the GPU host (bubblewrap), fp16 and bf16"
      if ! command -v bwrap > /dev/null && [ -x .device-carry/bw/bwrap ]; then
        cp .device-carry/bw/bwrap /usr/local/bin/bwrap
        ldd /usr/local/bin/bwrap | grep 'not found'
      fi
      timeout ${T_SANDBOX:-200} python3 bench/gpu/sandbox_check.py --out "$OUT" 2>&1 | tee "$OUT/sandbox.txt" ;;
    profile)
      echo "== the agent's profile tool"
      OUT="$OUT/profile" CALLS=${PROFILE_CALLS:-1} timeout ${T_PROFILE:-150} bash bench/gpu/profile_check.sh 2>&1 \
        | tee "$OUT/profile.txt" ;;
    fair-kb)
      echo "== identical code: KernelBench subset, with do_bench"
      timeout ${T_KB:-560} python3 bench/gpu/fairness.py --out "$OUT/fair_kb.json" --repeat ${REPEAT_KB:-2} --dobench $kb 2>&1 | tee "$OUT/fair_kb.txt" ;;
    old)
      echo "== the previous harness on the same tasks (cost and identical-code speedup)"
      timeout 400 python3 bench/gpu/fairness.py --out "$OUT/old.json" --repeat 1 \
        --harness .device-carry/oldharness/resources/harness $kb resources/suites/networks/level3/*.py 2>&1 | tee "$OUT/old.txt" ;;
  esac
done
echo "== done"
