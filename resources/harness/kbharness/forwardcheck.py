"""The rules on what ``ModelNew.forward`` computes: PyTorch compute (torch functions, ``F.*``,
``nn`` modules, compute tensor methods, ``@``, numpy) in ``forward`` and every helper reachable
from it -- module-level functions called by name, ``self.method(...)`` calls and ``forward`` of
candidate-defined submodules -- plus fallbacks, state kept between calls and reduced precision
there. Extension calls are what a candidate should make."""

import ast
from typing import Dict, Optional, Set

from .vocabulary import ALLOWED_NN_CALLS, ALLOWED_TORCH_FUNCS, ALLOWED_TORCH_NAMESPACES, COMPUTE_METHODS


def dotted(node: ast.AST) -> Optional[str]:
    """Return 'a.b.c' for Name/Attribute chains, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def root_name(node: ast.AST) -> Optional[str]:
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


class ForwardChecks:
    """Part of PythonChecker (pycheck.py), which provides ``add``, ``qualify``, the policy and what
    its first pass collected (``functions``, ``classes``, ``aliases``, ``ext_names``)."""

    def check_model_new(self, cls: ast.ClassDef) -> None:
        methods = {n.name: n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
        info = self.class_info(cls)
        forward = methods.get("forward")
        if forward is None:
            self.add("missing-forward", cls, "ModelNew defines no forward()")
            return
        self.visited = set()
        self.check_function(forward, cls, info, "ModelNew.forward")

    def class_info(self, cls: ast.ClassDef) -> Dict[str, str]:
        """Attributes assigned in __init__: kind 'ext', 'nn', 'sub:<Class>', 'param'."""
        info = {}
        for node in ast.walk(cls):
            if not isinstance(node, ast.Assign):
                continue
            for t in node.targets:
                if not (isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"):
                    continue
                v = node.value
                root = root_name(v)
                if root in self.ext_names:
                    info[t.attr] = "ext"
                elif isinstance(v, ast.Call):
                    q = self.qualify(v.func) or ""
                    if self.is_ext_call(v):
                        info[t.attr] = "ext"
                    elif q.split(".")[-1] in ("Parameter", "Buffer"):
                        info[t.attr] = "param"
                    elif q.startswith("torch.nn.") or q.startswith("nn."):
                        info[t.attr] = "nn:" + q
                    elif isinstance(v.func, ast.Name) and v.func.id in self.classes:
                        info[t.attr] = "sub:" + v.func.id
        return info

    def check_function(self, fn: ast.AST, cls: Optional[ast.ClassDef], info: Dict[str, str], where: str) -> None:
        key = (cls.name if cls is not None else "", fn.name)
        if key in self.visited:
            return
        self.visited.add(key)
        params = {a.arg for a in fn.args.args + fn.args.kwonlyargs} - {"self"}
        local_ext = set()
        for node in ast.walk(fn):
            if isinstance(node, ast.Assign) and (root_name(node.value) in self.ext_names or (
                    isinstance(node.value, ast.Attribute) and isinstance(node.value.value, ast.Name) and
                    node.value.value.id == "self" and info.get(node.value.attr) == "ext")):
                for t in node.targets:
                    if isinstance(t, ast.Name):
                        local_ext.add(t.id)
        allow_ops = bool(self.policy.get("allow_torch_ops"))
        for node in ast.walk(fn):
            if isinstance(node, ast.Try):
                self.add("fallback-try-except", node,
                         "try/except in %s: a failing kernel could fall back to PyTorch" % where)
            elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
                if not allow_ops:
                    self.add("torch-op-in-forward", node, "'@' (matmul) in %s" % where)
            elif isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div,
                                                                      ast.Pow, ast.FloorDiv, ast.Mod)):
                if not allow_ops and self._tensorish(node.left, params, info) or \
                        not allow_ops and self._tensorish(node.right, params, info):
                    self.add("torch-op-in-forward", node,
                             "arithmetic on a tensor argument in %s runs a PyTorch op" % where, lesser=True)
            elif isinstance(node, ast.Attribute) and node.attr in ("half", "bfloat16", "float16"):
                self.add("precision-downgrade", node,
                         "%s uses reduced precision (%s)" % (where, node.attr), lesser=self.reduced_precision())
            elif isinstance(node, ast.Assign):
                for t in node.targets:
                    if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                        self.add("state-in-forward", t,
                                 "%s stores self.%s between calls (output caching?)" % (where, t.attr))
            elif isinstance(node, ast.Call):
                self.check_forward_call(node, fn, cls, info, where, local_ext, allow_ops)

    def _tensorish(self, node, params, info):
        if isinstance(node, ast.Name) and node.id in params:
            return True
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
            return info.get(node.attr) == "param"
        return False

    def check_forward_call(self, node: ast.Call, fn: ast.AST, cls: Optional[ast.ClassDef], info: Dict[str, str],
                           where: str, local_ext: Set[str], allow_ops: bool) -> None:
        func = node.func
        q = self.qualify(func) or ""
        root = root_name(func)
        # helpers reachable from forward
        if isinstance(func, ast.Name) and func.id in self.functions:
            self.check_function(self.functions[func.id], None, {}, "helper %s()" % func.id)
            return
        if isinstance(func, ast.Name) and func.id in self.classes and func.id != "ModelNew":
            sub = self.classes[func.id]
            self.add("module-in-forward", node, "%s constructs %s in %s" % (where, func.id, where))
            return
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self" \
                and cls is not None:
            methods = {n.name: n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
            if func.attr in methods:
                self.check_function(methods[func.attr], cls, info, "%s.%s" % (cls.name, func.attr))
                return
            kind = info.get(func.attr, "")
            if kind.startswith("nn:") and not allow_ops:
                self.add("torch-op-in-forward", node,
                         "%s calls self.%s, a %s: PyTorch computes it" % (where, func.attr, kind[3:]))
                return
            if kind.startswith("sub:"):
                sub = self.classes.get(kind[4:])
                if sub is not None:
                    sub_methods = {n.name: n for n in sub.body if isinstance(n, ast.FunctionDef)}
                    if "forward" in sub_methods:
                        self.check_function(sub_methods["forward"], sub, self.class_info(sub),
                                            "%s.forward" % sub.name)
                return
        # extension calls are the point (the receiver must be the module itself,
        # not the result of a call on it: ext.op(x).softmax() is a torch op)
        if (root in self.ext_names or root in local_ext) and dotted(func) is not None:
            return
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Attribute) and \
                isinstance(func.value.value, ast.Name) and func.value.value.id == "self" and \
                info.get(func.value.attr) == "ext":
            return
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self" and \
                info.get(func.attr) == "ext":
            return
        if allow_ops:
            return
        if q.startswith("torch.nn.functional.") or q.startswith("F."):
            self.add("torch-op-in-forward", node, "%s calls %s" % (where, q))
            return
        if q.startswith("torch.ops.") or q.startswith("torch._C.") or q.startswith("torch._ops") or \
                q.startswith("torch.linalg.") or q.startswith("torch.fft.") or q.startswith("torch.special.") \
                or q.startswith("torch.sparse."):
            self.add("torch-op-in-forward", node, "%s calls %s" % (where, q))
            return
        if q.startswith("torch.nn.") or q.startswith("nn."):
            name = q.split(".")[-1]
            if name not in ALLOWED_NN_CALLS and not q.startswith("torch.nn.init"):
                self.add("torch-op-in-forward", node, "%s uses %s" % (where, q))
            return
        if q.startswith("torch.Tensor."):
            name = q.split(".")[-1].rstrip("_")
            if name in COMPUTE_METHODS:
                self.add("torch-op-in-forward", node, "%s calls %s" % (where, q))
            return
        if q.startswith("torch."):
            if any(q.startswith(ns) for ns in ALLOWED_TORCH_NAMESPACES):
                return
            parts = q.split(".")
            if len(parts) == 2 and parts[1] in ALLOWED_TORCH_FUNCS:
                return
            if len(parts) >= 2 and parts[1] in ("autograd",):
                return
            self.add("torch-op-in-forward", node, "%s calls %s" % (where, q))
            return
        if q.startswith("numpy.") or q.startswith("np.") or q.startswith("scipy."):
            self.add("torch-op-in-forward", node, "%s computes with %s on the host" % (where, q))
            return
        if isinstance(func, ast.Attribute):
            name = func.attr.rstrip("_")
            if name in COMPUTE_METHODS and root not in ("math", "self") and root not in self.aliases:
                self.add("torch-op-in-forward", node,
                         "%s calls tensor method .%s(): PyTorch computes it" % (where, func.attr))
            elif name in COMPUTE_METHODS and root == "self" and not isinstance(func.value, ast.Name):
                self.add("torch-op-in-forward", node,
                         "%s calls .%s() on %s" % (where, func.attr, dotted(func.value) or "a tensor"))
            elif func.attr in ("__call__", "forward") and root == "self":
                self.add("torch-op-in-forward", node, "%s calls %s" % (where, dotted(func)), lesser=True)
