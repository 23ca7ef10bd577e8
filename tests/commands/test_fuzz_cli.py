"""Property-based fuzz of `gradviz run`'s command line and TOML files: whatever comes in,
the answer is exit 0, 2 or 3, never a traceback and never a hang, and a usage error is
one short line.

Values are drawn from a mix of hostile extremes (huge, negative, non-finite, wrong type,
control characters, deep nesting) and small valid ones, so that inputs that pass
validation build a model that trains a step in milliseconds.
"""
import contextlib
import io
import math
from pathlib import Path

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from gradviz.app import main
from gradviz.plain.config.config import Config

FLAGS = ["--" + f.replace("_", "-") for f in Config.__dataclass_fields__] + [
    "--no-scale", "--no-zero-grad", "--keep-graphs", "--config", "--out", "--quiet",
    "--bogus", "-x", "--"]
KEYS = list(Config.__dataclass_fields__) + [k.replace("_", "-") for k in
                                             Config.__dataclass_fields__] + [
    "no_scale", "no-zero-grad", "gradviz", "x", ""]
SMALL_INTS = st.sampled_from([0, 1, 2, 3, 4, 8, 16, 32])
HOSTILE_INTS = st.sampled_from([-1, 9, 65, 257, 4097, 2**31, 2**63, 10**23, -10**30, 10**400])
FLOATS = st.one_of(st.floats(allow_nan=True, allow_infinity=True),
                   st.sampled_from([0.0, 0.01, 0.5, 1.0, 1e308, -1e-9, 1e3, 1001.0]))
NAMES = st.sampled_from(["sum", "separate", "in-loop", "auto", "always", "never", "detach",
                         "detach_", "sgd", "adam", "none", "default", "all", "cpu", "cuda",
                         "cuda:7", "mps", "meta", "cpu\n", "", " ", "\x00", "é"])
TEXT = st.text(max_size=40)
SCALARS = st.one_of(SMALL_INTS, HOSTILE_INTS, FLOATS, NAMES, TEXT, st.booleans())


# values each flag accepts, so that many fuzzed lines get past validation and train
VALID = {
    "--heads": st.integers(1, 8), "--trunk-width": st.sampled_from([1, 4, 32]),
    "--trunk-depth": st.integers(1, 4),
    "--strategy": st.sampled_from(["sum", "separate", "in-loop"]),
    "--retain-graph": st.sampled_from(["auto", "always", "never"]),
    "--detach": st.integers(0, 2), "--detach-mode": st.sampled_from(["detach", "detach_"]),
    "--accumulate": st.sampled_from([1, 2, 4]), "--optimizer": st.sampled_from(["sgd", "adam"]),
    "--lr": st.sampled_from([0.001, 0.05, 5.0, 1000.0]),
    "--batch-size": st.sampled_from([4, 8, 64]),
    "--seed": st.integers(0, 2**31 - 1), "--sample-every": st.integers(1, 3),
    "--loss-weights": st.lists(st.sampled_from([0, 0.5, 1, 2]), min_size=3, max_size=3).map(
        lambda ws: ",".join(map(str, ws))),
    "--device": st.sampled_from(["auto", "cpu"]),
}


def _arg_value(v) -> str:
    return repr(v) if isinstance(v, float) and not math.isfinite(v) else str(v)


@st.composite
def command_lines(draw) -> list[str]:
    argv = []
    for _ in range(draw(st.integers(0, 5))):
        flag = draw(st.sampled_from(FLAGS))
        argv.append(flag)
        if flag in VALID and draw(st.integers(0, 3)):
            argv.append(str(draw(VALID[flag])))
        elif draw(st.booleans()):
            value = draw(st.one_of(SCALARS, st.lists(SMALL_INTS, max_size=9).map(
                lambda xs: ",".join(map(str, xs)))))
            argv.append(_arg_value(value))
    return argv


def _toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf") \
            if math.isinf(value) else repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f'"{k}" = {_toml_value(v)}' for k, v in value.items()) + "}"
    return '"' + str(value).encode("unicode_escape").decode("ascii").replace('"', '\\"') + '"'


VALUES = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.sampled_from(["a", "b"]), inner,
                                                 max_size=2)), max_leaves=8)


@st.composite
def toml_files(draw) -> str:
    lines = []
    for _ in range(draw(st.integers(0, 6))):
        if draw(st.booleans()):
            flag = draw(st.sampled_from(sorted(VALID)))
            lines.append(f"{flag[2:]} = {_toml_value(draw(VALID[flag]))}")
        else:
            lines.append(f'"{draw(st.sampled_from(KEYS))}" = {_toml_value(draw(VALUES))}')
    if draw(st.integers(0, 9)) == 0:
        depth = draw(st.integers(1, 2000))
        lines.append("deep = " + "[" * depth + "]" * depth)
    if draw(st.integers(0, 9)) == 0:
        lines.append(draw(st.text(max_size=30)))          # not TOML at all, often
    return "\n".join(lines) + "\n"


def _run(argv: list[str]) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code
    return code, err.getvalue()


def _check(code, err: str) -> None:
    event(f"exit {code}")   # --hypothesis-show-statistics shows how many ran training
    assert code in (0, 2, 3), (code, err[:500])
    assert "Traceback" not in err, err[:2000]
    if code == 2:
        lines = err.strip().splitlines()
        assert len(lines) == 1 and len(lines[0]) <= 500, err[:2000]


# --steps and --probes come last so that a valid command trains one cheap step
TAIL = ["--steps", "1", "--probes", "all", "--quiet"]
FUZZ = settings(max_examples=600, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@FUZZ
@given(argv=command_lines())
def test_fuzzed_command_lines(tmp_path_factory, argv):
    out = tmp_path_factory.mktemp("out")   # a fuzzed --out value writes only in here
    argv = [str(out / "o") if prev == "--out" else a
            for prev, a in zip([None] + argv, argv)]
    _check(*_run(["run", *argv, *TAIL]))


@FUZZ
@given(text=toml_files(), argv=command_lines())
def test_fuzzed_toml_files(tmp_path_factory, text, argv):
    folder = tmp_path_factory.mktemp("cfg")
    path = Path(folder) / "fuzz.toml"
    path.write_bytes(text.encode("utf-8", "surrogatepass"))   # lone surrogates included
    argv = [a for a in argv if a not in ("--config", "--out")]
    _check(*_run(["run", "--config", str(path), *argv[:4], *TAIL]))
