"""One process of a saved-artifact test (run by test_torch_artifacts.py).

``python artifact_child.py MODE INSTALL BACKEND PATH [PATTERN ...]``:

* ``save``: ``torch.compile(fn, dynamic=True, fullgraph=True).aot_compile``
  on the first pattern, then ``save_compiled_function`` to PATH;
* ``load``: ``torch.compiler.load_compiled_function`` from PATH and one call
  per pattern;
* ``precompile``: ``torch._dynamo.config.caching_precompile`` on, a
  ``torch.compile`` (``dynamic=True``) called once per pattern, then
  ``torch.compiler.save_cache_artifacts()`` (which writes precompile's
  packages) when PATH is ``save``; the cache directory is the
  environment's TORCHINDUCTOR_CACHE_DIR.

INSTALL is ``installed`` or ``stock``. Prints one JSON line: ``loaded``
(or the load's error) and, per call, ``right`` (outputs and the buffer's
bytes equal eager), ``wrong``, or the error it raised."""

import json
import sys

import torch


def mutate_both(a, b):
    a.mul_(2)
    b.add_(1)
    return a + b


#: Two row blocks of one 6x4 buffer, by first row: same sizes and strides.
PATTERNS = {"disjoint": (0, 3), "overlapping": (0, 1), "shifted": (1, 4)}


def blocks(name):
    i, j = PATTERNS[name]
    m = torch.arange(24.0).view(6, 4)
    return m, (m[i : i + 2], m[j : j + 2])


def main():
    mode, install, backend, path, *patterns = sys.argv[1:]
    if install == "installed":
        import symalias.torch as st

        st.install()
    out = {}
    if mode == "precompile":
        torch._dynamo.config.caching_precompile = True
        compiled = torch.compile(mutate_both, backend=backend, dynamic=True)
        out["calls"], out["compiled"] = [], []
        for name in patterns:
            out["calls"].append(call(compiled, name))
            if install == "installed":
                # Frames compiled so far in this process (0: served from a package).
                out["compiled"].append(st.stats.frames_compiled)
        if path == "save":
            torch.compiler.save_cache_artifacts()
        from torch._dynamo.utils import counters

        out["package"] = dict(counters["dynamo_cache"])
    elif mode == "save":
        _, args = blocks(patterns[0])
        compiled = torch.compile(mutate_both, backend=backend, dynamic=True, fullgraph=True).aot_compile((args, {}))
        compiled.save_compiled_function(path)
        out["saved"] = True
    else:
        try:
            with open(path, "rb") as f:
                loaded = torch.compiler.load_compiled_function(f)
            out["loaded"] = True
        except Exception as e:
            out["loaded"] = f"{type(e).__name__}: {e}"
            print(json.dumps(out))
            return
        out["calls"] = [call(loaded, name) for name in patterns]
    print(json.dumps(out))


def call(fn, name):
    """``right`` or ``wrong`` against eager (outputs and the buffer's bytes),
    or the error ``fn`` raised."""
    m_e, args_e = blocks(name)
    want = mutate_both(*args_e)
    m_c, args_c = blocks(name)
    try:
        got = fn(*args_c)
    except Exception as e:
        return f"{type(e).__name__}: {' '.join(str(e).split())}"
    return "right" if torch.equal(got, want) and torch.equal(m_c, m_e) else "wrong"


if __name__ == "__main__":
    main()
