"""Loading KernelBench-format task modules in the trusted process."""

import importlib.util
import sys
import traceback


class TaskError(Exception):
    """The task file is malformed (syntax error, missing names, exception)."""


REQUIRED = ("Model", "get_inputs", "get_init_inputs")


def load_task(path, module_name="kbstudio_task"):
    try:
        with open(path, "r", encoding="utf-8") as f:
            source = f.read()
    except OSError as e:
        raise TaskError("cannot read task file %s: %s" % (path, e.strerror or e))
    try:
        code = compile(source, path, "exec")
    except SyntaxError as e:
        raise TaskError("task file has a syntax error at line %s: %s" % (e.lineno, e.msg))
    spec = importlib.util.spec_from_loader(module_name, loader=None, origin=path)
    module = importlib.util.module_from_spec(spec)
    module.__file__ = path
    sys.modules[module_name] = module
    try:
        exec(code, module.__dict__)
    except BaseException as e:  # noqa: B902
        tb = traceback.format_exc().strip().splitlines()
        raise TaskError("task file raised %s: %s (%s)" % (type(e).__name__, e, tb[-1] if tb else ""))
    missing = [n for n in REQUIRED if not hasattr(module, n)]
    if missing:
        raise TaskError("task file does not define %s" % ", ".join(missing))
    if not isinstance(module.Model, type):
        raise TaskError("task's Model is not a class")
    for n in ("get_inputs", "get_init_inputs"):
        if not callable(getattr(module, n)):
            raise TaskError("task's %s is not callable" % n)
    return module


def as_list(value, what):
    if isinstance(value, (list, tuple)):
        return list(value)
    raise TaskError("%s() must return a list, got %s" % (what, type(value).__name__))
