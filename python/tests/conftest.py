import pytest


@pytest.fixture(params=["caches_off", "caches_on"])
def fresh_torch(request):
    """torch.compile with Dynamo reset before and after and symalias
    uninstalled after, in the two configurations users run: compile caches
    off (``force_disable_caches``), and on -- torch's default -- in a fresh
    cache directory of the test's own (``fresh_cache``: AOTAutograd's and
    inductor's caches, on disk and in memory)."""
    torch = pytest.importorskip("torch")
    from torch._inductor.utils import fresh_cache

    import symalias.torch as st

    cfg = torch.compiler.config
    old = cfg.force_disable_caches
    cfg.force_disable_caches = request.param == "caches_off"
    torch._dynamo.reset()
    try:
        with fresh_cache():
            yield torch
    finally:
        st.uninstall()
        torch._dynamo.reset()
        cfg.force_disable_caches = old


def pytest_terminal_summary(terminalreporter):
    """How many frames compiled in this process under ``install()`` needed
    any symalias run-time check at all (the rest rely on proofs or on
    torch's own guards)."""
    import sys

    state = sys.modules.get("symalias.torch._state")
    if state is None:
        return
    n = state.lifetime
    terminalreporter.write_line(
        f"symalias: {n.frames_guarded} of {n.frames_compiled} frames compiled "
        "under install() carry a symalias run-time check; "
        f"{n.frames_group_guarded} of them for an aliased storage group "
        "(the others: only the cross-storage fact)"
    )
