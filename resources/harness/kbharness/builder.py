"""One extension build for the judge's build service (buildservice.py), in a sandbox of its own.

Started as ``python -m kbharness.builder --result-fd N`` with the build's description on
standard input. No candidate code runs here: the built library is never imported (torch's
import step is replaced by nothing), so only the compiler and torch's build steps run, and the
only folder this process may write is the entry being built. The outcome goes to the result
pipe as one JSON document; the judge checks and records the library itself.
"""

import argparse
import json
import os
import sys


def main(argv=None):
    parser = argparse.ArgumentParser(prog="kbharness.builder")
    parser.add_argument("--result-fd", type=int, required=True)
    args = parser.parse_args(argv)
    spec = json.load(sys.stdin)
    import torch
    import torch.utils.cpp_extension as cpp_extension

    from . import buildcache

    # torch builds and then imports; here the import never happens
    cpp_extension._import_module_from_library = lambda *a, **k: None
    torch.ops.load_library = lambda *a, **k: None
    kind = spec["kind"]
    orig = cpp_extension.load_inline if kind == "inline" else cpp_extension.load
    a = dict(spec["args"])
    extra = spec.get("extra_include_paths") or []
    if extra:
        a["extra_include_paths"] = list(a.get("extra_include_paths") or []) + extra
    record = {"status": "ok", "seconds": 0.0, "log": ""}
    try:
        buildcache.build_here(kind, orig, a, spec["key"], a["name"], spec["directory"], spec["device"],
                              spec["build_root"], record)
    except BaseException as e:  # noqa: B902 - the outcome is reported, whatever it is
        record["status"] = "failed"
        record.setdefault("exception", "%s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else ""))
    with os.fdopen(args.result_fd, "w") as f:
        json.dump({k: record.get(k) for k in ("status", "seconds", "log", "path", "exception")}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
