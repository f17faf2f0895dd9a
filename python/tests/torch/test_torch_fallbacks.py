"""An assertion inside the compiler is torch's bug, never the user's
(issue 62, ``_merge._fallback``): stock raises it where eager runs the
program; installed, the frame runs eagerly (one warning, class
``compiler``) and equals eager."""

from __future__ import annotations

import logging
import os
import sys

import pytest

torch = pytest.importorskip("torch")
sys.path.insert(0, os.path.join(os.path.dirname(__file__), os.pardir, "support"))
import catframes as cf

import symalias.torch as st

#: catframes seed 104 (dynamic): Inductor's pattern matcher asserts "graph
#: node count mismatch between eager and replacement" on a one-input cat
#: written in place.
SEED = 104


@pytest.mark.quick
def test_a_compiler_assertion_runs_the_frame_eagerly(caches_on, caplog):
    frame = cf.make_frame(SEED)
    st.uninstall()
    outcome, detail = cf.run_frame(frame)
    assert outcome == "error" and "AssertionError" in detail
    st.install()
    with caplog.at_level(logging.WARNING, logger="symalias.torch"):
        assert cf.run_frame(frame)[0] == "right"
    assert st.stats.fallback_kinds == {"compiler": 1}
    assert any("eagerly (compiler)" in r.getMessage() for r in caplog.records)


def test_a_users_error_still_raises(caches_on):
    def wrong_shapes(x):
        return x @ x  # (2, 3) @ (2, 3): eager raises

    st.install()
    with pytest.raises(Exception, match=r"cannot be multiplied|size mismatch|shapes"):
        wrong_shapes(torch.ones(2, 3))
    with pytest.raises(Exception, match=r"cannot be multiplied|size mismatch|shapes"):
        torch.compile(wrong_shapes, backend="inductor")(torch.ones(2, 3))
    assert st.stats.eager_fallbacks == 0
