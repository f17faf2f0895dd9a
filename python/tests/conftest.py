import pytest


@pytest.fixture
def fresh_torch():
    """torch.compile with compile caches off (a cached stock graph would hide
    the hook) and Dynamo reset before and after; symalias uninstalled after."""
    torch = pytest.importorskip("torch")
    import symalias.torch as st

    cfg = torch.compiler.config
    old = cfg.force_disable_caches
    cfg.force_disable_caches = True
    torch._dynamo.reset()
    try:
        yield torch
    finally:
        st.uninstall()
        torch._dynamo.reset()
        cfg.force_disable_caches = old
