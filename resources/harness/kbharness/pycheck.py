"""The static rules over a candidate's Python source (``ast``): across the whole module uses of the
reference ``Model``, fallbacks around the build, monkey-patching, forbidden imports and calls,
dynamic code, introspection, file access, streams and CUDA graphs; what ``ModelNew.forward``
computes through forwardcheck.py; the C++ in its string literals through cppscan.py."""

import ast
from typing import Any, Dict, List, Optional

from . import cppscan, rules
from .forwardcheck import ForwardChecks, dotted as _dotted, root_name as _root_name
from .rules import Finding
from .vocabulary import (COMPUTE_METHODS, DYNAMIC_CODE, FORBIDDEN_ATTR_SEGMENTS, FORBIDDEN_MODULES, FORBIDDEN_OS_CALLS,
                         PATCHABLE_ROOTS, PROBE_PATH_PREFIXES, SUSPICIOUS_BUILTINS, TENSOR_SUBCLASS_CALLS,
                         TENSOR_SUBCLASS_HOOKS)

DEFAULT_POLICY = {"allow_torch_ops": False, "allow_vendor_libraries": "none", "precision": "fp32"}


def _finding(rule, severity, node, message, line=None, col=None):
    if line is None:
        line = getattr(node, "lineno", 0) or 0
    if col is None:
        col = getattr(node, "col_offset", 0) or 0
    return Finding(rule, severity, int(line), int(col), message)


class PythonChecker(ForwardChecks):
    """The rules over one candidate's Python source (and the C++ in its string literals)."""

    def __init__(self, source: str, policy: Optional[Dict[str, Any]]) -> None:
        self.source = source
        self.policy = dict(DEFAULT_POLICY)
        self.policy.update(policy or {})
        self.vendor_allowed = cppscan.vendor_allowance(self.policy.get("allow_vendor_libraries"))
        self.findings = []
        self.aliases = {}          # local name -> qualified name ("F" -> "torch.nn.functional")
        self.functions = {}        # module-level function name -> FunctionDef
        self.classes = {}          # class name -> ClassDef
        self.ext_names = set()     # module-level names bound to load_inline()/load() results
        self.ext_funcs = set()     # module-level functions that call load_inline()/load()
        self.has_extension = False
        self._seen = set()

    # -- helpers ---------------------------------------------------------
    def add(self, rule: str, node: Any, message: str, line: Optional[int] = None, col: Optional[int] = None,
            lesser: bool = False) -> None:
        """Report ``rule`` at ``node`` (or ``line``/``col``) with its severity from rules.py (its
        lesser one where ``lesser``); a repeat of the same finding is dropped."""
        self.keep(_finding(rule, rules.severity(rule, lesser), node, message, line=line, col=col))

    def keep(self, f: Finding) -> None:
        key = (f.rule, f.line, f.col, f.message)
        if key not in self._seen:
            self._seen.add(key)
            self.findings.append(f)

    def qualify(self, node: ast.AST) -> Optional[str]:
        dotted = _dotted(node)
        if dotted is None:
            return None
        head, _, rest = dotted.partition(".")
        if head in self.aliases:
            base = self.aliases[head]
            return base + ("." + rest if rest else "")
        return dotted

    def is_extension_loader(self, call: ast.Call) -> bool:
        q = self.qualify(call.func) or ""
        return q.endswith("cpp_extension.load_inline") or q.endswith("cpp_extension.load") or \
            q in ("load_inline",) or q.endswith(".load_inline")

    # -- passes ------------------------------------------------------------
    def run(self) -> List[Finding]:
        try:
            tree = ast.parse(self.source)
        except SyntaxError as e:
            self.add("syntax-error", None, "candidate does not parse: %s" % (e.msg,),
                     line=e.lineno or 0, col=(e.offset or 1) - 1)
            return self.findings
        self.tree = tree
        self.collect(tree)
        self.check_module(tree)
        model_new = self.classes.get("ModelNew")
        if model_new is None:
            self.add("missing-modelnew", None, "candidate defines no class ModelNew")
        else:
            self.check_model_new(model_new)
        if not self.has_extension:
            # where the policy allows torch ops, an answer made of them is a legitimate one
            self.add("no-custom-kernel", None,
                     "no torch.utils.cpp_extension.load_inline/load call: the candidate builds no kernel",
                     lesser=bool(self.policy.get("allow_torch_ops")))
        self.check_cpp_sources(tree)
        self.findings.sort(key=lambda f: (f.line, f.col, f.rule))
        return self.findings

    def collect(self, tree: ast.Module) -> None:
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.asname:
                        self.aliases[a.asname] = a.name
                    else:
                        self.aliases.setdefault(a.name.split(".")[0], a.name.split(".")[0])
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for a in node.names:
                    self.aliases[a.asname or a.name] = node.module + "." + a.name
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.functions[node.name] = node
            elif isinstance(node, ast.ClassDef):
                self.classes[node.name] = node
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and self.is_extension_loader(node):
                self.has_extension = True
        for name, fn in self.functions.items():
            if any(isinstance(n, ast.Call) and self.is_extension_loader(n) for n in ast.walk(fn)):
                self.ext_funcs.add(name)
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and \
                    self.is_ext_call(node.value):
                for t in node.targets:
                    if isinstance(t, ast.Name):
                        self.ext_names.add(t.id)

    def is_ext_call(self, call: ast.Call) -> bool:
        return self.is_extension_loader(call) or (
            isinstance(call.func, ast.Name) and call.func.id in self.ext_funcs)

    def check_module(self, tree: ast.Module) -> None:
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                self.check_import(node)
            elif isinstance(node, ast.Call):
                self.check_call_global(node)
            elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
                self.check_patch(node)
            elif isinstance(node, ast.ClassDef):
                for base in node.bases:
                    if _dotted(base) and _dotted(base).split(".")[-1] == "Model":
                        self.add("reference-model-use", base,
                                 "class %s inherits from the reference Model" % node.name)
                    q = self.qualify(base) or ""
                    if q in ("torch.Tensor", "torch._C._TensorBase", "torch._tensor.Tensor") or \
                            q.endswith("._TensorBase"):
                        self.add("tensor-subclass", base,
                                 "class %s subclasses torch.Tensor: a lazy or fake tensor can defer or "
                                 "skip the work" % node.name)
                for item in node.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                            item.name in TENSOR_SUBCLASS_HOOKS:
                        self.add("tensor-subclass", item,
                                 "%s.%s intercepts torch calls" % (node.name, item.name))
            elif isinstance(node, ast.Try):
                if any(isinstance(n, ast.Call) and self.is_extension_loader(n) for n in ast.walk(node)):
                    self.add("fallback-try-except", node,
                             "try/except around the extension build: a failed build could fall back "
                             "to PyTorch")
            elif isinstance(node, ast.Global):
                self.add("global-state", node,
                         "'global %s' lets calls share state (output caching)" % ", ".join(node.names), lesser=True)
            elif isinstance(node, ast.Name) and node.id == "Model" and isinstance(node.ctx, ast.Load):
                self.add("reference-model-use", node,
                         "the candidate refers to the reference Model")
            elif isinstance(node, ast.Attribute) and self.check_attribute_chain(node):
                pass
            elif isinstance(node, ast.Attribute) and node.attr in ("__globals__", "__code__",
                                                                   "__builtins__", "__subclasses__",
                                                                   "f_back", "f_globals", "f_locals",
                                                                   "gi_frame", "__closure__", "__self__",
                                                                   "__mro__", "__bases__", "__base__",
                                                                   "tb_frame", "cr_frame", "__reduce__",
                                                                   "__reduce_ex__", "__loader__", "__spec__"):
                self.add("introspection", node,
                         "access to %s reaches into other code's state" % node.attr)

    def check_attribute_chain(self, node: ast.Attribute) -> bool:
        """Forbidden modules reached through attributes; module __dict__ access;
        precision markers.  Returns True when a finding was added."""
        dotted = _dotted(node)
        if dotted is None:
            return False
        head = dotted.split(".")[0]
        q = self.qualify(node) or dotted
        parts = q.split(".")
        if head in self.aliases or head in PATCHABLE_ROOTS:
            for seg in parts[1:]:
                if seg in FORBIDDEN_ATTR_SEGMENTS:
                    self.add("forbidden-import", node,
                             "%s reaches the %s module through an attribute: %s" %
                             (dotted, seg, FORBIDDEN_MODULES.get(seg, "not allowed")))
                    return True
            if node.attr == "__dict__":
                self.add("introspection", node,
                         "%s exposes a module's namespace (monkey-patching)" % dotted)
                return True
            if q.startswith("torch.hub") or q.startswith("torch.distributed") or q.startswith("torch.package"):
                self.add("network", node, "%s can download or communicate" % q)
                return True
            if q in ("torch.float16", "torch.half", "torch.bfloat16", "torch.autocast",
                     "torch.cuda.amp", "torch.cpu.amp") or q.startswith("torch.cuda.amp.") or \
                    q.startswith("torch.cpu.amp."):
                self.add("precision-downgrade", node,
                         "%s: reduced precision in a %s task" % (q, self.policy.get("precision", "fp32")),
                         lesser=self.reduced_precision())
                return True
        return False

    def reduced_precision(self) -> bool:
        """An fp16/bf16 task: reduced precision there is the task's own (info, not suspicious)."""
        return str(self.policy.get("precision", "fp32")) in ("fp16", "bf16")

    def check_import(self, node: ast.stmt) -> None:
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif node.module:
            names = [node.module] if node.level == 0 else []
            if node.level == 0 and node.module == "os":
                for a in node.names:
                    if a.name in FORBIDDEN_OS_CALLS:
                        self.add("forbidden-call", node, "imports os.%s" % a.name)
        for name in names:
            top = name.split(".")[0]
            if top in FORBIDDEN_MODULES:
                self.add("forbidden-import", node,
                         "imports %s: %s" % (name, FORBIDDEN_MODULES[top]))
            if name.startswith("torch.multiprocessing") or name.startswith("torch._dynamo") or \
                    name.startswith("torch._inductor"):
                self.add("forbidden-import", node, "imports %s" % name)

    def check_call_global(self, node: ast.Call) -> None:
        func = node.func
        q = self.qualify(func) or ""
        if isinstance(func, ast.Name):
            name = func.id
            if name in DYNAMIC_CODE and name not in self.functions:
                self.add("dynamic-code", node, "%s() runs code the checker can't see" % name)
            elif name in SUSPICIOUS_BUILTINS and name not in self.functions:
                if name == "setattr" and node.args and (_root_name(node.args[0]) in PATCHABLE_ROOTS or
                                                        self.qualify(node.args[0]) in self.aliases.values()):
                    self.add("monkey-patch", node, "setattr() on module %s" % _dotted(node.args[0]))
                elif name == "getattr" and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant):
                    self.check_getattr_constant(node)
                elif name == "getattr" and len(node.args) >= 2 and self.is_module_ref(node.args[0]):
                    self.add("dynamic-code", node,
                             "getattr(%s, <computed name>) hides which function is called" %
                             _dotted(node.args[0]))
                else:
                    self.add("dynamic-code", node, "%s() hides what the candidate accesses" % name, lesser=True)
            elif name == "open" and name not in self.functions:
                self.check_open(node)
            elif name == "input" and name not in self.functions:
                self.add("file-read", node, "input() reads the harness's standard input")
            elif name == "type" and len(node.args) == 3 and name not in self.functions:
                self.add("dynamic-code", node, "type() with three arguments creates a class at run "
                                               "time (hidden subclasses)", lesser=True)
        if isinstance(func, ast.Attribute) and func.attr in TENSOR_SUBCLASS_CALLS:
            self.add("tensor-subclass", node,
                     ".%s() makes a tensor subclass: a lazy or fake tensor can defer or skip the work" % func.attr)
        if q in ("os.listdir", "os.scandir", "os.walk", "os.fwalk") or (
                isinstance(func, ast.Attribute) and func.attr in ("glob", "rglob", "iterdir")):
            self.add("file-scan", node, "%s scans the file system" % (q or func.attr))
        if q in ("io.FileIO", "io.open_code", "torch.save", "numpy.save", "numpy.savez", "numpy.savetxt",
                 "np.save", "np.savez", "np.savetxt", "torch.jit.save", "os.mkfifo", "os.mknod") or (
                isinstance(func, ast.Attribute) and func.attr in ("tofile", "to_file")):
            self.add("file-write", node, "%s writes to the file system" % (q or func.attr))
        if q.startswith("os.") and q.split(".")[1] in FORBIDDEN_OS_CALLS:
            self.add("forbidden-call", node, "%s() is not allowed" % q)
        if q in ("io.open", "codecs.open", "os.open"):
            self.check_open(node, force=q == "os.open")
        if isinstance(func, ast.Attribute) and func.attr in ("write_text", "write_bytes", "unlink",
                                                             "rmdir", "touch", "mkdir", "rename",
                                                             "symlink_to", "chmod"):
            root = _root_name(func)
            if root not in self.ext_names:
                self.add("file-write", node, ".%s() writes to the file system" % func.attr)
        if q.endswith("set_num_threads") or q.endswith("set_num_interop_threads") or \
                q.endswith("set_float32_matmul_precision") or q.endswith("use_deterministic_algorithms") or \
                q.endswith("set_flush_denormal") or q.endswith("set_default_dtype"):
            self.add("global-state", node, "%s() changes global settings the harness controls" % q)
        if q.startswith("torch.cuda.set_per_process_memory_fraction") or q.startswith("torch.cuda.memory"):
            self.add("global-state", node, "%s() touches the device allocator" % q, lesser=True)
        if q.startswith("torch.cuda.graph") or q.startswith("torch.cuda.CUDAGraph") or \
                q.startswith("torch.cuda.make_graphed_callables") or q.startswith("torch.cuda.graphs"):
            self.add("cuda-graph", node, "CUDA graph replay in the candidate: captured work can be "
                                         "replayed instead of computed")
        if q.startswith("torch.cuda.Stream") or q.startswith("torch.cuda.stream") or \
                q.startswith("torch.cuda.ExternalStream") or q.startswith("torch.cuda.set_stream") or \
                q.startswith("torch.cuda.streams"):
            self.add("side-stream", node, "%s: work on a side stream can escape the timed window" % q)
        if q.startswith("torch.cuda.cudart") or q.startswith("torch._C._cuda"):
            self.add("cuda-runtime-access", node,
                     "%s calls the CUDA runtime directly (persisting-L2 limits, streams)" % q)
        if self.is_extension_loader(node):
            self.check_loader_flags(node)

    def is_module_ref(self, node: ast.AST) -> bool:
        root = _root_name(node)
        return root is not None and (root in self.aliases or root in PATCHABLE_ROOTS) and \
            _dotted(node) is not None

    def check_getattr_constant(self, node: ast.Call) -> None:
        """getattr(torch, "relu") is torch.relu: report what the attribute form would get."""
        if not self.is_module_ref(node.args[0]) or not isinstance(node.args[1].value, str):
            return
        q = (self.qualify(node.args[0]) or "") + "." + node.args[1].value
        name = node.args[1].value
        if name in FORBIDDEN_MODULES or name in FORBIDDEN_ATTR_SEGMENTS:
            self.add("forbidden-import", node, "getattr reaches the %s module" % name)
        elif name.startswith("__"):
            self.add("introspection", node, "getattr(%s, %r) reaches interpreter internals" %
                     (_dotted(node.args[0]), name))
        elif not self.policy.get("allow_torch_ops") and (
                (q.startswith("torch.") and (name in COMPUTE_METHODS or q.startswith("torch.nn.functional.")
                                             or q.startswith("torch.ops") or q.startswith("torch.linalg")))
                or q.startswith("numpy.")):
            self.add("torch-op-in-forward", node, "getattr hides a call of %s" % q)
        else:
            self.add("dynamic-code", node, "getattr(%s, %r) instead of an attribute" %
                     (_dotted(node.args[0]), name), lesser=True)

    def check_loader_flags(self, call: ast.Call) -> None:
        allowed = self.vendor_allowed
        for kw in call.keywords:
            if kw.arg not in ("extra_ldflags", "extra_cflags", "extra_cuda_cflags", "extra_include_paths"):
                continue
            for sub in ast.walk(kw.value):
                if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
                    m = cppscan.VENDOR_LINK_FLAG.search(sub.value)
                    if m and cppscan.vendor_class(m.group(1)) not in allowed:
                        self.add("vendor-library", sub,
                                 "links %s (vendor library) and the policy forbids it" % m.group(1))

    def check_open(self, node: ast.Call, force: bool = False) -> None:
        mode = None
        if len(node.args) >= 2:
            mode = node.args[1]
        for kw in node.keywords:
            if kw.arg in ("mode", "flags"):
                mode = kw.value
        if force:
            self.add("file-write", node, "os.open() with arbitrary flags")
            return
        path = node.args[0] if node.args else None
        if isinstance(path, ast.Constant) and isinstance(path.value, int):
            self.add("file-read", node, "open() of file descriptor %d (the harness's stdio)" % path.value)
        elif isinstance(path, ast.Constant) and isinstance(path.value, str) and \
                path.value.startswith(PROBE_PATH_PREFIXES):
            self.add("file-read", node, "open(%r) probes the system (the judge's command line, "
                                        "environment or devices)" % path.value)
        elif isinstance(path, (ast.JoinedStr, ast.BinOp)) and any(
                isinstance(c, ast.Constant) and isinstance(c.value, str) and
                (c.value.startswith(PROBE_PATH_PREFIXES) or "environ" in c.value or "cmdline" in c.value)
                for c in ast.walk(path)):
            self.add("file-read", node, "open() of a /proc-style path probes the judge's process")
        if mode is None:
            return
        if isinstance(mode, ast.Constant) and isinstance(mode.value, str):
            if any(c in mode.value for c in "wax+"):
                self.add("file-write", node, "open(..., %r) writes to the file system" % mode.value)
        else:
            self.add("file-write", node, "open() with a computed mode may write to the file system")

    def check_patch(self, node: ast.stmt) -> None:
        if isinstance(node, ast.Delete):
            targets = node.targets
        elif isinstance(node, ast.Assign):
            targets = node.targets
        else:
            targets = [node.target]
        flat = []
        for t in targets:
            if isinstance(t, (ast.Tuple, ast.List)):
                flat.extend(t.elts)
            else:
                flat.append(t)
        for t in flat:
            if isinstance(t, (ast.Attribute, ast.Subscript)):
                root = _root_name(t)
                if root is None or root == "self":
                    continue
                qualified = self.aliases.get(root, root)
                top = qualified.split(".")[0]
                if root in PATCHABLE_ROOTS or root in self.aliases or top in PATCHABLE_ROOTS:
                    if root in self.ext_names:
                        continue
                    if (_dotted(t.value) if isinstance(t, ast.Subscript) else "") in ("os.environ",):
                        self.add("env-change", t, "the candidate changes os.environ")
                        continue
                    self.add("monkey-patch", t,
                             "assignment to %s patches a module the harness relies on" %
                             (_dotted(t) or qualified + "[...]"))

    # -- C++ / CUDA sources ----------------------------------------------
    def check_cpp_sources(self, tree: ast.Module) -> None:
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
                continue
            text = node.value
            if not cppscan.looks_like_cpp(text):
                continue
            # a triple-quoted literal starting on the line of the opening quotes
            self.scan_cpp(text, node.lineno)

    def scan_cpp(self, text: str, base_line: int, where: str = "") -> None:
        """Scan one C++/CUDA text (cppscan.py); `where` (a file name) prefixes the messages."""
        before = len(self.findings)
        for f in cppscan.scan(text, base_line, bool(self.policy.get("allow_torch_ops")), self.vendor_allowed,
                              self.reduced_precision()):
            self.keep(f)
        if where:
            self.findings[before:] = [f._replace(message="%s: %s" % (where, f.message))
                                      for f in self.findings[before:]]
