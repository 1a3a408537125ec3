"""Command line: python3 -m kbharness {evaluate,build,profile,static-check,validate-task}.

Exit status: 0 when a result document was produced (whatever the verdict),
2 for a bad request or a broken task, 1 for an internal harness error, 75 when the
machinery failed (a build-cache entry changed after the judge recorded it): evaluate again.
"""

import argparse
import json
import os
import sys
import tempfile
import traceback

from . import HARNESS_VERSION, RESULT_SCHEMA

EXIT_OK = 0
EXIT_INTERNAL = 1
EXIT_BAD_REQUEST = 2
# The machinery failed, not the candidate (EX_TEMPFAIL): the engine evaluates again.
EXIT_INFRASTRUCTURE = 75


def _write_json(path, doc):
    text = json.dumps(doc, indent=1, sort_keys=False, allow_nan=False)
    if path in (None, "-"):
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
        return
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".kbresult-", dir=directory)
    with os.fdopen(fd, "w") as f:
        f.write(text + "\n")
    os.replace(tmp, path)


def _error_doc(kind, message):
    return {"schema": "kbstudio.eval-error/1", "result_schema": RESULT_SCHEMA, "error": kind,
            "message": message, "harness_version": HARNESS_VERSION}


def cmd_evaluate(args, build_only=False):
    from . import evaluate, request

    try:
        req = request.load(args.request)
    except request.RequestError as e:
        sys.stderr.write("kbharness: bad request: %s\n" % e)
        if args.result:
            _write_json(args.result, _error_doc("bad_request", str(e)))
        return EXIT_BAD_REQUEST
    try:
        doc = evaluate.evaluate(req, build_only=build_only)
    except evaluate.TaskFailure as e:
        sys.stderr.write("kbharness: task error: %s\n" % e)
        if args.result:
            _write_json(args.result, _error_doc("task_error", str(e)))
        return EXIT_BAD_REQUEST
    except evaluate.InfrastructureFailure as e:
        sys.stderr.write("kbharness: infrastructure error: %s\n" % e)
        if args.result:
            _write_json(args.result, _error_doc("infrastructure", str(e)))
        return EXIT_INFRASTRUCTURE
    except Exception as e:  # harness bug
        tb = traceback.format_exc()
        sys.stderr.write("kbharness: internal error: %s\n%s" % (e, tb))
        if args.result:
            _write_json(args.result, _error_doc("internal_error", "%s: %s" % (type(e).__name__, e)))
        return EXIT_INTERNAL
    _write_json(args.result, doc)
    return EXIT_OK


def cmd_profile(args):
    from . import profile, request

    try:
        req = request.load(args.request)
    except request.RequestError as e:
        sys.stderr.write("kbharness: bad request: %s\n" % e)
        if args.result:
            _write_json(args.result, _error_doc("bad_request", str(e)))
        return EXIT_BAD_REQUEST
    try:
        doc = profile.profile(req, calls=args.calls, kernel_limit=args.kernel_limit, timeout=args.timeout,
                              use_nsys=not args.no_nsys)
    except Exception as e:  # harness bug: still a readable document
        sys.stderr.write("kbharness: internal error: %s\n%s" % (e, traceback.format_exc()))
        doc = profile.failure_doc("internal_error", "%s: %s" % (type(e).__name__, e))
    _write_json(args.result, doc)
    if args.print_summary:
        sys.stderr.write(doc.get("summary", ""))
    return EXIT_OK


def cmd_static_check(args):
    from . import static_check

    policy = {}
    if args.policy:
        try:
            policy = json.loads(args.policy)
        except ValueError as e:
            sys.stderr.write("kbharness: --policy is not JSON: %s\n" % e)
            return EXIT_BAD_REQUEST
    if args.allow_torch_ops:
        policy["allow_torch_ops"] = True
    try:
        with open(args.candidate, "r", encoding="utf-8") as f:
            source = f.read()
    except OSError as e:
        sys.stderr.write("kbharness: cannot read %s: %s\n" % (args.candidate, e))
        return EXIT_BAD_REQUEST
    findings = static_check.analyze(source, policy)
    verdict = static_check.verdict_for(findings)
    _write_json(args.result, {"verdict": verdict or "pass", "findings": static_check.to_json(findings)})
    return EXIT_OK


def cmd_validate_task(args):
    from . import validate_task

    report = validate_task.validate(os.path.abspath(args.task), atol=args.atol, rtol=args.rtol,
                                    num_threads=args.num_threads, device=args.device)
    _write_json(args.result, report)
    if report["errors"]:
        sys.stderr.write("kbharness: invalid task: %s\n" % "; ".join(report["errors"]))
        return EXIT_BAD_REQUEST
    return EXIT_OK


def cmd_warm(args):
    from . import fastbuild

    os.makedirs(args.build_dir, exist_ok=True)
    _write_json(args.result, fastbuild.warm(os.path.abspath(args.build_dir)))
    return EXIT_OK


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m kbharness",
                                     description="KernelBench Studio evaluation harness")
    parser.add_argument("--version", action="version", version="kbharness " + HARNESS_VERSION)
    sub = parser.add_subparsers(dest="command")

    p = sub.add_parser("evaluate", help="build, check and time a candidate against a task")
    p.add_argument("--request", required=True, help="request JSON file ('-' = standard input)")
    p.add_argument("--result", required=True, help="where to write the result JSON ('-' = standard output)")

    p = sub.add_parser("build", help="static check + build + construct only (build pool)")
    p.add_argument("--request", required=True)
    p.add_argument("--result", required=True)

    p = sub.add_parser("profile", help="run a candidate's forward pass under Nsight Compute; summary JSON")
    p.add_argument("--request", required=True, help="the evaluation request ('-' = standard input)")
    p.add_argument("--result", required=True, help="where to write the profile JSON ('-' = standard output)")
    p.add_argument("--calls", type=int, default=3, help="profiled forward calls (after a warm-up)")
    p.add_argument("--kernel-limit", type=int, default=40, help="kernel launches ncu profiles at most")
    p.add_argument("--timeout", type=float, default=300.0, help="seconds for the profiler runs")
    p.add_argument("--no-nsys", action="store_true", help="skip Nsight Systems even where it is installed")
    p.add_argument("--print-summary", action="store_true", help="also print the text summary to stderr")

    p = sub.add_parser("static-check", help="run the static checker on a candidate file")
    p.add_argument("candidate")
    p.add_argument("--policy", help='policy JSON, e.g. {"allow_torch_ops": false}')
    p.add_argument("--allow-torch-ops", action="store_true")
    p.add_argument("--result", default="-")

    p = sub.add_parser("validate-task", help="load and run a task once; flag weak tasks")
    p.add_argument("task")
    p.add_argument("--atol", type=float, default=1e-4)
    p.add_argument("--rtol", type=float, default=1e-4)
    p.add_argument("--num-threads", type=int, default=None)
    p.add_argument("--device", default="cpu", help="cpu or cuda[:N] (inputs are generated there)")
    p.add_argument("--result", default="-")

    p = sub.add_parser("warm", help="prepare a build cache for fast CUDA builds (precompiled header)")
    p.add_argument("--build-dir", required=True)
    p.add_argument("--result", default="-")

    args = parser.parse_args(argv)
    if args.command == "evaluate":
        return cmd_evaluate(args)
    if args.command == "build":
        return cmd_evaluate(args, build_only=True)
    if args.command == "profile":
        return cmd_profile(args)
    if args.command == "static-check":
        return cmd_static_check(args)
    if args.command == "warm":
        return cmd_warm(args)
    if args.command == "validate-task":
        return cmd_validate_task(args)
    parser.print_help(sys.stderr)
    return EXIT_BAD_REQUEST
