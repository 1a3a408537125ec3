"""A scripted stand-in for the evaluation harness, used to test how the engine drives and
survives its child process. Each candidate says what the harness should do in a marker line:
    # SCRIPT: <action> [argument]
Actions: correct <speedup>, incorrect, build_error, rejected, segfault, hang, exit <code>,
garbage, bad_schema, correct_without_timing, slow <seconds> (correct after a pause),
lost <n> (the evaluation worker is killed from outside the first n times, then correct),
terminated <n> (the same with SIGTERM), nospace (a build error that says the disk is full).
On CUDA requests each evaluation appends "<gpu_index> <start> <end>" to gpu.log.
"""
import json
import os
import signal
import sys
import time


def main():
    args = sys.argv[1:]
    request_path = args[args.index("--request") + 1]
    request = json.load(sys.stdin if request_path == "-" else open(request_path))
    result_path = args[args.index("--result") + 1]
    source = open(request["candidate_path"]).read()
    action, arg = "correct", "2.0"
    for line in source.splitlines():
        if line.startswith("# SCRIPT:"):
            parts = line.split()[2:]
            action = parts[0]
            arg = parts[1] if len(parts) > 1 else ""
    phase = args[0]  # build or evaluate
    attempt_dir = os.path.dirname(request["candidate_path"])
    with open(os.path.join(attempt_dir, "calls.log"), "a") as log:
        log.write(phase + "\n")
    with open(os.path.join(attempt_dir, "policy.json"), "w") as f:
        json.dump(request.get("policy"), f)

    def write(doc):
        with open(result_path, "w") as f:
            json.dump(doc, f)

    base = {"schema": "kbstudio.eval-result/1", "message": "", "static_findings": [],
            "build": {"status": "ok", "seconds": 0.5, "cache_key": "k", "log": "", "errors": []},
            "environment": {"python": "3", "torch": "1.13.1", "device": "cpu",
                            "device_name": "Fake CPU"},
            "harness_seconds": 0.1}
    if action == "lost" and phase == "evaluate":
        counter = os.path.join(attempt_dir, "lost.count")
        seen = int(open(counter).read()) if os.path.exists(counter) else 0
        if seen < int(arg):
            open(counter, "w").write(str(seen + 1))
            os.kill(os.getpid(), signal.SIGKILL)
        action, arg = "correct", "2.0"
    if action == "lost":
        action, arg = "correct", "2.0"
    if action == "terminated" and phase == "evaluate":
        counter = attempt_dir.rstrip("/") + ".terminated"  # outlives the attempt folder (resume)
        seen = int(open(counter).read()) if os.path.exists(counter) else 0
        if seen < int(arg):
            open(counter, "w").write(str(seen + 1))
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)
        action, arg = "correct", "2.0"
    if action == "terminated":
        action, arg = "correct", "2.0"
    if action == "nospace":
        write(dict(base, verdict="build_error", message="build failed: No space left on device",
                   build={"status": "failed", "seconds": 1.0, "log": "OSError: [Errno 28] No space left on device",
                          "errors": []}))
        return
    if request.get("device") == "cuda" and phase == "evaluate":
        start = time.time()
        time.sleep(0.3)
        with open(os.path.join(attempt_dir, "gpu.log"), "a") as f:
            f.write("%d %.4f %.4f\n" % (request["gpu_index"], start, time.time()))
    if action == "segfault":
        os.kill(os.getpid(), signal.SIGSEGV)
    if action == "hang":
        time.sleep(3600)
    if action == "slow":
        time.sleep(float(arg))
        action, arg = "correct", "2.0"
    if action == "exit":
        print("fake harness failing on purpose", file=sys.stderr)
        sys.exit(int(arg))
    if action == "garbage":
        open(result_path, "w").write("{ not json")
        return
    if action == "bad_schema":
        write(dict(base, schema="something/9", verdict="correct"))
        return
    if action == "rejected":
        write(dict(base, verdict="rejected", message="calls torch.relu",
                   build={"status": "skipped"},
                   static_findings=[{"rule": "torch-op-in-forward", "severity": "reject",
                                     "line": 3, "col": 4, "message": "torch.relu in forward"}]))
        return
    if action == "build_error":
        write(dict(base, verdict="build_error", message="build failed",
                   build={"status": "failed", "seconds": 1.0, "log": "error: expected ';'",
                          "errors": [{"file": "main.cpp", "line": 7, "message": "expected ';'"}]}))
        return
    if phase == "build":
        write(dict(base, verdict="built"))
        return
    trials = [{"index": i, "passed": action != "incorrect", "max_abs_error": 0.5 if action == "incorrect" else 1e-7,
               "max_rel_error": 1e-6, "mismatch_fraction": 0.0, "message": ""}
              for i in range(request["correctness_trials"])]
    if action == "incorrect":
        write(dict(base, verdict="incorrect", message="max abs error 0.5",
                   correctness={"passed": False, "trials": trials}))
        return
    speed = float(arg or 2.0)
    timing = {"candidate": {"samples_ms": [1.0, 1.0, 1.0], "wall_ms": 3.2},
              "eager": {"samples_ms": [speed, speed, speed], "wall_ms": 3.0 * speed},
              "compile": {"unavailable": "torch.compile is not available in torch 1.13"}}
    if action == "correct_without_timing":
        timing = {}
    write(dict(base, verdict="correct", message="ok",
               correctness={"passed": True, "trials": trials}, timing=timing))


main()
