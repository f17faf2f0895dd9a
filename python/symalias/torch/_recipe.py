"""What symalias needs to re-install its facts for a cached graph (the
recipe, saved in AOTAutograd's cache entry) and the versions the cache
keys carry. Part of the pure core: values only."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: Version of what a cache entry's recipe means; bump when the decision or
#: the guards derived from it change, so entries of older versions miss.
RECIPE_VERSION = 2


#: Version of what symalias changes in Inductor's graphs (the reinplace
#: pass's answers, ``_epilogue``, ``_functionalized``, ``_inline``, the
#: no-ops kept by ``_noops``, ``sym_storage_offset`` lowered by
#: ``_offsets``), in every cache key made while installed; bump when any of
#: it changes.
REINPLACE_VERSION = 4


@dataclass
class Recipe:
    """What symalias needs to re-install its guards for a compiled graph,
    by position in AOTAutograd's flat arguments: which inputs the graph
    mutates (``None``: none, or the merge step did not run) and how many
    synthetic bases the merge made (they come first among the graph's
    inputs)."""

    mutated: list[bool] | None = None
    bases: int = 0
    #: Why this compile must not be saved in AOTAutograd's cache ("": it
    #: may be): a byte-level base (a hit would rebuild torch's run-time
    #: wrapper, not symalias's), or an output that runs eagerly when
    #: compiled (the entry is saved before that is found).
    unsaved: str = ""

    @property
    def merged(self) -> bool:
        """Some storage group was merged into a synthetic base."""
        return self.bases > 0

    def to_doc(self) -> dict[str, Any]:
        return {"version": RECIPE_VERSION, "mutated": self.mutated, "bases": self.bases}

    @staticmethod
    def from_doc(doc: Any) -> Recipe | None:
        """The recipe of a cache entry, or None when it was not made by this
        recipe version."""
        if not isinstance(doc, dict) or doc.get("version") != RECIPE_VERSION:
            return None
        mutated = doc.get("mutated")
        if mutated is not None and not (isinstance(mutated, list) and all(isinstance(m, bool) for m in mutated)):
            return None
        bases = doc.get("bases")
        if not isinstance(bases, int) or isinstance(bases, bool) or bases < 0:
            return None
        return Recipe(mutated=mutated, bases=bases)
