#!/usr/bin/env bash
# What bench/RESULTS.md's GPU numbers come from: run on a CUDA host from the repository root,
# with a headless kbstudio-cli (built with -DKBSTUDIO_CLI_PDF=OFF) and its Qt Core libraries in
# CARRY/bin and CARRY/lib, and KernelBench problem files in CARRY/kb/level{1,2}.
#   CARRY=.device-carry OUT=/tmp/out bash bench/gpu/device_run.sh
set -u
CARRY="${CARRY:-.device-carry}"
OUT="${OUT:-/tmp/kbstudio-gpu}"
mkdir -p "$OUT"
root="$(pwd)"
export PYTHONPATH="$root/resources/harness" PYTHONUNBUFFERED=1
export KBSTUDIO_RESOURCES="$root/resources"
# The harness's Python must not see the CLI's carried libraries.
cat > /tmp/kbpython <<PY
#!/bin/sh
unset LD_LIBRARY_PATH
exec python3 "\$@"
PY
chmod +x /tmp/kbpython
export KBSTUDIO_PYTHON=/tmp/kbpython
cli() { LD_LIBRARY_PATH="$root/$CARRY/lib" "$root/$CARRY/bin/kbstudio-cli" "$@"; }

echo "== environment"; python3 -c 'import torch, triton; print(torch.__version__, torch.version.cuda, triton.__version__, torch.cuda.get_device_name())'
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv
cli --version

echo "== 1. the sample suite through the whole engine in CUDA mode"
time timeout 330 env LD_LIBRARY_PATH="$root/$CARRY/lib" "$root/$CARRY/bin/kbstudio-cli" run --suite sample \
    --models demo-a,demo-b --db "$OUT/gpu.kbdb" --device cuda --jobs 16 --compile --timing-trials 100
cli report --db "$OUT/gpu.kbdb" --format markdown > "$OUT/sample_cuda.md"
cli export --db "$OUT/gpu.kbdb" --format json --out "$OUT/sample_cuda.json"

echo "== 2. timing fidelity and repeatability"
( cd "$CARRY/kb" && ls level1/*.py level2/*.py ) > /dev/null
time timeout 200 python3 bench/gpu/fidelity.py --problems "$CARRY/kb" --out "$OUT/fidelity.json" $(cat bench/gpu/fidelity_problems.txt)
echo "== done"
