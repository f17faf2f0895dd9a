"""The one gateway to torch internals (polars' ``dependencies.py`` is the
model): ``points``, the table of what symalias replaces and patches and
everything else it reads; ``verify``, the install-time check of that
table; ``gateway``, one accessor per private name the package uses. The
ground floor of ``symalias.torch``: it imports nothing of the package."""
