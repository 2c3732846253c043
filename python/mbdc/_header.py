"""Reading a generated header P_dynamics.h: its integer constants, its tables and the functions
it declares (each on one line), with the sizes of their arguments."""

import ast
import re

_DEFINE = re.compile(r"^#define\s+(\w+)\s+([-+0-9.eExa-fA-F]+)\b")
_EXTERN = re.compile(
    r"^extern\s+const\s+(char\s*\*\s*const|double|float|int)\s+(\w+)\s*\[(.*)\]\s*;")
_FUNC = re.compile(r"^(void|int)\s+(\w+)\s*\((.*)\)\s*;\s*$")
_PARAM = re.compile(
    r"^(const\s+)?(double|float|int)\s*(\*)?\s*"
    r"(?:restrict\s+|__restrict\s+|\w+_RESTRICT\s+)?(\w+)"
    r"\s*(?:\[(.*)\])?$")


class Param:
    """One argument of a generated function.

    kind: 'in' (const array or a scalar passed by value), 'out' (an array written), 'inout'
    (an array read and written in place: project_q's q, project_v's v), 'n' (the batch count).
    ctype: 'double', 'float' or 'int'. size: the number of entries (None for a scalar),
    expr: the size as written in the header, shape: the shape mbdc gives the values."""

    __slots__ = ("name", "kind", "ctype", "pointer", "expr", "size", "shape")

    def __init__(self, name, kind, ctype, pointer, expr, size, shape):
        self.name, self.kind, self.ctype, self.pointer = name, kind, ctype, pointer
        self.expr, self.size, self.shape = expr, size, shape

    def __repr__(self):
        return "Param(%s %s %s%s)" % (self.kind, self.ctype, self.name,
                                      "" if self.expr is None else "[%s]" % self.expr)


class Declaration:
    """A function of the header: C name, return type ('void' or 'int'), parameters, the comment
    above it and the declaration line."""

    __slots__ = ("cname", "ret", "params", "comment", "line")

    def __init__(self, cname, ret, params, comment, line):
        self.cname, self.ret, self.params = cname, ret, params
        self.comment, self.line = comment, line


class Header:
    """The parsed header: constants (every #define of a number), tables (every extern array:
    name -> (C type, size)) and functions (C name -> Declaration)."""

    def __init__(self, text, prefix):
        self.text = text
        self.prefix = prefix
        self.constants = {}
        self.tables = {}
        self.functions = {}
        self._parse()

    # -- sizes -----------------------------------------------------------------------------
    def size(self, expr):
        """The value of a size expression (integers, macros of the header, + - * / and
        parentheses)."""
        return _eval(ast.parse(expr, mode="eval").body, self.constants, expr)

    def shape(self, expr):
        """The shape mbdc documents for an array of that size: a matrix X x P_NV (row-major),
        P_NV x X, K x P_NV per frame (K * P_NV * P_NF -> (P_NF, K, P_NV)), K numbers per body,
        frame or node (K * X with K a number -> (X, K)); otherwise flat."""
        tree = ast.parse(expr, mode="eval").body
        factors = _factors(tree)
        if len(factors) == 1:
            return (self.size(expr),)
        vals = [_eval(f, self.constants, expr) for f in factors]
        nv_name = self.prefix.upper() + "_NV"
        is_nv = [isinstance(f, ast.Name) and f.id == nv_name for f in factors]
        is_num = [isinstance(f, ast.Constant) for f in factors]
        total = 1
        for v in vals:
            total *= v
        if len(factors) == 2:
            if is_num[0] and not is_nv[1]:
                return (vals[1], vals[0])
            return (vals[0], vals[1])
        if len(factors) == 3 and is_num[0] and is_nv[1]:
            return (vals[2], vals[0], vals[1])
        if is_nv[0]:
            return (vals[0], total // vals[0])
        return (total,)

    # -- parsing ---------------------------------------------------------------------------
    def _parse(self):
        lines = self.text.splitlines()
        for line in lines:
            m = _DEFINE.match(line)
            if m:
                try:
                    value = int(m.group(2), 0)
                except ValueError:
                    try:
                        value = float(m.group(2))
                    except ValueError:
                        continue
                self.constants[m.group(1)] = value
        comment = []
        in_comment = False
        for line in lines:
            stripped = line.strip()
            if stripped.startswith("/*"):
                comment = []
                in_comment = True
            if in_comment:
                comment.append(stripped)
                if stripped.endswith("*/"):
                    in_comment = False
                continue
            m = _EXTERN.match(stripped)
            if m:
                ctype = "char*" if m.group(1).startswith("char") else m.group(1)
                try:
                    self.tables[m.group(2)] = (ctype, self.size(m.group(3)))
                except (KeyError, SyntaxError, ValueError):
                    pass
                comment = []
                continue
            m = _FUNC.match(stripped)
            if m:
                text = " ".join(comment)
                text = re.sub(r"^/\*\s*|\s*\*/$", "", text)
                text = re.sub(r"\s+\*\s+", " ", text)
                self._function(m.group(1), m.group(2), m.group(3), text, stripped)
                comment = []
            elif stripped:
                comment = []

    def _function(self, ret, cname, arglist, comment, line):
        params = []
        for raw in [a.strip() for a in arglist.split(",")]:
            if raw in ("", "void"):
                continue
            m = _PARAM.match(raw)
            if not m:
                raise ValueError("cannot read the argument '%s' of %s" % (raw, cname))
            const, ctype, star, name, expr = m.groups()
            pointer = bool(star) or expr is not None
            if expr is not None:
                size = self.size(expr)
                shape = self.shape(expr)
            else:
                size = None
                shape = ()
            if not pointer:
                kind = "n" if (name == "n" and ctype == "int" and not params) else "in"
            elif const:
                kind = "in"
            else:
                base = cname[len(self.prefix) + 1:]
                kind = "inout" if base.startswith("project_") and expr is not None else "out"
            params.append(Param(name, kind, ctype, pointer, expr, size, shape))
        self.functions[cname] = Declaration(cname, ret, params, comment, line)


def _factors(node):
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        return _factors(node.left) + _factors(node.right)
    return [node]


def _eval(node, names, expr):
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return node.value
    if isinstance(node, ast.Name):
        value = names[node.id]
        if not isinstance(value, int):
            raise ValueError("size %s: %s is not an integer" % (expr, node.id))
        return value
    if isinstance(node, ast.BinOp):
        a, b = _eval(node.left, names, expr), _eval(node.right, names, expr)
        if isinstance(node.op, ast.Add):
            return a + b
        if isinstance(node.op, ast.Sub):
            return a - b
        if isinstance(node.op, ast.Mult):
            return a * b
        if isinstance(node.op, (ast.Div, ast.FloorDiv)):
            return a // b
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_eval(node.operand, names, expr)
    raise ValueError("cannot read the size expression '%s'" % expr)
