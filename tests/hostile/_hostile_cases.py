"""Hostile-input cases, generated per parameter kind across the public API.

Each public function or method is a :class:`Target`: a call template, a valid base call
(whose source names the fixtures of ``_hostile_worker.namespace``) and, for each of its
parameters, a parameter kind. A kind knows its valid domain and generates value classes
from it: huge, negative, zero, NaN, infinities, the wrong type (str of a number, None,
bool, float for int, list for scalar, dict, bytes), empty, unsigned 64-bit values (above
2**63 included), object arrays, 0-d arrays, wrong shapes and dtypes (complex,
datetime64, float16, longdouble). Each value class gets its expected outcome from the
domain: TypeError for a wrong type, ValueError for a wrong value, both naming the
parameter; or a result, checked against a simple reference where the value is extreme
but valid (a cutoff of 2**62 on 3 items equals no cutoff, ...).

Value sources are text evaluated in the child, so no object is ever pickled.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from _hostile_runner import AnyOf, Case, Ok, Raises

# longdouble is float64 where the platform has nothing wider (MSVC).
WIDE_LONGDOUBLE = np.dtype(np.longdouble).itemsize > 8


def _distinct(names) -> tuple:
    return tuple(n if isinstance(n, str) else tuple(dict.fromkeys(n)) for n in names)


def TE(*names) -> Raises:
    """A TypeError whose message names every one of ``names`` (a tuple: any one of its texts)."""
    return Raises(TypeError, _distinct(names))


def VE(*names) -> Raises:
    """A ValueError whose message names every one of ``names`` (a tuple: any one of its texts)."""
    return Raises(ValueError, _distinct(names))


def either(*options) -> AnyOf:
    return AnyOf(tuple(options))


def differ(*names) -> AnyOf:
    """The queries-differ error, a ValueError whose message names every one of ``names``."""
    return VE(*names)


OMIT = None  # a base argument left out of the call unless a case sets it


@dataclass
class Target:
    """One public callable: ``template`` holds ``{args}`` (keyword arguments) or ``{name}`` fields."""

    id: str
    template: str
    base: dict
    params: dict
    setup: str = ""

    def call(self, **override) -> str:
        args = {**self.base, **override}
        if "{args}" in self.template:
            text = ", ".join(f"{k}={v}" for k, v in args.items() if v is not OMIT)
            return self.template.format(args=text)
        return self.template.format(**args)


@dataclass
class Ctx:
    """A parameter of a target, as the kinds see it."""

    target: Target
    name: str

    @property
    def base(self) -> str:
        value = self.target.base.get(self.name)
        return "None" if value is OMIT else value

    def call_with(self, src: str) -> str:
        return self.target.call(**{self.name: src})

    def same(self, src: str | None = None) -> Ok:
        """A result equal to the call with ``src`` (default: the base value) for this parameter."""
        return Ok(f"same(result, {self.call_with(self.base if src is None else src)})")

    def te(self) -> Raises:
        return TE(self.name)

    def ve(self) -> Raises:
        return VE(self.name)


class Kind:
    """A parameter kind: its domain, and the value classes generated from it."""

    def __init__(self, extra=(), drop=(), only=None):
        self.extra = list(extra)   # (label, src, expectation or callable(ctx) -> expectation)
        self.drop = set(drop)      # labels of generated classes that do not apply
        self.only = only           # labels to keep (a core sample), None for all

    def rows(self, ctx: Ctx) -> list:
        raise NotImplementedError

    def core(self) -> Kind:
        """This kind reduced to one value per class (a parameter whose code path another target covers fully)."""
        self.only = CORE.get(type(self).__name__)
        return self

    def values(self, ctx: Ctx) -> list:
        rows = [r for r in self.rows(ctx) if r[0] not in self.drop and (self.only is None or r[0] in self.only)]
        rows += [(label, src, expect(ctx) if callable(expect) else expect) for label, src, expect in self.extra]
        return rows


# One value per class, for a parameter that shares its code path with one covered fully
# (the per-metric functions' options are evaluate()'s).
CORE = {
    "Real": {"0", "-1", "float('nan')", "float('inf')", "10**400", "1e300", "5e-324", "str", "None", "True", "list",
             "0-d", "np.float32", "np.uint64"},
    "Threads": {"-1", "0", "2**62", "2**63", "-2**64", "1.5", "str", "True", "0-d"},
    "Choice": {"unknown", "int", "None", "bytes", "np.str_"},
    "Offsets": {"uint64", "past-end", "2**63", "2**64", "uint64-max", "float", "bool", "empty", "scalar"},
    "Ids": {"nan", "mixed", "None-ids", "uint64-big", "short"},
    "Labels": {"-1", "nan", "1e308", "uint64=2**64-1", "object", "short", "None"},
    "Scores": {"nan", "+inf", "uint64>2**63", "longdouble", "object", "short", "None"},
}


def _int_list(x: str, value: str, at: int) -> str:
    """Source of ``x`` times 16 as nested lists of Python ints, ``value`` at flat position ``at``."""
    return f"put((np.asarray({x}) * 16).astype(np.int64), {value}, {at}, object).tolist()"


def _type_rows(ctx: Ctx, v: str, none, zero_d=True) -> list:
    """The wrong-type classes every scalar kind shares (``v``: the source of a valid value)."""
    rows = [("str", repr(v), ctx.te()), ("bytes", f"b{v!r}", ctx.te()), ("True", "True", ctx.te()),
            ("False", "False", ctx.te()), ("list", f"[{v}]", ctx.te()), ("dict", "{}", ctx.te()),
            ("complex", f"complex({v})", ctx.te()), ("array1", f"np.array([{v}])", ctx.te()),
            ("None", "None", none)]
    if zero_d:
        rows.append(("0-d", f"np.array({v})", either(ctx.same(v), ctx.te())))
    return rows


class Int(Kind):
    """An integer from ``minimum`` to 2**63 - 1 (``unbounded``: no upper bound, e.g. a seed)."""

    def __init__(self, valid="2", minimum=1, none="type", unbounded=False, check_big="", **kw):
        super().__init__(**kw)
        self.valid, self.minimum, self.none, self.unbounded = valid, minimum, none, unbounded
        self.check_big = check_big

    def rows(self, ctx):
        v = self.valid
        none = {"type": ctx.te(), "value": ctx.ve(), "ok": ctx.same("None")}[self.none] \
            if isinstance(self.none, str) else self.none
        rows = [(f"np.{t}", f"np.{t}({v})", ctx.same(v)) for t in ("int64", "int32", "uint64", "uint8")]
        rows += [("float", f"{v}.0", ctx.te()), ("np.float64", f"np.float64({v})", ctx.te()),
                 ("1e308", "1e308", ctx.te()), ("nan", "float('nan')", ctx.te()), ("inf", "float('inf')", ctx.te()),
                 ("-inf", "float('-inf')", ctx.te())]
        rows += _type_rows(ctx, v, none)
        below = [str(self.minimum - 1), "-1", "-2**63", "-2**64", "np.int8(-1)"]
        rows += [(b, b, ctx.ve()) for b in dict.fromkeys(below) if eval(b, {"np": np}) < self.minimum]
        big = ["2**63", "2**64", "10**30", "np.uint64(2**63)", "np.uint64(2**64 - 1)"]
        if self.unbounded:
            rows += [(b, b, Ok(self.check_big.format(value=b))) for b in big]
        else:
            rows += [(b, b, ctx.ve()) for b in big]
        return rows


class Threads(Kind):
    """n_threads: None, a positive count, or a negative one counting back from all CPUs (-1 = all)."""

    def rows(self, ctx):
        same = ctx.same("None")
        rows = [(v, v, same) for v in ("-1", "-2", "1", "2", "64", "2**62", "np.int64(2)", "np.uint64(2)", "None")]
        rows += [(v, v, ctx.ve()) for v in ("0", "2**63", "2**64", "10**30", "-2**64", "np.uint64(2**64 - 1)")]
        rows += [("-2**63", "-2**63", either(same, ctx.ve()))]
        rows += [(v, v, ctx.te()) for v in ("1.0", "1.5", "float('nan')", "float('inf')")]
        rows += [r for r in _type_rows(ctx, "2", same) if r[0] != "None"]
        return rows


class Real(Kind):
    """A finite number in an interval; every candidate is classified by that interval."""

    CANDIDATES = ["0", "0.0", "-0.0", "1", "1.0", "-1", "0.5", "1.5", "2", "1e300", "-1e300", "5e-324",
                  "-5e-324", "1 - 2**-53", "1 + 2**-52", "float('nan')", "float('inf')", "float('-inf')",
                  "10**400", "-(10**400)", "2**64", "np.uint64(2**64 - 1)", "np.float32('inf')"]

    def __init__(self, valid, low=0.0, high=math.inf, low_open=True, high_open=True, none="type",
                 checks=None, **kw):
        super().__init__(**kw)
        self.valid, self.low, self.high = valid, low, high
        self.low_open, self.high_open, self.none = low_open, high_open, none
        self.checks = checks or {}   # label -> check source (or "same:<src>") for valid extremes

    def inside(self, src: str) -> bool:
        value = eval(src, {"np": np})
        try:
            x = float(value)
        except OverflowError:
            return False
        if not math.isfinite(x):
            return False
        above = x > self.low if self.low_open else x >= self.low
        below = x < self.high if self.high_open else x <= self.high
        return above and below

    def rows(self, ctx):
        v = self.valid
        none = {"type": ctx.te(), "ok": ctx.same("None")}[self.none] if isinstance(self.none, str) else self.none
        rows = [(f"np.{t}", f"np.{t}({v})", ctx.same(v)) for t in ("float64", "float32", "float16", "longdouble")]
        if float(eval(v)).is_integer():
            rows += [(f"np.{t}", f"np.{t}({int(float(eval(v)))})", ctx.same(v)) for t in ("int64", "uint64")]
        for src in self.CANDIDATES:
            if not self.inside(src):
                rows.append((src, src, ctx.ve()))
                continue
            check = self.checks.get(src, "")
            if check.startswith("same:"):
                rows.append((src, src, ctx.same(check[5:])))
            else:
                rows.append((src, src, Ok(check)))
        rows += _type_rows(ctx, v, none)
        return rows


class Choice(Kind):
    """One of a set of strings."""

    def __init__(self, valid: str, none="type", **kw):
        super().__init__(**kw)
        self.valid, self.none = valid, none

    def rows(self, ctx):
        v = repr(self.valid)
        if callable(self.none):
            none = self.none(ctx)
        else:
            none = {"type": ctx.te(), "ok": ctx.same("None")}[self.none] if isinstance(self.none, str) else self.none
        return [("unknown", "'nope'", ctx.ve()), ("empty", "''", ctx.ve()),
                ("np.str_", f"np.str_({v})", ctx.same(v)),
                ("int", "1", ctx.te()), ("None", "None", none), ("True", "True", ctx.te()),
                ("bytes", f"b{v}", ctx.te()), ("list", f"[{v}]", ctx.te()), ("nan", "float('nan')", ctx.te())]


class Flag(Kind):
    """A bool (numpy's included)."""

    def rows(self, ctx):
        return [("True", "True", Ok()), ("np.True_", "np.True_", ctx.same("True")),
                ("np.False_", "np.False_", ctx.same("False")),
                ("1", "1", either(ctx.same("True"), ctx.te())), ("0", "0", either(ctx.same("False"), ctx.te())),
                ("'False'", "'False'", ctx.te()), ("'yes'", "'yes'", ctx.te()), ("None", "None", ctx.te()),
                ("list", "[]", ctx.te()), ("nan", "float('nan')", ctx.te()),
                ("0-d", "np.array(True)", either(ctx.same("True"), ctx.te()))]


# --------------------------------------------------------------------------------------
# Array kinds
# --------------------------------------------------------------------------------------

class Scores(Kind):
    """Scores: float32/float64 (or integers exact in float64); NaN an error; +-inf valid.

    ``top`` / ``bottom``: flat positions holding a row's largest / smallest score, so
    that +inf / -inf there keep the ranking. ``order_same``: the result depends on the
    ranking only (so infinities there and a uniform rescaling give the base result).
    """

    def __init__(self, top=0, bottom=2, two_d=True, order_same=True, scalar="value", nan="value",
                 ragged="indptr", partner=None, none=None, **kw):
        super().__init__(**kw)
        self.top, self.bottom, self.two_d, self.order_same = top, bottom, two_d, order_same
        self.scalar, self.nan, self.ragged = scalar, nan, ragged
        self.partner, self.none = partner, none   # partner: the argument a length mismatch may name instead

    def rows(self, ctx):
        x, same, ok = ctx.base, ctx.same(), Ok()
        ordered = same if self.order_same else ok
        mismatch = VE((ctx.name, self.partner)) if self.partner else ctx.ve()
        rows = [
            ("nan", f"put({x}, np.nan, {self.top})", ctx.ve() if self.nan == "value" else self.nan),
            ("+inf", f"put({x}, np.inf, {self.top})", ordered),
            ("-inf", f"put({x}, -np.inf, {self.bottom})", ordered),
            ("1e308", f"put({x}, 1e308, {self.top})", ordered),
            ("-1e308", f"put({x}, -1e308, {self.bottom})", ordered),
            ("x1e307", f"np.asarray({x}) * 1e307", ordered),
            ("x1e-310", f"np.asarray({x}) * 1e-310", ordered),
            ("float32", f"np.asarray({x}, np.float32)", same),
            ("float16", f"np.asarray({x}, np.float16)", same),
            ("swapped", f"swapped(np.asarray({x}, float))", same),
            ("strided", f"strided({x})", same),
            ("readonly", f"readonly({x})", same),
            ("int64", f"(np.asarray({x}) * 16).astype(np.int64)", ordered),
            ("uint64", f"(np.asarray({x}) * 16).astype(np.uint64)", ordered),
            ("uint64>2**63", f"put(np.asarray({x}) * 16, 2**63 + 2**11, {self.top}, np.uint64)", ctx.ve()),
            # Lists of Python ints: NumPy makes float64 of one around 2**63 (2**63 + 1 would tie with
            # 2**63), objects of one beyond 64 bits; numbers out of range either way.
            ("list>2**63", _int_list(x, "2**63 + 1", self.top), ctx.ve()),
            ("list-2**64", _int_list(x, "2**64", self.top), ctx.ve()),
            ("int64=2**60", f"put(np.asarray({x}) * 16, 2**60, {self.top}, np.int64)", ctx.ve()),
            ("bool", f"np.asarray({x}) > 0.3", ok),
            ("longdouble", f"np.asarray({x}, np.longdouble)", ctx.te() if WIDE_LONGDOUBLE else same),
            ("complex", f"np.asarray({x}, complex)", ctx.te()),
            ("datetime64", f"np.zeros(np.shape({x}), 'datetime64[s]')", ctx.te()),
            ("timedelta64", f"np.zeros(np.shape({x}), 'timedelta64[s]')", ctx.te()),
            ("object", f"np.asarray({x}, object)", ctx.te()),
            ("str", f"np.asarray({x}).astype(str)", ctx.te()),
            ("bytes", f"np.asarray({x}).astype('S8')", ctx.te()),
            ("None-inside", f"put({x}, None, 1, object)", ctx.te()),
            ("3-D", f"np.asarray({x})[..., None]", ctx.ve()),
            ("short", f"np.asarray({x})[..., :-1]", mismatch),
            ("None", "None", self.none or ctx.te()),
            ("str-scalar", "'0.5'", ctx.te()),
            ("bytes-scalar", "b'0.5'", ctx.te()),
            ("dict", "{}", ctx.te()),
        ]
        if self.scalar == "value":
            rows.append(("scalar", "0.5", mismatch))
        if self.two_d:
            rows.append(("fortran", f"np.asfortranarray({x})", same))
            if self.ragged:
                names = (ctx.name, "indptr") if self.ragged == "indptr" else (ctx.name,)
                rows.append(("ragged", f"ragged({x})", VE(*names)))
        return rows


class Labels(Kind):
    """Relevance labels: finite numbers >= 0 (bool, integers, floats); ``bounded``: a check of huge-label results."""

    def __init__(self, bounded="finite(result)", top=2, two_d=True, **kw):
        super().__init__(**kw)
        self.bounded, self.top, self.two_d = bounded, top, two_d

    def rows(self, ctx):
        x, same = ctx.base, ctx.same()
        bounded = Ok(self.bounded)
        rows = [
            ("-1", f"put({x}, -1)", ctx.ve()), ("nan", f"put({x}, np.nan)", ctx.ve()),
            ("+inf", f"put({x}, np.inf)", ctx.ve()), ("-inf", f"put({x}, -np.inf)", ctx.ve()),
            ("int8=-1", f"put({x}, -1, 0, np.int8)", ctx.ve()),
            ("-0.0", f"put({x}, -0.0)", same),
            ("0.5", f"put({x}, 0.5)", bounded),
            ("1e308", f"put({x}, 1e308, {self.top})", either(bounded, ctx.ve())),
            ("2**62", f"put({x}, 2**62, {self.top}, np.int64)", either(bounded, ctx.ve())),
            ("uint64", f"np.asarray({x}, np.uint64)", same),
            ("uint64=2**63", f"put({x}, 2**63, {self.top}, np.uint64)", either(bounded, ctx.ve())),
            ("uint64=2**64-1", f"put({x}, 2**64 - 1, {self.top}, np.uint64)", either(bounded, ctx.ve())),
            # Lists of Python ints around 2**63 (NumPy: float64) or beyond 64 bits (NumPy: objects).
            ("list>2**63", _int_list(x, "2**63 + 1", self.top), either(bounded, ctx.ve())),
            ("list-2**64", _int_list(x, "2**64", self.top), ctx.ve()),
            ("int8", f"np.asarray({x}, np.int8)", same), ("uint16", f"np.asarray({x}, np.uint16)", same),
            ("uint32", f"np.asarray({x}, np.uint32)", same), ("float16", f"np.asarray({x}, np.float16)", same),
            ("float32", f"np.asarray({x}, np.float32)", same),
            ("swapped", f"swapped(np.asarray({x}, np.int64))", same), ("strided", f"strided({x})", same),
            ("readonly", f"readonly({x})", same), ("bool", f"np.asarray({x}) > 0", Ok()),
            ("longdouble", f"np.asarray({x}, np.longdouble)", ctx.te() if WIDE_LONGDOUBLE else same),
            ("complex", f"np.asarray({x}, complex)", ctx.te()),
            ("datetime64", f"np.zeros(np.shape({x}), 'datetime64[s]')", ctx.te()),
            ("object", f"np.asarray({x}, object)", ctx.te()), ("str", f"np.asarray({x}).astype(str)", ctx.te()),
            ("bytes", f"np.asarray({x}).astype('S8')", ctx.te()),
            ("3-D", f"np.asarray({x})[..., None]", ctx.ve()), ("short", f"np.asarray({x})[..., :-1]", ctx.ve()),
            ("scalar", "1", ctx.ve()), ("empty", "[]", ctx.ve()),
            ("None", "None", ctx.te()), ("str-scalar", "'1'", ctx.te()), ("dict", "{}", ctx.te()),
        ]
        if self.two_d:
            rows.append(("ragged", f"ragged({x})", VE(ctx.name, "indptr")))
        return rows


class Offsets(Kind):
    """CSR offsets: 1-D integers from 0, non-decreasing, ending at the number of items."""

    def __init__(self, n=6, empty_query=True, **kw):
        super().__init__(**kw)
        self.n = n
        if not empty_query:  # one query more than the true answers: not a valid case there
            self.drop.add("empty-query")

    def rows(self, ctx):
        x, same, n = ctx.base, ctx.same(), self.n
        return [
            ("uint64", f"np.asarray({x}, np.uint64)", same), ("int32", f"np.asarray({x}, np.int32)", same),
            ("int8", f"np.asarray({x}, np.int8)", same), ("swapped", f"swapped(np.asarray({x}, np.int64))", same),
            ("object", f"np.asarray({x}, object)", either(same, ctx.te())),
            ("past-end", f"[0, 3, {n + 1}]", ctx.ve()), ("not-from-0", f"[1, 3, {n}]", ctx.ve()),
            ("decreasing", f"[0, 4, 3, {n}]", ctx.ve()), ("negative", f"[0, -3, {n}]", ctx.ve()),
            # Python ints beyond int64 (NumPy makes floats or objects of them): out of range, not a wrong type.
            ("2**63", f"[0, 2**63, {n}]", ctx.ve()), ("2**64", f"[0, 2**64, {n}]", ctx.ve()),
            ("uint64-max", f"np.array([0, 2**64 - 1, {n}], np.uint64)", ctx.ve()),
            ("int64-min", f"[0, -2**63, {n}]", ctx.ve()),
            ("float", f"[0.0, 3.0, {n}.0]", ctx.te()), ("bool", "[False, True, True]", ctx.te()),
            ("str", f"['0', '3', '{n}']", ctx.te()), ("empty", "[]", either(ctx.te(), ctx.ve())), ("only-0", "[0]", ctx.ve()),
            ("2-D", f"[[0, 3, {n}]]", ctx.ve()), ("scalar", f"{n}", ctx.ve()),
            ("empty-query", f"[0, 3, 3, {n}]", Ok()), ("dict", "{}", either(ctx.te(), ctx.ve())),
        ]


class Ids(Kind):
    """Per-row query ids of evaluate(): any comparable values, one per row."""

    def rows(self, ctx):
        x, same = ctx.base, ctx.same()
        return [
            ("bytes", f"np.array({x}, 'S')", Ok()), ("object", f"np.array({x}, object)", same),
            ("ints", "[1, 1, 1, 2, 2, 2]", Ok()), ("floats", "[1.0, 1.0, 1.0, 2.5, 2.5, 2.5]", Ok()),
            ("uint64-big", "np.array([2**64 - 1] * 3 + [2**63] * 3, np.uint64)",
             Ok("assert result.query_ids.tolist() == [2**63, 2**64 - 1]" if ctx.target.id.startswith("evaluate")
                else "")),
            # Python ints around 2**63 (NumPy: float64, where they would be one query) and beyond 64 bits.
            ("list>2**63", "[2**63 + 1] * 3 + [2**63] * 3", Ok(
                "assert result.query_ids.tolist() == [2**63, 2**63 + 1]" if ctx.target.id.startswith("evaluate")
                else f"same(result, {ctx.call_with('Q1')})")),
            ("list>2**64", "[2**64 + 1] * 3 + [-1] * 3", Ok(
                "assert result.query_ids.tolist() == [-1, 2**64 + 1]" if ctx.target.id.startswith("evaluate")
                else f"same(result, {ctx.call_with('Q1[::-1]')})")),
            ("nan", "[1.0, 1.0, 1.0, np.nan, np.nan, np.nan]", ctx.ve()),
            ("infinite", "[np.inf] * 3 + [-np.inf] * 3", Ok()),
            ("mixed", "np.array([1, 'a', 1, 2, 2, 2], object)", ctx.te()),
            ("None-ids", "[None] * 6", ctx.te()),
            ("short", f"{x}[:5]", ctx.ve()), ("2-D", f"[{x}]", ctx.ve()), ("scalar", "'aaabbb'", ctx.ve()),
            ("dict", "{}", either(ctx.te(), ctx.ve())),
        ]


class DocIds(Kind):
    """Document ids for ties='trec': one per score, unique within a query."""

    def rows(self, ctx):
        x, same = ctx.base, ctx.same()
        return [
            ("bytes", f"np.array({x}, 'S')", same), ("ints", "[[1, 2, 3], [1, 2, 3]]", same),
            # Python ints around 2**63 or beyond 64 bits: distinct ids, ordered as their text.
            ("ints>2**63", "[[0, 2**63 + 1, 2**63], [1, 2, 3]]",
             ctx.same("[['0', '9223372036854775809', '9223372036854775808'], ['1', '2', '3']]")),
            ("ints>2**64", "[[-1, 2**64 + 1, 2**64], [1, 2, 3]]",
             ctx.same("[['-1', '18446744073709551617', '18446744073709551616'], ['1', '2', '3']]")),
            ("bad-utf8", "np.array([[b'\\xff', b'd2', b'd3'], [b'd1', b'd2', b'd3']])",
             either(Ok(), ctx.ve(), ctx.te())),
            ("duplicate", f"[['d1', 'd1', 'd3'], {x}[1]]", ctx.ve()),
            ("short", "[['d1', 'd2'], ['d1', 'd2']]", ctx.ve()),
            ("None", "None", ctx.ve()),
        ]


class Mask(Kind):
    """A boolean mask of the candidates' shape (True = not a candidate)."""

    def __init__(self, shape="(2, 3)", **kw):
        super().__init__(**kw)
        self.shape = shape

    def rows(self, ctx):
        s = self.shape
        same = ctx.same("None")
        return [
            ("zeros", f"np.zeros({s}, bool)", same), ("list", f"np.zeros({s}, bool).tolist()", same),
            ("strided", f"strided(np.zeros({s}, bool))", same),
            ("all-masked", f"np.ones({s}, bool)", Ok()),
            ("int", f"np.zeros({s}, int)", ctx.te()), ("float", f"np.zeros({s})", ctx.te()),
            ("object", f"np.zeros({s}, object)", ctx.te()), ("str", f"np.zeros({s}, str)", ctx.te()),
            ("wrong-shape", "np.zeros((2, 2), bool)", ctx.ve()), ("3-D", f"np.zeros({s} + (1,), bool)", ctx.ve()),
            ("scalar", "True", ctx.ve()), ("dict", "{}", either(ctx.te(), ctx.ve())),
        ]


# The most candidates a query can have, so the largest count or rank: every rank, the
# tie-averaged one included, is then exact in float64 (greater + equal + 1 <= n_candidates <= 2**52).
MAX_COUNT = 2**52


class Counts(Kind):
    """Whole numbers from ``minimum`` to ``maximum`` per query (Ranks' counts and ranks).

    ``maximum``: the largest value the first query's entry can take with the base's other
    arguments (``greater + equal + 1 <= n_candidates <= 2**52``); ``at_max``: the check of
    the result with that value, ``{v}`` standing for it. Every value above is a ValueError
    naming the argument, whatever its dtype.
    """

    def __init__(self, minimum=0, maximum=MAX_COUNT, at_max="", **kw):
        super().__init__(**kw)
        self.minimum, self.maximum, self.at_max = minimum, maximum, at_max

    def rows(self, ctx):
        x, same, name = ctx.base, ctx.same(), ctx.name
        rows = [
            ("uint64", f"np.asarray({x}, np.uint64)", same), ("int32", f"np.asarray({x}, np.int32)", same),
            ("float-whole", f"np.asarray({x}, float)", same), ("float16", f"np.asarray({x}, np.float16)", same),
            ("swapped", f"swapped(np.asarray({x}, np.int64))", same), ("readonly", f"readonly({x})", same),
            ("2**63", f"put({x}, 2**63, 0, object)", either(ctx.te(), ctx.ve())),
            ("list-2**63", f"[2**63] + list({x})[1:]", ctx.ve()),
            ("list-2**64", f"[2**64] + list({x})[1:]", ctx.ve()),
            ("uint64=2**63", f"put({x}, 2**63, 0, np.uint64)", ctx.ve()),
            ("uint64-max", f"put({x}, 2**64 - 1, 0, np.uint64)", ctx.ve()),
            ("1e300", f"put({x}, 1e300)", ctx.ve()), ("2.0**63", f"put({x}, 2.0**63)", ctx.ve()),
            ("nan", f"put({x}, np.nan)", ctx.ve()), ("inf", f"put({x}, np.inf)", ctx.ve()),
            ("0.5", f"put({x}, 0.5)", ctx.ve()), ("below", f"put({x}, {self.minimum - 1}, 0, np.int64)", ctx.ve()),
            ("int64-min", f"put({x}, -2**63, 0, np.int64)", ctx.ve()),
            ("bool", f"np.asarray({x}) > 0", ctx.te()), ("str", f"np.asarray({x}).astype(str)", ctx.te()),
            ("object", f"np.asarray({x}, object)", ctx.te()), ("complex", f"np.asarray({x}, complex)", ctx.te()),
            ("datetime64", f"np.zeros(np.shape({x}), 'datetime64[s]')", ctx.te()),
            ("2-D", f"[{x}]", ctx.ve()), ("ragged", "[[1, 2], [3]]", ctx.ve()),
            ("str-scalar", "'1'", ctx.te()), ("dict", "{}", either(ctx.te(), ctx.ve())),
        ]
        top, at_max = self.maximum, Ok(self.at_max.format(v=self.maximum))
        rows += [("max", f"put({x}, {top}, 0, np.int64)", at_max), ("uint64=max", f"put({x}, {top}, 0, np.uint64)", at_max),
                 ("float=max", f"put({x}, float({top}))", at_max)]
        rows += [(label, f"put({x}, {value}, 0, {dtype})", VE(name)) for label, value, dtype in (
            ("max+1", top + 1, "np.int64"), ("uint64=max+1", top + 1, "np.uint64"), ("float=max+1", top + 1, "float"),
            ("2**53+2", 2**53 + 2, "np.int64"), ("2**62", 2**62, "np.int64"), ("2**63-1", 2**63 - 1, "np.int64"),
            ("uint64=2**62", 2**62, "np.uint64"))]
        return rows


class Values(Kind):
    """Per-query values of one system (compare, mann_whitney): finite numbers, 1-D."""

    def __init__(self, paired=True, **kw):
        super().__init__(**kw)
        self.paired = paired

    def rows(self, ctx):
        x, same = ctx.base, ctx.same()
        # Values near 1e307 whose sum overflows: a correct result, or a clear refusal.
        plausible = either(Ok("assert 0 < result.pvalue <= 1; finite(result.statistic)"
                              + ("; finite(result.mean_difference)" if self.paired else "")), ctx.ve())
        rows = [
            ("nan", f"put({x}, np.nan)", ctx.ve()), ("inf", f"put({x}, np.inf)", ctx.ve()),
            ("-inf", f"put({x}, -np.inf)", ctx.ve()),
            ("x1e307", f"np.asarray({x}) * 1e307", plausible),
            ("x1e-300", f"np.asarray({x}) * 1e-300", Ok("assert 0 < result.pvalue <= 1")),
            ("float32", f"np.asarray({x}, np.float32)", Ok()), ("float16", f"np.asarray({x}, np.float16)", Ok()),
            ("swapped", f"swapped(np.asarray({x}, float))", same), ("strided", f"strided({x})", same),
            ("readonly", f"readonly({x})", same), ("int", f"(np.asarray({x}) * 1000).astype(np.int64)", Ok()),
            ("uint64", f"(np.asarray({x}) * 1000).astype(np.uint64)", Ok()),
            # Integers that float64 (where the tests compute) would round, or that no 64-bit type holds.
            ("int64>2**53", f"put((np.asarray({x}) * 1000).astype(np.int64), 2**53 + 1, 0, np.int64)", ctx.ve()),
            ("list>2**63", _int_list(x, "2**63 + 1", 0), ctx.ve()), ("list-2**64", _int_list(x, "2**64", 0), ctx.ve()),
            ("longdouble", f"np.asarray({x}, np.longdouble)", either(same, ctx.te())),
            ("complex", f"np.asarray({x}, complex)", ctx.te()), ("object", f"np.asarray({x}, object)", ctx.te()),
            ("str", f"np.asarray({x}).astype(str)", ctx.te()), ("bytes", f"np.asarray({x}).astype('S8')", ctx.te()),
            ("datetime64", f"np.zeros(np.shape({x}), 'datetime64[s]')", ctx.te()),
            ("2-D", f"np.asarray({x}).reshape(7, 10)", ctx.ve()), ("scalar", "0.5", ctx.ve()),
            ("ragged", "[[0.1, 0.2], [0.3]]", ctx.ve()), ("None", "None", ctx.te()),
            ("str-scalar", "'0.5'", ctx.te()),
        ]
        if self.paired:
            rows += [("short", f"np.asarray({x})[:5]", ctx.ve()), ("empty", "[]", ctx.ve())]
        else:
            rows += [("one", f"np.asarray({x})[:1]", Ok()), ("empty", "[]", ctx.ve())]
        return rows


class Names(Kind):
    """A name or a list of names of metrics (``word``, or the argument's own name, appears in every
    message about them: compare_systems' ``metrics`` takes trec_eval measures for Runs)."""

    def __init__(self, valid, word="metric", bad=(), good=(), **kw):
        super().__init__(**kw)
        self.valid, self.word = valid, word
        self.bad = list(bad)     # names that are ValueErrors naming themselves
        self.good = list(good)   # (label, src, check)

    def rows(self, ctx):
        v, w = self.valid, tuple(dict.fromkeys((self.word, self.word + "s", ctx.name)))
        rows = [
            ("int", "5", TE(w)), ("None", "None", TE(w)), ("bytes", f"b{v!r}", TE(w)),
            ("list-int", "[5]", TE(w)), ("list-None", "[None]", TE(w)), ("list-bytes", f"[b{v!r}]", TE(w)),
            ("empty-list", "[]", VE(w)), ("empty-name", "['']", VE(w)), ("dict", "{}", either(TE(w), VE(w))),
            ("np.array", f"np.array([{v!r}])", ctx.same(f"[{v!r}]")), ("tuple", f"({v!r},)", ctx.same(f"[{v!r}]")),
            ("np.str_", f"[np.str_({v!r})]", ctx.same(f"[{v!r}]")),
        ]
        rows += [(name, repr([name]), VE((name, name.encode("unicode_escape").decode()))) for name in self.bad]
        rows += [(label, src, Ok(check)) for label, src, check in self.good]
        return rows


class Path(Kind):
    """A file to read: str, bytes or os.PathLike; errors name the file."""

    def __init__(self, kind="run", **kw):
        super().__init__(**kw)
        self.kind = kind

    def rows(self, ctx):
        x = ctx.base
        read = Ok(f"same(result.to_dict(), {ctx.call_with(x)}.to_dict())")
        path_named = (ctx.name, "path")
        rows = [
            ("missing", "MISSING_PATH", Raises(FileNotFoundError, ("missing.run",))),
            ("directory", "DIR_PATH", either(Raises(IsADirectoryError, ()), Raises(PermissionError, ()),
                                             VE(("rankwise-hostile",)))),
            ("empty-file", "EMPTY_PATH", VE("empty.run")), ("binary", "BINARY_PATH", VE("binary.run")),
            ("corrupt-gz", "CORRUPT_GZ_PATH", VE("corrupt.run.gz")),
            ("truncated-gz", "TRUNCATED_GZ_PATH", VE("truncated.run.gz")),
            ("garbage-gz", "GARBAGE_GZ_PATH", VE("garbage.run.gz")),
            ("latin-1", "LATIN1_PATH", VE("latin1.run")),
            ("bytes", f"os.fsencode({x})", read), ("pathlib", f"pathlib.Path({x})", read),
            ("None", "None", TE(path_named)), ("int", "5", TE(path_named)), ("list", f"[{x}]", TE(path_named)),
            ("empty-str", "''", Raises(FileNotFoundError, ())),
            ("nul", "'a\\0b'", VE(path_named + ("null",))),
            ("file-object", f"io.BytesIO(pathlib.Path({x}).read_bytes())", either(read, TE(path_named))),
        ]
        if self.kind == "run":
            rows.append(("gz", "RUN_GZ_PATH", Ok(f"same(result.to_dict(), {ctx.call_with(x)}.to_dict())")))
        return rows


class OutPath(Kind):
    """A file to write."""

    def __init__(self, reader, **kw):
        super().__init__(**kw)
        self.reader = reader

    def rows(self, ctx):
        obj = ctx.target.template.split(".write")[0]
        named = (ctx.name, "path")

        def round_trip(path_src):
            return Ok(f"same({self.reader}({path_src}).to_dict(), {obj}.to_dict())")

        return [
            ("plain", "tmp_path('out.txt')", round_trip("tmp_path('out.txt')")),
            ("gz", "tmp_path('out.gz')", round_trip("tmp_path('out.gz')")),
            ("bytes", "os.fsencode(tmp_path('out-bytes.txt'))", round_trip("tmp_path('out-bytes.txt')")),
            ("pathlib", "pathlib.Path(tmp_path('out-path.txt'))", round_trip("tmp_path('out-path.txt')")),
            ("no-dir", "NO_DIR_PATH", Raises(FileNotFoundError, ("no",))),
            ("directory", "DIR_PATH", either(Raises(IsADirectoryError, ()), Raises(PermissionError, ()))),
            ("None", "None", TE(named)), ("int", "5", TE(named)), ("empty-str", "''", Raises(FileNotFoundError, ())),
            ("nul", "'a\\0b'", VE(named + ("null",))),
        ]


class Mapping(Kind):
    """``{query_id: {doc_id: value}}`` (``what``: Qrels or Run)."""

    def __init__(self, what, **kw):
        super().__init__(**kw)
        self.what = what

    def rows(self, ctx):
        # from_dict takes one argument: naming the method names it as well.
        name = (ctx.name, f"{self.what}.from_dict")
        finite_only = self.what == "Qrels"
        ids_ok = "assert result.to_dict() == {'q1': {'d1': 1.0}}, result.to_dict()"
        return [
            ("empty", "{}", Ok()), ("empty-query", "{'q1': {}}", Ok()),
            ("None", "None", TE(name)), ("list", "[]", TE(name)), ("str", "'q1'", TE(name)),
            ("inner-int", "{'q1': 5}", TE(name)), ("inner-list", "{'q1': ['d1']}", TE(name)),
            ("value-str", "{'q1': {'d1': 'x'}}", TE(name)), ("value-numeric-str", "{'q1': {'d1': '1'}}", TE(name)),
            ("value-None", "{'q1': {'d1': None}}", TE(name)), ("value-complex", "{'q1': {'d1': 1j}}", TE(name)),
            ("value-nan", "{'q1': {'d1': float('nan')}}", VE("q1")),
            ("value-inf", "{'q1': {'d1': float('inf')}}", VE("q1") if finite_only else Ok()),
            ("value-1e308", "{'q1': {'d1': 1e308}}", Ok()), ("value-2**64", "{'q1': {'d1': 2**64}}", Ok()),
            ("value-10**400", "{'q1': {'d1': 10**400}}", VE("q1")),
            ("value-bool", "{'q1': {'d1': True}}", Ok()),
            ("value-np", "{'q1': {'d1': np.float32(0.5)}}", Ok()),
            ("ids-int", "{1: {2: 1}}", Ok("assert list(result.query_ids) == ['1']")),
            ("ids-bytes", "{b'q1': {b'd1': 1}}", either(Ok(ids_ok), TE(name))),
            ("ids-bad-utf8", "{b'\\xff': {'d1': 1}}", either(VE(name), TE(name))),
            ("ids-space", "{'q 1': {'d1': 1}}", either(Ok(), VE("q 1"))),
            ("ids-empty", "{'': {'d1': 1}}", either(Ok(), VE(name))),
        ]


class IdArray(Kind):
    """query_ids / doc_ids of from_arrays: 1-D integers or strings, one per row."""

    def rows(self, ctx):
        x = ctx.base
        decoded = Ok("d = result.to_dict(); assert all(isinstance(q, str) and not q.startswith(\"b'\") for q in d) and "
                      "all(not doc.startswith(\"b'\") for docs in d.values() for doc in docs), d")
        return [
            ("object", f"np.array({x}, object)", ctx.same()), ("list", f"list({x})", ctx.same()),
            ("bytes", f"np.array({x}, 'S')", either(decoded, ctx.te())),
            ("bytes-object", f"np.array([s.encode() for s in {x}], object)", either(decoded, ctx.te())),
            ("bad-utf8", f"np.array([b'\\xff'] + [s.encode() for s in {x}[1:]])", either(ctx.ve(), ctx.te())),
            ("ints", "np.array([1, 1, 2])", Ok()), ("uint64", "np.array([1, 1, 2], np.uint64)", Ok()),
            ("uint64-big", "np.array([2**63, 2**63, 1], np.uint64)", ctx.ve()),
            ("floats", "np.array([1.0, 1.0, 2.0])", ctx.te()), ("bool", "np.array([True, True, False])", ctx.te()),
            ("None-inside", f"np.array([None] + list({x})[1:], object)", ctx.te()),
            ("nan-inside", f"np.array([float('nan')] + list({x})[1:], object)", either(ctx.te(), ctx.ve())),
            ("complex", "np.array([1j, 1j, 2j])", ctx.te()),
            ("short", f"np.array({x})[:2]", ctx.ve()), ("empty", "np.array([], str)", ctx.ve()),
            ("2-D", f"np.array([{x}])", ctx.ve()), ("scalar", "'q1'", ctx.ve()), ("None", "None", ctx.te()),
            ("with-space", f"np.array(['q 1'] + list({x})[1:])", either(Ok(), VE("q 1"))),
        ]


class ValueArray(Kind):
    """relevance / scores of from_arrays: 1-D numbers, one per row."""

    def __init__(self, finite_only, **kw):
        super().__init__(**kw)
        self.finite_only = finite_only

    def rows(self, ctx):
        x, same = ctx.base, ctx.same()
        # The readers' messages name the row ("value for query 'q1', document 'd1'"): as good as the argument.
        bad = VE((ctx.name, "value for query"))
        return [
            ("nan", f"put({x}, np.nan)", bad),
            ("inf", f"put({x}, np.inf)", bad if self.finite_only else Ok()),
            ("uint64", f"(np.asarray({x}) * 4).astype(np.uint64)", Ok()),
            ("uint64-max", f"put({x}, 2**64 - 1, 0, np.uint64)", Ok()),
            ("float16", f"np.asarray({x}, np.float16)", same), ("bool", f"np.asarray({x}) > 0", Ok()),
            ("swapped", f"swapped(np.asarray({x}, float))", same), ("strided", f"strided({x})", same),
            ("longdouble", f"np.asarray({x}, np.longdouble)", either(same, ctx.te())),
            ("complex", f"np.asarray({x}, complex)", ctx.te()), ("object", f"np.asarray({x}, object)", ctx.te()),
            ("str", f"np.asarray({x}).astype(str)", ctx.te()), ("bytes", f"np.asarray({x}).astype('S8')", ctx.te()),
            ("datetime64", "np.zeros(3, 'datetime64[s]')", ctx.te()),
            ("2-D", f"[{x}]", ctx.ve()), ("short", f"np.asarray({x})[:2]", ctx.ve()), ("scalar", "1.0", ctx.ve()),
            ("None", "None", ctx.te()),
        ]


class Index(Kind):
    """An index into a sequence of queries (Ranks[...]): ints, slices, integer arrays, boolean masks."""

    def rows(self, ctx):
        n = 3
        return [
            ("0", "0", Ok("assert result.greater.tolist() == [0]")), ("-1", "-1", Ok("assert len(result) == 1")),
            ("np.uint64", "np.uint64(1)", ctx.same("1")), ("list", "[0, 0]", Ok("assert len(result) == 2")),
            ("mask", "[True, False, True]", Ok("assert len(result) == 2")),
            ("slice", "slice(None, None, -1)", Ok("assert len(result) == 3")),
            ("slice-huge", "slice(0, 2**63)", Ok("assert len(result) == 3")),
            ("slice-huger", "slice(-2**64, 2**64)", Ok("assert len(result) == 3")),
            ("empty-list", "[]", Ok("assert len(result) == 0")),
            ("past-end", f"{n}", Raises(IndexError, ())), ("before-start", f"{-n - 1}", Raises(IndexError, ())),
            ("2**63", "2**63", Raises(IndexError, ())), ("2**64", "2**64", Raises(IndexError, ())),
            ("uint64-max", "np.uint64(2**64 - 1)", Raises(IndexError, ())),
            ("array-past-end", "np.array([0, 3])", Raises(IndexError, ())),
            # As NumPy's: IndexError, naming the mask's length and the number of queries.
            ("short-mask", "[True, False]", Raises(IndexError, ("2", "3"))),
            ("long-mask", "[True, False, True, False]", Raises(IndexError, ("4", "3"))),
            ("2-D-mask", "[[True, False, True]]", Raises(IndexError, ("3",))),
            ("step-0", "slice(None, None, 0)", Raises(ValueError, ())),
            # Python's sequences raise TypeError for a wrong index type, NumPy IndexError: either.
            ("float", "1.5", either(TE(), Raises(IndexError, ()))),
            ("str", "'a'", either(TE(), Raises(IndexError, ()))),
            ("None", "None", TE()), ("bytes", "b'a'", either(TE(), Raises(IndexError, ()))),
            ("float-array", "np.array([0.0, 1.0])", either(TE(), Raises(IndexError, ()))),
        ]


class Start(Kind):
    """RankBuilder.update's start: the column of the chunk's first candidate, an int >= 0 or one per query."""

    def rows(self, ctx):
        same = ctx.same("3")
        return [
            ("np.int64", "np.int64(3)", same), ("np.uint64", "np.uint64(3)", same), ("per-query", "[3, 3]", same),
            ("per-query-uint64", "np.array([3, 3], np.uint64)", same),
            # The chunk (3 columns) ends at column 2**52 at most; the true answers (0 and 4) are outside it.
            ("2**52-3", "2**52 - 3", Ok("same(result, rw.RankBuilder(POS).update(NEG))")),
            ("2**52-2", "2**52 - 2", ctx.ve()), ("2**62", "2**62", ctx.ve()), ("2**63-1", "2**63 - 1", ctx.ve()),
            ("1.9", "1.9", ctx.te()), ("3.0", "3.0", ctx.te()), ("np.float64", "np.float64(3)", ctx.te()),
            ("nan", "float('nan')", ctx.te()), ("inf", "float('inf')", ctx.te()),
            ("-5", "-5", ctx.ve()), ("-1", "-1", ctx.ve()), ("2**63", "2**63", ctx.ve()), ("2**64", "2**64", ctx.ve()),
            ("uint64-max", "np.uint64(2**64 - 1)", ctx.ve()), ("per-query-float", "[1.9, 0]", ctx.te()),
            ("per-query-negative", "[0, -1]", ctx.ve()), ("per-query-long", "[0, 3, 6]", ctx.ve()),
            ("per-query-2**64", "[0, 2**64]", ctx.ve()),
            ("str", "'3'", ctx.te()), ("bytes", "b'3'", ctx.te()), ("True", "True", ctx.te()), ("dict", "{}", ctx.te()),
            ("None", "None", ctx.ve()),
        ]


class TrueIndex(Kind):
    """The true answer's column per query."""

    def __init__(self, width=4, **kw):
        super().__init__(**kw)
        self.width = width

    def rows(self, ctx):
        same = ctx.same()
        return [
            ("uint64", "np.array([0, 1], np.uint64)", same), ("int8", "np.array([0, 1], np.int8)", same),
            ("past-end", f"[0, {self.width}]", ctx.ve()), ("negative", "[0, -1]", ctx.ve()),
            ("2**63", "[0, 2**63]", ctx.ve()), ("2**64", "[0, 2**64]", ctx.ve()),
            ("uint64-max", "np.array([0, 2**64 - 1], np.uint64)", ctx.ve()),
            ("float", "[0.0, 1.0]", ctx.te()), ("bool", "[True, False]", ctx.te()), ("str", "['0', '1']", ctx.te()),
            ("object", "np.array([0, 1], object)", either(same, ctx.te())),
            ("2-D", "[[0, 1]]", ctx.ve()), ("short", "[0]", ctx.ve()), ("long", "[0, 1, 2]", ctx.ve()),
            ("dict", "{}", either(ctx.te(), ctx.ve())),
        ]


class Weights(Kind):
    """rank_metrics' per-query weights: finite, >= 0, not all 0."""

    def rows(self, ctx):
        equal = ctx.same("[1, 1, 1]")
        close = Ok(f"close(result, {ctx.call_with('[1, 1, 1]')})")
        return [
            ("ones", "[1, 1, 1]", ctx.same("None")), ("uint64", "np.array([1, 1, 1], np.uint64)", equal),
            ("float16", "np.array([1, 1, 1], np.float16)", equal), ("bool", "[True, True, True]", equal),
            ("1e308", "[1e308, 1e308, 1e308]", close), ("1e-300", "[1e-300, 1e-300, 1e-300]", close),
            ("2**64", "[2**64, 2**64, 2**64]", close),
            ("10**400", "[10**400, 1, 1]", ctx.ve()), ("uint64-max", "np.full(3, 2**64 - 1, np.uint64)", close),
            ("nan", "[np.nan, 1, 1]", ctx.ve()), ("inf", "[np.inf, 1, 1]", ctx.ve()), ("negative", "[-1, 1, 1]", ctx.ve()),
            ("zeros", "[0, 0, 0]", ctx.ve()), ("short", "[1, 1]", ctx.ve()), ("2-D", "[[1, 1, 1]]", ctx.ve()),
            ("scalar", "1", ctx.ve()), ("str", "['1', '1', '1']", ctx.te()),
            ("object", "np.array([1, 1, 1], object)", either(equal, ctx.te())),
            ("complex", "np.array([1, 1, 1], complex)", ctx.te()), ("None-inside", "[None, 1, 1]", ctx.te()),
            ("longdouble", "np.ones(3, np.longdouble)", equal), ("dict", "{}", either(ctx.te(), ctx.ve())),
        ]


class PValues(Kind):
    """correct()'s p-values: numbers in [0, 1], any shape."""

    def rows(self, ctx):
        named = ctx.name
        bounded = Ok("assert ((result >= 0) & (result <= 1)).all()")
        return [
            ("empty", "[]", Ok("assert result.shape == (0,)")), ("2-D", "[[0.01, 0.04], [0.03, 0.5]]", bounded),
            ("0-and-1", "[0, 1]", bounded), ("subnormal", "[1e-320, 5e-324]", bounded),
            ("float16", "np.array([0.01, 0.04], np.float16)", bounded), ("longdouble", "np.array([0.01], np.longdouble)", bounded),
            ("uint64", "np.array([0, 1], np.uint64)", bounded),
            ("nan", "[0.01, np.nan]", VE(named)), ("inf", "[0.01, np.inf]", VE(named)),
            ("negative", "[-0.1]", VE(named)), ("above-1", "[1.5]", VE(named)), ("huge", "[1e308]", VE(named)),
            ("2**70", "[0.01, 2**70]", VE(named)), ("10**400", "[0.01, 10**400]", VE(named)),
            ("None", "None", TE(named)), ("str", "'0.5'", TE(named)), ("str-list", "['0.01', '0.04']", TE(named)),
            ("bytes", "b'0.5'", TE(named)), ("None-inside", "[0.01, None]", TE(named)),
            ("complex", "[0.5j]", TE(named)), ("datetime64", "np.zeros(2, 'datetime64[s]')", TE(named)),
            ("dict", "{}", TE(named)), ("ragged", "[[0.1, 0.2], [0.3]]", either(VE(named), TE(named))),
            ("scalar", "0.5", Ok()), ("object", "np.array([0.01, 0.04], object)", either(bounded, TE(named))),
        ]


class Objects(Kind):
    """An argument that must be one type of rankwise object (``also``: a text that names it as well)."""

    def __init__(self, wrong=(), also=None, **kw):
        super().__init__(**kw)
        self.wrong, self.also = list(wrong), also

    def rows(self, ctx):
        te = TE((ctx.name, self.also)) if self.also else ctx.te()
        return [(src, src, te) for src in ["None", "5", "'x'", "{}", "[]", *self.wrong]]


class Rows(Kind):
    """Value classes listed by hand for a parameter with a domain of its own (a callable gets the Ctx)."""

    def __init__(self, rows, **kw):
        super().__init__(**kw)
        self._rows = rows

    def rows(self, ctx):
        rows = self._rows(ctx) if callable(self._rows) else self._rows
        return [(label, src, expect(ctx) if callable(expect) else expect) for label, src, expect in rows]


# --------------------------------------------------------------------------------------
# The public API as targets
# --------------------------------------------------------------------------------------

EVAL_METRICS = "['MRR', 'MAP', 'nDCG', 'P@2', 'ERR', 'RBP(p=0.5)']"
_BINARY_ZERO = ("r = result.mean(); assert r['MRR'] == r['MAP'] == r['P@2'] == r['RBP(p=0.5)'] == 0.0, r")
# Metric names that are ValueErrors naming the name given.
BAD_METRICS = ["P@9223372036854775808", "nDCG@99999999999999999999", "P@0", "P@-1", "P@nan", "P@inf", "P@1e3",
               "P@1.5", "RBP(p=nan)", "RBP(p=inf)", "RBP(p=1e-400)", "RBP(p=-0.0)", "RBP(p=1)", "MRR\x00",
               "ERR@-9223372036854775808"]
GOOD_METRICS = [
    ("nDCG@2**62", "['nDCG@4611686018427387904']", "same(means(result), means(rw.evaluate(T, S, ['nDCG'])))"),
    ("ERR@2**63-1", "['ERR@9223372036854775807']", "same(means(result), means(rw.evaluate(T, S, ['ERR'])))"),
    ("P@2**62", "['P@4611686018427387904']",
     "close(means(result), [means(rw.evaluate(T, S, ['P@3']))[0] * 3 / 2**62])"),
    ("RBP-tiny-p", "['RBP(p=5e-324)']", "close(means(result), [0.5])"),
]


def _level_checks(zero: str) -> dict:
    """relevance_level candidates with a known result: labels are 0, 1 and 2."""
    return {"1e300": zero, "2**64": zero, "np.uint64(2**64 - 1)": zero, "5e-324": "same:1", "0.5": "same:1",
            "1 - 2**-53": "same:1", "1.0": "same:1", "1.5": "same:2", "1 + 2**-52": "same:2"}


def _list_options(binary_zero: str, core: bool = False) -> dict:
    """The options every list metric shares with evaluate() (``core``: a sample of their values)."""
    kinds = {
        "relevance_level": Real("1", checks=_level_checks(binary_zero)),
        "ties": Choice("expected"), "empty": Choice("zero", none="ok"), "nan": Choice("raise"), "n_threads": Threads(),
    }
    return {name: kind.core() if core else kind for name, kind in kinds.items()}


def _cutoff(kind: str) -> Kind:
    """k of a per-metric function: optional (huge = no cutoff), precision's (divides by k) or saturating."""
    huge = ["2**62", "2**63 - 1", "np.int64(2**63 - 1)", "np.uint64(2**63 - 1)"]
    if kind == "optional":
        return Int(none="ok", extra=[(h, h, lambda ctx: ctx.same("None")) for h in huge])
    if kind == "precision":
        return Int(extra=[(h, h, lambda ctx, h=h: Ok(f"close(result, {ctx.call_with('3')} * 3 / int({h}))"))
                          for h in huge])
    return Int(extra=[(h, h, lambda ctx: ctx.same("3")) for h in huge])


_METRIC_FUNCTIONS = [
    # name, k ("optional", "precision", "saturating" or None), binary, own parameters
    ("reciprocal_rank", "optional", True, {}),
    ("average_precision", "optional", True, {}),
    ("ndcg", "optional", False, {"gain": Choice("linear", none=lambda ctx: either(ctx.same("'linear'"), ctx.te()))}),
    ("dcg", "optional", False, {"gain": Choice("linear", none=lambda ctx: either(ctx.same("'linear'"), ctx.te()))}),
    ("precision", "precision", True, {}),
    ("recall", "saturating", True, {}),
    ("r_precision", None, True, {}),
    ("hit_rate", "saturating", True, {}),
    ("err", "optional", False, {"max_grade": Real("2", low=2, low_open=False, none="ok",
                                                  checks={c: "assert 0 <= result < 1e-300"
                                                          for c in ("1e300", "2**64", "np.uint64(2**64 - 1)")})}),
    ("rbp", "optional", True, {"p": Real("0.5", low=0, high=1, checks={"5e-324": "close(result, 0.5)"}),
                               "graded": Flag(),
                               # Binary RBP ignores max_grade once it is valid.
                               "max_grade": Real("2", low=2, low_open=False, none="ok",
                                                 checks={c: "same:2" for c in ("1e300", "2**64", "np.uint64(2**64 - 1)")})}),
]


def _layout_targets(prefix: str, template: str, extra_base: dict, core: bool = False) -> list:
    """The 1-D layouts of a list function: grouped by offsets, by ids, and trec's document ids."""
    def kind(k):
        return k.core() if core else k

    return [
        Target(f"{prefix}[indptr]", template, {"y_true": "T1", "y_score": "S1", **extra_base, "indptr": "IP1"},
               {"indptr": kind(Offsets(n=6)), "y_true": kind(Labels(two_d=False)),
                "y_score": kind(Scores(two_d=False))}),
        Target(f"{prefix}[qid]", template, {"y_true": "T1", "y_score": "S1", **extra_base, "qid": "Q1"},
               {"qid": kind(Ids())}),
        Target(f"{prefix}[trec]", template, {"y_true": "T", "y_score": "S", **extra_base, "ties": "'trec'",
                                             "doc_ids": "D2"}, {"doc_ids": DocIds()}),
    ]


def list_targets() -> list:
    targets = [Target("evaluate", "rw.evaluate({args})", {"y_true": "T", "y_score": "S", "metrics": EVAL_METRICS}, {
        "y_true": Labels(bounded="finite(means(result)); in_unit(result['nDCG'])"),
        "y_score": Scores(),
        "metrics": Names("MRR", bad=BAD_METRICS, good=GOOD_METRICS),
        "gain": Choice("linear"),
        "max_grade": Real("2", low=2, low_open=False, none="ok",
                          checks={c: "assert 0 <= result.mean()['ERR'] < 1e-300"
                                  for c in ("1e300", "2**64", "np.uint64(2**64 - 1)")}),
        **_list_options(_BINARY_ZERO),
    })]
    targets += _layout_targets("evaluate", "rw.evaluate({args})", {"metrics": EVAL_METRICS})
    for name, k, binary, own in _METRIC_FUNCTIONS:
        template = f"rw.{name}({{args}})"
        base = {"y_true": "T", "y_score": "S"}
        if k in ("precision", "saturating"):
            base["k"] = "2"
        params = {"y_true": Labels(bounded="finite(result)" if name == "dcg" else "in_unit(result)"),
                  "y_score": Scores(), "per_query": Flag(),
                  **_list_options("assert result == 0.0" if binary else "same:1", core=True), **own}
        if k is not None:
            params["k"] = _cutoff(k)
        targets.append(Target(name, template, base, params))
        targets += _layout_targets(name, template, {"k": base["k"]} if "k" in base else {}, core=True)
    # Graded RBP divides labels (up to 2) by max_grade.
    targets.append(Target("rbp[graded]", "rw.rbp({args})", {"y_true": "T", "y_score": "S", "graded": "True"}, {
        "max_grade": Real("2", low=2, low_open=False, none="ok",
                          checks={c: f"assert 0 < result <= 2 / float({c}), result"
                                  for c in ("1e300", "2**64", "np.uint64(2**64 - 1)")}),
    }))
    return targets


def rank_targets() -> list:
    scores_1d = {"two_d": False, "order_same": False}
    dense_neg = Scores(order_same=False, drop=["short"], partner="pos_score",
                       extra=[("fewer", "np.asarray(NEG)[:, :2]", Ok())])
    targets = [
        Target("rank_positive", "rw.rank_positive({args})", {"pos_score": "POS", "neg_scores": "NEG"}, {
            "pos_score": Scores(**scores_1d, top=1, bottom=0, ragged=None, partner="neg_scores"),
            "neg_scores": dense_neg,
            "mask": Mask("(2, 3)"), "nan": Choice("raise"), "n_threads": Threads(),
        }),
        Target("rank_positive[ragged]", "rw.rank_positive({args})",
               {"pos_score": "POS", "neg_scores": "NEG1", "indptr": "NIP"}, {
                   "indptr": Offsets(n=5, empty_query=False), "neg_scores": Scores(**scores_1d), "mask": Mask("(5,)"),
               }),
        Target("rank_positive[pool]", "rw.rank_positive({args})", {"pos_score": "POS", "neg_scores": "NEG1"}, {
            "neg_scores": Scores(**scores_1d, drop=["short"], extra=[("fewer", "NEG1[:4]", Ok())]),
            "mask": Mask("(5,)"),
        }),
        Target("rank_positive[matrix]", "rw.rank_positive({args})", {"scores": "SC", "true_index": "TI"}, {
            "scores": Scores(order_same=False, drop=["short"], none=VE("true_index"),
                             extra=[("fewer", "np.asarray(SC)[:, :3]", Ok())]),
            "true_index": TrueIndex(width=4), "mask": Mask("(2, 4)"),
        }),
        Target("Ranks", "rw.Ranks({args})", {"greater": "[0, 2, 1]", "equal": "[0, 1, 0]"}, {
            # equal[0] = 0: greater[0] up to 2**52 - 1 keeps the pessimistic rank within 2**52.
            "greater": Counts(0, MAX_COUNT - 1, "assert result.pessimistic.tolist() == [{v} + 1, 4, 2], result",
                              extra=[("None", "None", TE("greater"))]),
            "equal": Counts(0, MAX_COUNT - 1, "assert result.pessimistic.tolist() == [{v} + 1, 4, 2], result",
                            extra=[("None", "None", Ok())]),
        }),
        Target("Ranks[n_candidates]", "rw.Ranks({args})",
               {"greater": "[0, 2, 1]", "equal": "[0, 1, 0]", "n_candidates": "[5, 5, 4]"}, {
                   "n_candidates": Counts(1, at_max="assert result.n_candidates.tolist() == [{v}, 5, 4], result",
                                          extra=[("below-pessimistic", "[5, 3, 4]", VE("n_candidates")),
                                                 ("None", "None", Ok())]),
               }),
        Target("Ranks.from_ranks", "rw.Ranks.from_ranks({args})", {"ranks": "[1, 3, 2]"}, {
            "ranks": Counts(1, at_max="assert result.pessimistic.tolist() == [{v}, 3, 2], result",
                            extra=[("None", "None", TE("ranks"))]),
        }),
        Target("Ranks.from_ranks[n_candidates]", "rw.Ranks.from_ranks({args})",
               {"ranks": "[1, 3, 2]", "n_candidates": "[5, 5, 4]"}, {
                   "n_candidates": Counts(1, at_max="assert result.n_candidates.tolist() == [{v}, 5, 4], result",
                                          extra=[("below-rank", "[5, 2, 4]", VE("n_candidates")),
                                                 ("None", "None", Ok())]),
               }),
        Target("Ranks.concatenate", "rw.Ranks.concatenate({args})", {"parts": "[RK, RK]"}, {
            "parts": Objects(wrong=["[RK, 5]", "[RK, None]", "[RK, [1, 2]]"], drop=["[]", "{}"], also="Ranks.concatenate", extra=[
                ("empty", "[]", either(TE("Ranks"), VE("Ranks"))), ("tuple", "(RK, RK)", lambda ctx: ctx.same()),
                ("generator", "(r for r in [RK, RK])", lambda ctx: ctx.same()),
                ("mixed-candidates", "[RK, rw.Ranks([0])]", Ok("assert result.n_candidates is None")),
            ]),
        }),
        Target("Ranks[index]", "RK[{index}]", {"index": "0"}, {"index": Index()}),
        Target("RankBuilder", "rw.RankBuilder({args})", {"pos_score": "POS"}, {
            "pos_score": Scores(**scores_1d, top=1, bottom=0, ragged=None, scalar=Ok(), drop=["short"],
                                extra=[("one-query", "POS[:1]", Ok())]),
            "true_index": Rows([
                ("valid", "[0, 4]", Ok()), ("uint64", "np.array([0, 4], np.uint64)", Ok()),
                ("negative", "[0, -1]", VE("true_index")), ("2**63", "[0, 2**63]", VE("true_index")),
                ("uint64-max", "np.array([0, 2**64 - 1], np.uint64)", VE("true_index")),
                ("float", "[0.0, 1.0]", TE("true_index")), ("bool", "[True, False]", TE("true_index")),
                ("short", "[0]", VE("true_index")), ("str", "['0', '1']", TE("true_index")),
            ]),
            "nan": Choice("raise"), "n_threads": Threads(),
        }),
        Target("RankBuilder.update", "rw.RankBuilder(POS).update({args})", {"neg_scores": "NEG"}, {
            "neg_scores": Scores(order_same=False, drop=["short"], extra=[("fewer", "np.asarray(NEG)[:, :2]", Ok())]),
            "mask": Mask("(2, 3)"),
            "start": Rows([("0", "0", VE("start")), ("None", "None", Ok())]),
        }),
        Target("RankBuilder.update[ragged]", "rw.RankBuilder(POS).update({args})",
               {"neg_scores": "NEG1", "indptr": "NIP"}, {"indptr": Offsets(n=5, empty_query=False), "mask": Mask("(5,)")}),
        Target("RankBuilder.update[start]", "rw.RankBuilder(POS, true_index=[0, 4]).update({args})",
               {"neg_scores": "NEG", "start": "3"}, {"start": Start()}),
        Target("rank_metrics", "rw.rank_metrics({args})", {"ranks": "RK", "metrics": "['MR', 'MRR', 'Hits@2']"}, {
            "metrics": Names("MRR", bad=["Hits@9223372036854775808", "Hits@99999999999999999999", "Hits@0", "Hits@-1",
                                         "Hits@nan", "Hits@inf", "Hits@1e3", "Hits@1.5", "E[Hits@0]", "zHits@-5",
                                         "hits_at_9223372036854775808"], good=[
                ("Hits@2**62", "['Hits@4611686018427387904']", "assert result['Hits@4611686018427387904'] == 1.0"),
                ("Hits@2**63-1", "['Hits@9223372036854775807']", "assert result['Hits@9223372036854775807'] == 1.0"),
                ("E[Hits@2**63-1]", "['E[Hits@9223372036854775807]']",
                 "assert result['E[Hits@9223372036854775807]'] == 1.0"),
            ]),
            "ties": Choice("expected"), "weights": Weights(), "per_query": Flag(),
            "ranks": Objects(drop=["5", "[]"], extra=[("empty-Ranks", "rw.Ranks([])", VE("ranks"))]),
        }),
        Target("rank_metrics[ranks]", "rw.rank_metrics({args})", {"ranks": "[1, 3, 2]", "metrics": "['MR']"}, {
            "ranks": Counts(1, at_max="close(result['MR'], ({v} + 5) / 3)", extra=[("None", "None", TE("ranks"))]),
        }),
    ]
    return targets


# What the trec_eval 10.0 binary prints (its "all" line) for measures whose parameters look
# hostile but that it defines, on the fixture of _hostile_worker (QRELS_TEXT, RUN_TEXT):
# `trec_eval -m MEASURE x.qrels x.run`.
TREC_EVAL_PRINTS = {
    "11pt_avg.0.5,0.5": "0.5833",      # repeated points: the mean of iprec_at_recall.0.5 twice
    "ndcg.-1=1": "0.7685",             # level -1 (retrieved documents absent from the qrels) gains 1
    "utility.1e308,1e308,0,0": "inf",  # 2 * 1e308 overflows: trec_eval prints "   inf"
}


def printed(text: str) -> Ok:
    """The mean equals what trec_eval prints (4 decimals, or inf / -inf / nan)."""
    if text in ("inf", "-inf", "nan"):
        return Ok(f"assert str(means(result)[0]) == {text!r}, result")
    return Ok(f"assert f'{{means(result)[0]:.4f}}' == {text!r}, result")


def _trec_measure_rows() -> list:
    """(measure, expectation) for trec_eval's parameterised measures with hostile parameters.

    trec_eval 10.0 reads cutoffs with atol and fractions with atof; where it defines a
    value for a parameter (a negative recall fraction rounds to a cutoff no query
    reaches: iprec_at_recall's value at recall 0), that value is expected; where it does
    not (NaN, infinities, values that overflow its integers, text that is not a number),
    a ValueError naming the measure.
    """
    def value_of(other):
        return Ok(f"same(means(result), means(rw.trec_eval(QRELS, RUN, [{other!r}])))")

    rows = []
    for root in ("P", "recall", "ndcg_cut", "map_cut", "relative_P", "success"):
        for param in ("0", "-1", "-9223372036854775808", "nan", "inf", "-inf", "a", "1,,2", "1,1", "",
                      "9223372036854775808", "99999999999999999999999", "1e400"):
            rows.append((f"{root}.{param}", VE(f"{root}.{param}")))
        rows.append((f"{root}.1.5", value_of(f"{root}.1")))
        rows.append((f"{root}.1e300", either(value_of(f"{root}.1"), VE(f"{root}.1e300"))))
        huge = f"{root}.9223372036854775807"
        if root == "P":
            rows.append((huge, Ok("close(means(result), [means(rw.trec_eval(QRELS, RUN, ['num_rel_ret']))[0] "
                                  "/ 2 / (2**63 - 1)])")))
        else:
            rows.append((huge, value_of(f"{root}.1000")))
    for root in ("iprec_at_recall", "11pt_avg", "Rprec_mult"):
        for param in ("nan", "inf", "-inf", "1e300", "-1e300", "a", "", "0.5,0.5", "1e400"):
            if f"{root}.{param}" not in TREC_EVAL_PRINTS:
                rows.append((f"{root}.{param}", VE(f"{root}.{param}")))
    rows += [
        ("iprec_at_recall.-5", value_of("iprec_at_recall.0")),
        ("iprec_at_recall.-10000000", either(value_of("iprec_at_recall.0"), VE("iprec_at_recall.-10000000"))),
        ("iprec_at_recall.1e-300", value_of("iprec_at_recall.0")),
        ("iprec_at_recall.2", Ok("assert means(result) == [0.0]")),
        ("11pt_avg.2", Ok("assert means(result) == [0.0]")),
        ("11pt_avg.-1,-2", either(value_of("iprec_at_recall.0"), VE("11pt_avg.-1,-2"))),
        ("Rprec_mult.-5", Ok("assert means(result) == [0.0]")),
        ("utility.a,b,c,d", VE("utility.a,b,c,d")), ("utility.nan,0,0,0", VE("utility.nan,0,0,0")),
        ("utility.inf,0,0,0", VE("utility.inf,0,0,0")), ("utility.1,2,3", VE("utility.1,2,3")),
        ("utility.1,2,3,4,5", VE("utility.1,2,3,4,5")),
        ("set_F.nan", VE("set_F.nan")), ("set_F.inf", VE("set_F.inf")), ("set_F.a", VE("set_F.a")),
        ("ndcg.1=nan", VE("ndcg.1=nan")), ("ndcg.1=inf", VE("ndcg.1=inf")), ("ndcg.=1", VE("ndcg.=1")),
        ("ndcg.1=", VE("ndcg.1=")), ("ndcg.1", VE("ndcg.1")), ("ndcg.a=1", either(value_of("ndcg"), VE("ndcg.a=1"))),
        ("ndcg.1=1e308", either(Ok("finite(result)"), VE("ndcg.1=1e308"))),
    ]
    for level in ("1e11", "100000000000", "9223372036854775807", "9223372036854775808"):
        rows.append((f"ndcg.{level}=1", either(value_of("ndcg"), VE(f"ndcg.{level}=1"))))
    rows += [(measure, printed(value)) for measure, value in TREC_EVAL_PRINTS.items()]
    return rows


def trec_targets() -> list:
    name_rows = Rows([
        ("str", "'x'", Ok("assert result.name == 'x'")), ("int", "5", TE("name")), ("bytes", "b'x'", TE("name")),
        ("list", "['x']", TE("name")), ("space", "'a b'", either(Ok(), VE("name"))),
        ("newline", "'a\\nb'", either(Ok(), VE("name"))), ("empty", "''", either(Ok(), VE("name"))),
    ])
    qrels_ids, run_ids = "np.array(['q1', 'q1', 'q2'])", "np.array(['d1', 'd2', 'd1'])"
    doc_int_rows = [("ints", "np.array([1, 2, 1])", Ok()), ("uint64", "np.array([1, 2, 1], np.uint64)", Ok()),
                    ("uint64-big", "np.array([2**63, 2**63 + 1, 1], np.uint64)", VE("doc_ids"))]
    targets = [
        Target("Qrels.read", "rw.Qrels.read({args})", {"path": "QRELS_PATH"}, {"path": Path("qrels")}),
        Target("Run.read", "rw.Run.read({args})", {"path": "RUN_PATH"}, {"path": Path("run"), "name": name_rows}),
        Target("Qrels.from_dict", "rw.Qrels.from_dict({args})", {"qrels": "QD"}, {"qrels": Mapping("Qrels")}),
        Target("Run.from_dict", "rw.Run.from_dict({args})", {"run": "RD"}, {"run": Mapping("Run"), "name": name_rows}),
    ]
    for what, value_name, values, finite_only in (("Qrels", "relevance", "np.array([1, 0, 2])", True),
                                                  ("Run", "scores", "np.array([0.5, 0.25, 0.75])", False)):
        params = {"query_ids": IdArray(), "doc_ids": IdArray(drop=["ints", "uint64", "uint64-big"], extra=doc_int_rows),
                  value_name: ValueArray(finite_only), "copy": Flag(), "n_threads": Threads()}
        if what == "Run":
            params["name"] = name_rows
        targets.append(Target(f"{what}.from_arrays", f"rw.{what}.from_arrays({{args}})",
                              {"query_ids": qrels_ids, "doc_ids": run_ids, value_name: values}, params))
        frame = "QDF" if what == "Qrels" else "RDF"
        column = "relevance" if what == "Qrels" else "score"
        targets.append(Target(f"{what}.from_pandas", f"rw.{what}.from_pandas({{args}})", {"frame": frame}, {
            "frame": Objects(wrong=[frame.replace("DF", "D")[0] + "D", "np.zeros((3, 3))"], extra=[
                ("no-columns", "pd.DataFrame()", VE("query_id")),
                ("nan", f"{frame}.assign({column}=[1, np.nan, 2])", VE("q1")),
                ("bytes-ids", f"{frame}.assign(query_id=[b'q1', b'q1', b'q2'])",
                 either(Ok("assert list(result.query_ids) == ['q1', 'q2']"), TE("query"))),
                ("int-ids", f"{frame}.assign(query_id=[1, 1, 2])", Ok()),
                ("category", f"{frame}.astype({{'query_id': 'category'}})", lambda ctx: ctx.same()),
                ("nullable-float", f"{frame}.astype({{'{column}': 'Float64'}})", Ok()),
                ("nullable-NA", f"{frame}.assign({column}=pd.array([1, None, 2], dtype='Int64'))",
                 either(VE(column), TE(column))),
                ("str-values", f"{frame}.assign({column}=['1', '0', '2'])", TE((column, value_name))),
            ]),
            "query": Rows([("missing", "'nope'", VE("nope")), ("int", "5", either(VE("5"), TE("query"))),
                           ("None", "None", either(VE("None"), TE("query")))]),
        }))
    measures = Names("map", word="measure", bad=["mapp", "P.", "ndcg_cut.", "map.5", "P.5=1"], good=[
        ("official", "['official']", ""), ("all_trec", "['all_trec']", ""),
        ("P_10", "['P_10']", "same(means(result), means(rw.trec_eval(QRELS, RUN, ['P.10'])))"),
    ])
    targets += [
        Target("Qrels.write", "QRELS.write({args})", {"path": "tmp_path('w.qrels')"}, {"path": OutPath("rw.Qrels.read")}),
        Target("Run.write", "RUN.write({args})", {"path": "tmp_path('w.run')"}, {"path": OutPath("rw.Run.read")}),
        Target("trec_eval", "rw.trec_eval({args})", {"qrels": "QRELS", "run": "RUN", "measures": "['map', 'P.2', 'ndcg']"}, {
            "qrels": Objects(wrong=["RUN", "QD"], extra=[("path", "QRELS_PATH", either(Ok(), TE("qrels")))]),
            "run": Objects(wrong=["QRELS", "RD"], extra=[("path", "RUN_PATH", either(Ok(), TE("run")))]),
            "measures": measures,
            "complete": Flag(),
            # trec_eval's -l 0 and -M 0 are defined there (every judged document relevant; empty rankings).
            "relevance_level": Real("1", low_open=False, checks={**_level_checks(
                "r = result.mean(); assert r['map'] == r['P_2'] == 0.0, r"), "0": "same:0.0", "-0.0": "same:0.0"}),
            "depth": Int(none="ok", minimum=0, extra=[(h, h, lambda ctx: ctx.same("None"))
                                                      for h in ("2**62", "2**63 - 1")]),
            "ties": Choice("trec"), "n_threads": Threads(),
        }),
        Target("TrecResults[name]", "TR[{name}]", {"name": "'map'"}, {"name": Rows([
            ("P_2", "'P_2'", Ok()), ("unknown", "'nope'", Raises(KeyError, ("nope",))),
            ("int", "5", either(Raises(KeyError, ("5",)), TE())), ("None", "None", either(Raises(KeyError, ()), TE())),
            ("bytes", "b'map'", either(Raises(KeyError, ("map",)), TE())),
            ("list", "['map']", either(Raises(KeyError, ()), TE())),
        ])}),
        Target("TrecResults.format", "TR.format({args})", {}, {"per_query": Flag()}),
    ]
    return targets


def stats_targets() -> list:
    count = Int("100", extra=[(v, v, lambda ctx: ctx.ve()) for v in ("10**13", "2**62", "2**63 - 1")])
    seed = Int("7", minimum=0, none=Ok(), unbounded=True, check_big="assert result.seed == int({value})")
    fraction = Real("0.75", low=0, high=1)
    base = {"a": "A", "b": "B", "n_resamples": "100", "seed": "0"}
    runs = {"x": "RES_A", "y": "RES_B"}
    systems = "{" + ", ".join(f"{k!r}: {v}" for k, v in runs.items()) + "}"
    report = "rw.compare_systems({args})"
    return [
        Target("compare", "rw.compare({args})", base, {
            "a": Values(), "b": Values(), "test": Choice("randomization"), "alternative": Choice("two-sided"),
            "n_resamples": count, "seed": seed, "confidence": fraction, "on_missing": Choice("error"),
            "nan_policy": Choice("raise"), "ci_method": Choice("bca"), "zero_method": Choice("wilcox"),
            "n_threads": Threads(),
            "metric": Rows([("with-arrays", "'MRR'", TE("metric"))]),
        }),
        Target("compare[bootstrap]", "rw.compare({args})", {**base, "test": "'bootstrap'"}, {
            "n_resamples": count, "seed": seed, "confidence": fraction, "ci_method": Choice("bca"),
        }),
        Target("compare[results]", "rw.compare({args})", {"a": "RES_A", "b": "RES_B", "metric": "'MRR'", "test": "'t'"}, {
            "metric": Rows([("alias", "'RR'", lambda ctx: ctx.same()), ("unknown", "'nope'", VE("nope")),
                            ("int", "5", TE("metric")), ("bytes", "b'MRR'", TE("metric")),
                            ("None", "None", VE("metric"))]),
            "b": Rows([("dict", "dict(zip(RES_B.query_ids.tolist(), RES_B['MRR']))", Ok()),
                       ("array", "RES_B['MRR']", TE("b")),
                       # b'0' is not the id 0, nor '0': the query sets differ, with examples of each.
                       ("bytes-keys", "{b'0': 0.5, b'1': 0.5}", differ("b", "b'0'", "0")),
                       ("str-keys", "{'0': 0.5, '1': 0.5}", differ("b", "'0'"))]),
        }),
        Target("mann_whitney", "rw.mann_whitney({args})", {"a": "A", "b": "B"}, {
            "a": Values(paired=False), "b": Values(paired=False), "alternative": Choice("two-sided"),
            "nan_policy": Choice("raise"), "metric": Rows([("with-arrays", "'MRR'", TE("metric"))]),
        }),
        Target("correct", "rw.correct({args})", {"pvalues": "[0.01, 0.04, 0.03]"}, {
            "pvalues": PValues(), "method": Choice("holm"),
        }),
        Target("compare_systems", report, {"runs": systems, "metrics": "['MRR']", "n_resamples": "100", "seed": "0"}, {
            "runs": Rows([
                ("empty", "{}", VE(("runs", "systems"))), ("one", "{'x': RES_A}", VE(("runs", "systems"))),
                ("list-of-results", "[RES_A, RES_B]", TE(("runs", "systems"))), ("None", "None", TE("runs")),
                ("int", "5", TE("runs")), ("str", "'xy'", TE("runs")),
                ("bad-system", "{'x': RES_A, 'y': 5}", TE("'y'")),
                ("identical", "{'x': RES_A, 'y': RES_A}", Ok()),
                # System names are str (documented): names of other types are refused.
                ("int-names", "{1: RES_A, 2: RES_B}", TE("runs")),
                ("three", "{'x': RES_A, 'y': RES_B, 'z': RES_A}", Ok()),
            ]),
            "metrics": Names("MRR", bad=["nope"], good=[("alias", "['RR']", "")],
                             drop=["empty-list", "None"], extra=[("empty-list", "[]", VE(("metric", "metrics"))),
                                                                 ("None", "None", Ok())]),
            "baseline": Rows([("x", "'x'", Ok()), ("unknown", "'nope'", VE("nope")), ("int", "5", TE("baseline")),
                              ("bytes", "b'x'", TE("baseline"))]),
            "test": Choice("randomization"), "correction": Choice("holm", none="ok"), "alpha": fraction,
            "family": Choice("metric"), "alternative": Choice("two-sided"), "n_resamples": count,
            "seed": seed, "confidence": fraction, "on_missing": Choice("error"), "nan_policy": Choice("raise"),
            "complete": Flag(), "n_threads": Threads(),
        }),
        Target("compare_systems[runs]", report, {
            "runs": "{'x': RUN, 'y': rw.Run.from_dict(RD, name='y')}", "qrels": "QRELS", "metrics": "['map']",
            "n_resamples": "100", "seed": "0"}, {
            "qrels": Objects(wrong=["RUN", "QD"], drop=["{}"]),
            "metrics": Names("map", word="measure", bad=["mapp", "P.nan", "iprec_at_recall.nan"],
                             drop=["empty-list", "None", "int"],
                             extra=[("empty-list", "[]", VE(("metric", "metrics"))), ("None", "None", Ok()),
                                    ("int", "5", TE(("metric", "metrics")))]),
            "complete": Flag(),
        }),
    ]


def method_cases() -> list:
    """Methods without parameters, on ordinary and on extreme objects: they must simply work."""
    report = "rw.compare_systems({systems}, metrics=['MRR'], n_resamples=100, seed=0)"
    plain = report.format(systems="{'x': RES_A, 'y': RES_B}")
    odd = report.format(systems="{'a&b_%$#{}~^\\\\': RES_A, 'é\\tz': RES_B}")
    identical = report.format(systems="{'x': RES_A, 'y': RES_A}")
    int_run = "rw.Run.from_arrays(np.array([1, 1, 2]), np.array([3, 4, 3]), np.array([0.5, 0.25, 0.75]))"
    calls = [f"{plain}.{m}()" for m in ("to_text", "to_markdown", "to_latex", "to_csv", "to_pandas")]
    calls += [f"{odd}.{m}()" for m in ("to_text", "to_markdown", "to_latex", "to_csv")]
    calls += ["RES_A.mean()", "RES_A.to_pandas()", "repr(RES_A)", "RES_A['RR']", "list(RES_A)",
              "TR.mean()", "TR.to_pandas()", "TR.format(per_query=True)", "repr(TR)",
              "QRELS.to_dict()", "QRELS.to_pandas()", "RUN.to_dict()", "RUN.to_pandas()", "repr(RUN)",
              f"{int_run}.to_dict()", f"{int_run}.to_pandas()", f"{int_run}.write(tmp_path('int.run'))",
              "RK.optimistic", "RK.pessimistic", "RK.realistic", "RK.tied_fraction", "RK.mean_relative_width",
              "repr(RK)", "len(RK)", "rw.Ranks([]).tied_fraction", "repr(rw.Ranks([]))",
              "rw.RankBuilder(POS).ranks()", "rw.RankBuilder([]).ranks()"]
    cases = [(f"method-{call}", Case(call, Ok())) for call in calls]
    cases += [
        ("method-contains-int", Case("5 in RES_A", Ok("assert result is False"))),
        ("method-contains-None", Case("None in RES_A", Ok("assert result is False"))),
        ("method-contains-list", Case("['MRR'] in RES_A", either(Ok("assert result is False"), TE()))),
        ("method-Results[unknown]", Case("RES_A['nope']", Raises(KeyError, ("nope",)))),
        ("method-Results[huge-cutoff]", Case("RES_A['P@9223372036854775808']",
                                             Raises(KeyError, ("P@9223372036854775808",)))),
        ("method-Results[int]", Case("RES_A[5]", either(Raises(KeyError, ("5",)), TE()))),
        ("method-Results[bytes]", Case("RES_A[b'MRR']", either(Raises(KeyError, ("MRR",)), TE()))),
        ("method-Results[None]", Case("RES_A[None]", either(Raises(KeyError, ()), TE()))),
        ("method-Results[list]", Case("RES_A[['MRR']]", either(Raises(KeyError, ()), TE()))),
        ("method-write-id-with-space", Case("rw.Run.from_dict({'q 1': {'d1': 1.0}}).write(tmp_path('space.run'))",
                                            VE("q 1"))),
        ("method-write-infinite-scores", Case(
            "rw.Run.read(path).to_dict()",
            Ok("assert result == {'q1': {'d1': float('inf'), 'd2': -float('inf')}}, result"),
            setup="path = tmp_path('inf.run')\n"
                  "rw.Run.from_dict({'q1': {'d1': float('inf'), 'd2': -float('inf')}}).write(path)")),
        ("method-report-identical-no-nan", Case(f"{identical}.to_text()", Ok("assert 'nan' not in result, result"))),
        ("method-report-identical-csv", Case(f"{identical}.to_csv()", Ok("assert 'nan' not in result, result"))),
    ]
    return cases


def recsys_targets() -> list:
    """evaluate_topk's options (its data arguments are other layouts than the labels' kinds)."""
    base = {"relevant": "np.array(T)", "recommended": "np.array([[2, 0], [1, -1]])", "metrics": EVAL_METRICS}
    return [Target("evaluate_topk", "rw.evaluate_topk({args})", base, {
        "metrics": Names("MRR", bad=BAD_METRICS),
        "gain": Choice("linear"),
        "max_grade": Real("2", low=2, low_open=False, none="ok",
                          checks={c: "assert 0 <= result.mean()['ERR'] < 1e-300"
                                  for c in ("1e300", "2**64", "np.uint64(2**64 - 1)")}),
        "relevance_level": Real("1", checks=_level_checks(_BINARY_ZERO)),
        "empty": Choice("zero", none="ok"), "n_threads": Threads(), "n_items": Int("3", none="ok"),
        "convention": Choice("trec", none="ok"),
    })]


def tools_targets() -> list:
    """Issue 19's functions: fusion, agreement, counts from elsewhere."""
    runs = "[RUN, rw.Run.from_dict({'q1': {'d1': 0.5, 'd9': 0.25}, 'q2': {'d5': 1.0}})]"
    three = "np.array([[[0.5, 0.25, np.nan]], [[0.125, np.nan, 0.75]]])"
    return [
        Target("fuse", "rw.fuse({args})", {"runs": runs}, {
            "runs": Objects(drop=["{}", "[]"], extra=[("one", "[RUN]", VE("2 runs")), ("empty", "[]", VE("2 runs")),
                                                      ("empty-dict", "{}", VE("2 runs")),
                                                      ("not-a-run", "[RUN, QD]", TE("runs"))]),
            "method": Choice("rrf"), "norm": Choice("min-max", none="ok"),
            "k": Real("60", low=0, low_open=False, checks={"1e300": "assert result.n_queries == 2"}),
            "weights": Rows([("ok", "[1, 2]", Ok()), ("negative", "[1, -1]", VE("weights")),
                             ("nan", "[1, np.nan]", VE("weights")), ("short", "[1]", VE("weights")),
                             ("str", "['1', '2']", TE("weights")), ("inf", "[1, np.inf]", VE("weights"))]),
            "depth": Rows([("one", "1", Ok()), ("zero", "0", VE("depth")), ("huge", "2**62", Ok()),
                           ("float", "1.5", VE("depth")), ("bool", "True", VE("depth")), ("str", "'1'", VE("depth"))]),
        }),
        Target("fuse_scores", "rw.fuse_scores({args})", {"scores": three}, {
            "scores": Rows([("2-D", "np.zeros((2, 3))", VE("scores")), ("str", "np.array([[['a']], [['b']]])", VE("scores")),
                            ("one-run", "np.zeros((1, 1, 3))", VE("2 runs")), ("empty", "np.zeros((2, 0, 3))", Ok()),
                            ("all-nan", "np.full((2, 1, 3), np.nan)", Ok()), ("inf", "np.full((2, 1, 3), np.inf)", Ok()),
                            ("huge", "np.full((2, 1, 3), 1e308)", Ok()), ("None", "None", either(TE("scores"), VE("scores"))),
                            ("ragged", "[[[1.0]], [[1.0, 2.0]]]", VE("scores"))]),
            "norm": Choice("min-max", none="ok"),
        }),
        Target("agreement", "rw.agreement({args})", {"run_a": "np.array(S)", "run_b": "np.array(SC)[:, :3]",
                                                     "metrics": "['tau_b', 'tau_ap', 'RBO(p=0.9)@2']"}, {
            "run_a": Rows([("inf", "put(S, np.inf, 0)", Ok()), ("subnormal", "np.asarray(S) * 1e-310", Ok()),
                           ("nan", "put(S, np.nan, 0)", VE("run_a")), ("short", "np.array(S)[:, :2]", VE("run_a")),
                           ("None", "None", either(TE("run_a"), VE("run_a"))), ("3-D", "np.zeros((1, 2, 3))", VE("run_a")),
                           ("str", "np.array([['a', 'b', 'c']] * 2)", VE("run_a")), ("empty", "np.zeros((0, 3))", VE("run_a")),
                           ("run", "RUN", TE("run_a"))]),
            "metrics": Names("tau", bad=["tau(p=0.5)", "RBO(p=1)", "RBO(p=0)", "tauu", "RBO@0", "RBO@-1"]),
        }),
        Target("Ranks.from_counts", "rw.Ranks.from_counts({args})",
               {"greater": "[0, 2, 1]", "greater_equal": "[0, 3, 1]", "n_candidates": "5"}, {
            "greater_equal": Rows([("below", "[0, 1, 1]", VE("greater_equal")), ("short", "[0, 3]", VE("greater_equal")),
                                   ("nan", "[0, np.nan, 1]", VE("greater_equal")), ("str", "['0', '3', '1']", TE("greater_equal"))]),
            "n_candidates": Rows([("scalar-small", "2", VE("n_candidates")), ("list", "[5, 5, 5]", Ok()),
                                  ("2**53", "2**53", VE("n_candidates")), ("nan", "np.nan", VE("n_candidates"))]),
        }),
    ]


def targets() -> list:
    return (list_targets() + rank_targets() + trec_targets() + stats_targets() + recsys_targets()
            + tools_targets())


def generated_cases() -> list:
    """(test id, Case) for every target, parameter and value class; plus each target's base call."""
    out, seen = [], set()
    for target in targets():
        out.append((f"{target.id}-base", Case(target.call(), Ok())))
        for name, kind in target.params.items():
            ctx = Ctx(target, name)
            for label, src, expect in kind.values(ctx):
                case_id = f"{target.id}-{name}-{label}"
                if case_id in seen:
                    raise AssertionError(f"duplicate case id {case_id}")
                seen.add(case_id)
                out.append((case_id, Case(ctx.call_with(src), expect)))
    for measure, expect in _trec_measure_rows():
        out.append((f"trec_eval-measure-{measure}", Case(f"rw.trec_eval(QRELS, RUN, [{measure!r}])", expect)))
    out += method_cases()
    return out
