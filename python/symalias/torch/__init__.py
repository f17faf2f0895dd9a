"""symalias inside torch.compile.

``install()`` puts symalias in place of AOTAutograd's overlap decision, adds
symalias's own run-time checks, and keeps torch's compile caches from
serving a graph made under another decision. Which torch function is
replaced by which module, and why, is one table: ``_torch/points.py``
(rendered as docs/torch/hooks.md; H1-H12 are docs/PYTORCH.md section 9's).
The package is four floors (``test_torch_layers.py`` keeps them):

* the gateway, ``_torch/``: the table, the install-time check, one accessor
  per private torch name;
* the pure core -- ``_layout``, ``_facts``, ``_decision``, ``_recipe``,
  ``_report``: reading layouts, deciding, and the facts a compiled graph
  relies on, as values;
* the runtime -- ``_state``, ``_compile`` (``Compile.adopt``: the one door
  for facts), ``_guards``, ``_trace``;
* the hooks: one module per part of torch replaced, and ``_install``.

``explain(fn, *args)`` compiles ``fn`` with symalias installed and reports the
storage groups it saw: which inputs overlap, a witness byte per pair, whether
each verdict is proved for all shapes, and the guards.
"""

from __future__ import annotations

from ._explain import Explanation, explain
from ._install import enabled, features, install, installed, uninstall
from ._report import GroupReport
from ._state import Stats, stats
from ._torch.verify import HookError

__all__ = [
    "Explanation",
    "GroupReport",
    "HookError",
    "Stats",
    "enabled",
    "explain",
    "features",
    "install",
    "installed",
    "stats",
    "uninstall",
]
