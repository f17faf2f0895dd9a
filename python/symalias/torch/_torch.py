"""The one module that owns symalias's access to torch internals (polars'
``dependencies.py`` is the model).

Every private torch name symalias reads or replaces is listed here --
``HOOKS`` (functions replaced), ``READS`` (classes, functions, fields and
config entries read, by symalias's Python and by ``_native``) -- and
``check()`` resolves each one and compares each hook's signature at
``install()``: a torch where one moved gets a ``HookError`` naming what
moved, never a half-installed symalias or a silent default at compile time.
The rest of the package reaches torch internals only through this module's
functions (``storage_id``, ``autograd_base``, ``tracing_context``, the
config patches, ...; the gateway section below), and
``python/tests/torch/test_torch_hooks.py`` keeps it so: a scan of the package
fails on any private torch read outside this module, every private name
read is listed here, and each listed name is removed in turn to see
``install()`` refuse with a ``HookError`` naming it. What replaces each
hook point is ``_hooks.WRAPPERS``.

Facts relied on, for torch 2.15:

* AOTAutograd decides aliasing in ``runtime_wrappers`` (H1-H4 of
  docs/PYTORCH.md section 9; H5, H6 below) and keys its cache in ``autograd_cache``;
* Dynamo builds AOTAutograd's guards in ``CheckFunctionManager
  .compile_check_fn``, after a user's ``guard_filter_fn``;
* Inductor's reinplace pass decides aliasing inside
  ``reinplace_inplaceable_ops_core`` through three names of its module
  (``compute_overlapping_tensors``, ``get_node_storage``, ``OrderedSet``);
  higher-order ops map subgraph mutations to their inputs in
  ``subgraph_mutated_input_storages``/``parent_mutated_input_indices``;
* a source is a chain (``torch._dynamo.source``): ``LocalSource`` at the
  root, ``AttrSource`` / ``GetItemSource`` / ``DictGetItemSource`` steps,
  ``NNModuleSource`` wrappers that name their base.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
from collections.abc import Sequence
from typing import Any, Callable, Literal

import torch
import torch._dynamo
import torch._dynamo.source
import torch._functorch.config
import torch._guards
import torch._inductor.config
import torch._prims_common
import torch.utils._python_dispatch

__all__ = [
    "FEATURES",
    "HOOKS",
    "READS",
    "Checked",
    "Feature",
    "Hook",
    "HookError",
    "check",
    "feature_on",
    "path",
    "resolve",
]


def forget_compiled_frames() -> None:
    """Drops Dynamo's compiled code (``torch._dynamo.reset``): a frame
    compiled before ``install()`` carries stock's decision and none of
    symalias's checks, and would otherwise be run again as it is."""
    torch._dynamo.reset()


class HookError(RuntimeError):
    """A torch hook point symalias needs is missing or changed shape."""


@dataclasses.dataclass(frozen=True, eq=False)
class Hook:
    """One replaced attribute: where (``owner``, a dotted path), which
    parameters it must start with, whether it is a static method. What
    replaces it is ``_hooks.WRAPPERS[hook]`` (a function of
    ``symalias.torch`` that, given torch's function, returns its
    replacement); a hook is its own key (compared by identity)."""

    owner: str
    attr: str
    #: None: a builtin or a class, whose signature is not compared.
    params: tuple[str, ...] | None
    static: bool = False
    #: A class method (replaced by one; ``params`` after ``cls``).
    cls: bool = False
    #: A method table (a dict, ``params`` None), replaced by a larger one.
    table: bool = False
    #: Other accepted forms of ``params`` (older releases), which the
    #: wrapper adapts to (``_cache.wrap_key``: ``gm`` for ``mod`` in 2.11;
    #: ``_functionalized``: no ``_is_out`` before 2.13).
    alt: tuple[tuple[str, ...], ...] = ()


RW = "torch._functorch._aot_autograd.runtime_wrappers"
AC = "torch._functorch._aot_autograd.autograd_cache"
SC = "torch._functorch._aot_autograd.schemas"
SRC = "torch._dynamo.source"
RP = "torch._inductor.fx_passes.reinplace"
HOP = "torch._dynamo.variables.higher_order_ops"
AF = "torch._higher_order_ops.auto_functionalize"

# H1: the decision.
DECISION = Hook(RW, "compute_overlapping_inputs", ("aot_config", "fwd_inputs", "aliased_input_indices"))
# H3, H4, the recipe, view replay: around the synthetic-base step.
MERGE = Hook(RW, "merge_view_inputs", ("aot_config", "fwd_inputs", "fwd_inputs_descs", "mutated_input_info"))
# Outputs viewing inputs that were not merged keep the user's view replay.
ALIAS_OF_INPUT = Hook(f"{RW}.AliasOfInputHandler", "__init__", ("self", "info", "runtime_metadata", "trace_joint"))
# Byte-level synthetic bases (views of different dtypes): regeneration
# of the members, and the run-time wrapper.
GEN_ALIAS = Hook(RW, "gen_alias_from_base", ("aliased_base_tensor", "target_meta_tensor", "target_requires_grad"))
SYNTHETIC_META = Hook(RW, "create_synthetic_base_metadata", ("m", "synthetic_base_info", "outer_args"))
SYNTHETIC_POST = Hook(f"{RW}.AOTSyntheticBaseWrapper", "post_compile", ("self", "compiled_fn", "aot_config"))
# The compile record and the eager fallback.
USER_COMPILER = Hook("torch._dynamo.output_graph.OutputGraph", "call_user_compiler", ("self", "gm", "example_inputs"))
# symalias's checks, installed beside torch's own AOTAutograd guards
# (after any guard filter), also for a loaded artifact.
CHECK_FN = Hook(
    "torch._dynamo.guards.CheckFunctionManager", "compile_check_fn", ("self", "builder", "guards_out", "guard_fail_fn")
)
# A saved artifact made without symalias never passes its guards.
LOAD_GUARDS = Hook(
    "torch._dynamo.package", "load_guard_manager", ("guards_state", "target_code", "runtime_global_scope")
)
# AOTAutograd's cache: key, hit, entry.
CACHE_KEY = Hook(
    AC, "autograd_cache_key", ("mod", "example_inputs", "config"), alt=(("gm", "example_inputs", "config"),)
)
CACHE_TRY_LOAD = Hook(f"{AC}.AOTAutogradCache", "try_load", ("mod", "args", "aot_config"), static=True)
CACHE_LOOKUP = Hook(
    f"{AC}.AOTAutogradCache", "_lookup", ("key", "local", "remote", "args", "cache_info", "aot_config"), static=True
)
CACHE_SAVE = Hook(f"{AC}.AOTAutogradCache", "save", ("key", "entry", "remote"), static=True)
# Higher-order ops: an input that overlaps a mutated tensor is refused.
HOP_STORAGES = Hook(HOP, "subgraph_mutated_input_storages", ("subgraph", "mutated_input_indices"))
HOP_PARENTS = Hook(HOP, "parent_mutated_input_indices", ("parent_inputs", "mutated_input_storages"))
# Higher-order ops' input-input aliasing checks decide by bytes: Dynamo's
# while tracing the subgraphs, the functionalization's before lowering
# (``while_loop`` binds the latter by name).
HOP_ALIASING = Hook("torch._dynamo.output_graph.SubgraphTracer", "has_aliasing", ("self", "allow_input_input_aliasing"))
HU = "torch._higher_order_ops.utils"
HOP_FUNCTIONAL = Hook(HU, "_check_alias_and_mutation", ("graph_module", "inputs_fake", "name", "pre_dispatch"))
HOP_FUNCTIONAL_WHILE = Hook(
    "torch._higher_order_ops.while_loop",
    "_check_alias_and_mutation",
    ("graph_module", "inputs_fake", "name", "pre_dispatch"),
)
# Inductor's concatenation: which inputs are computed into the result
# (``_concat``), answered through the set torch's rule reads.
CONCAT = Hook("torch._inductor.ir.ConcatKernel", "create", ("inputs", "dim"), cls=True)
# The user's clone of an input, given back to the op that mutates it
# after Inductor's no-op removal (``_clones``).
NOOPS = Hook("torch._inductor.fx_passes.post_grad", "remove_noop_ops", ("graph",))
# Alias checks in user code (``_address``): two data pointers compared,
# a storage's ``data_ptr``, ``is_set_to``, ``torch._C._is_alias_of``.
DV = "torch._dynamo.variables"
DATA_PTR_COMPARE = Hook(f"{DV}.tensor.DataPtrVariable", "tp_richcompare_impl", ("self", "tx", "other", "op"))
STORAGE_METHODS = Hook(f"{DV}.tensor.UntypedStorageVariable", "tp_methods", None, table=True)
TENSOR_METHODS = Hook(f"{DV}.tensor.TensorVariable", "tp_methods", None, table=True)
TORCH_CALL = Hook(f"{DV}.torch.TorchInGraphFunctionVariable", "call_function", ("self", "tx", "args", "kwargs"))
# Functionalized mutating ops: a read-only argument overlapping a mutated
# one is regenerated from the mutated base's clone (``_functionalized``).
FUNCTIONAL_ARGS = Hook(
    AF,
    "_generate_new_op_kwargs_from_bases",
    ("schema", "kwargs", "all_bases", "_only_clone_these_bases", "_is_out"),
    alt=(("schema", "kwargs", "all_bases", "_only_clone_these_bases"),),
)
# Eager's partial-overlap error for in-place pointwise ops, raised while
# Dynamo runs them on fake tensors (``_overlap_errors``).
FAKE_DISPATCH = Hook(
    "torch._subclasses.fake_tensor.FakeTensorMode", "dispatch", ("self", "func", "types", "args", "kwargs")
)
# Inductor's FX graph cache: keyed on symalias's reinplace answer too.
FX_GRAPH_HASH = Hook(
    "torch._inductor.codecache", "compiled_fx_graph_hash", ("gm", "example_inputs", "fx_kwargs", "inputs_to_check")
)
# Inductor's reinplace pass asks symalias (``_reinplace``): switched on
# while the pass runs, three names of its module answered in bytes.
REINPLACE_CORE = Hook(RP, "reinplace_inplaceable_ops_core", ("graph",))
REINPLACE_STORAGE = Hook(RP, "get_node_storage", ("node",))
REINPLACE_SET = Hook(RP, "OrderedSet", None)
REINPLACE_OVERLAP = Hook(RP, "compute_overlapping_tensors", None)

#: Every hook point, in the order ``install()`` replaces them.
HOOKS = [
    DECISION,
    MERGE,
    ALIAS_OF_INPUT,
    GEN_ALIAS,
    SYNTHETIC_META,
    SYNTHETIC_POST,
    USER_COMPILER,
    CHECK_FN,
    LOAD_GUARDS,
    CACHE_KEY,
    CACHE_TRY_LOAD,
    CACHE_LOOKUP,
    CACHE_SAVE,
    HOP_STORAGES,
    HOP_PARENTS,
    HOP_ALIASING,
    HOP_FUNCTIONAL,
    HOP_FUNCTIONAL_WHILE,
    CONCAT,
    NOOPS,
    DATA_PTR_COMPARE,
    STORAGE_METHODS,
    TENSOR_METHODS,
    TORCH_CALL,
    FUNCTIONAL_ARGS,
    FAKE_DISPATCH,
    FX_GRAPH_HASH,
    REINPLACE_CORE,
    REINPLACE_STORAGE,
    REINPLACE_SET,
    REINPLACE_OVERLAP,
]


@dataclasses.dataclass(frozen=True)
class Feature:
    """A part of symalias.torch that only *adds* to what stock torch does
    (fixes a refusal, a copy, a graph break), so that a release lacking its
    hook points runs without it -- as that release's stock does -- instead
    of refusing ``install()``. Everything not in a feature is needed for
    soundness and stays fail-closed. ``reads``: names of ``READS`` only
    this feature reads (dotted)."""

    name: str
    summary: str
    hooks: tuple[Hook, ...]
    reads: tuple[str, ...] = ()


#: The optional features, each off on a torch that lacks one of its names
#: (said once in the log and in ``symalias.torch.features()``).
FEATURES: tuple[Feature, ...] = (
    Feature(
        "hop_mutated_inputs",
        "higher-order ops map a subgraph's mutations to inputs by bytes",
        (HOP_STORAGES, HOP_PARENTS),
    ),
    Feature(
        "hop_input_aliasing",
        "higher-order ops accept read-only or disjoint inputs of one storage",
        (HOP_ALIASING, HOP_FUNCTIONAL, HOP_FUNCTIONAL_WHILE),
        (
            f"{HU}.potential_input_alias_or_mutation",
            f"{HU}._collect_fake_inputs",
            "torch._dynamo.output_graph.SubgraphTracer.has_input_mutation",
            "torch._dynamo.output_graph.SubgraphTracer.graph",
            "torch._dynamo.output_graph.AliasingInfo",
        ),
    ),
    Feature(
        "address_checks",
        "data_ptr / is_set_to / _is_alias_of on inputs become guarded constants",
        (DATA_PTR_COMPARE, STORAGE_METHODS, TENSOR_METHODS, TORCH_CALL),
        (
            f"{DV}.tensor.TensorVariable",
            f"{DV}.tensor.DataPtrVariable",
            f"{DV}.tensor.DataPtrVariable.from_tensor",
            f"{DV}.tensor.DataPtrVariable._is_same_data_ptr",
            f"{DV}.tensor.DataPtrVariable.reconstruct",
            f"{DV}.tensor.UntypedStorageVariable.from_tensor",
            f"{DV}.torch.BaseTorchVariable.value",
            f"{DV}.constant.ConstantVariable.create",
            f"{DV}.base.Method",
            "torch._dynamo.output_graph.OutputGraph.root_tx",
            "torch._dynamo.symbolic_convert.InstructionTranslatorBase.f_locals",
            "torch._dynamo.symbolic_convert.InstructionTranslatorBase.output",
        ),
    ),
    Feature(
        "concat_inputs",
        "Inductor's cat copies no input whose bytes no later write touches",
        (CONCAT,),
        (
            "torch._inductor.graph.GraphLowering.current_node",
            "torch._inductor.graph.GraphLowering.mutated_storages",
            "torch._inductor.fx_utils.get_mutated_input_nodes",
        ),
    ),
    Feature(
        "input_clones",
        "a user's clone of an input, dropped by Inductor's no-op removal, given back to the op writing it",
        (NOOPS,),
        ("torch._inductor.fx_utils.get_mutated_storages",),
    ),
    Feature(
        "trace_artifacts",
        "each decision written into the structured trace (TORCH_TRACE) for tlparse: its picture and its text",
        (),
        (
            "torch._logging._internal.trace_structured",
            "torch._logging._internal.trace_log",
            "torch._logging._internal.LazyTraceHandler",
            "torch._logging._internal.LazyTraceHandler.root_dir",
            "torch._logging._internal.LazyTraceHandler.stream",
        ),
    ),
    Feature(
        "byte_bases",
        "views of different dtypes merged into a byte-level synthetic base (else: such frames run eagerly)",
        (),
        (f"{RW}.AOTSyntheticBaseWrapper.base_groups", f"{RW}.AOTSyntheticBaseWrapper.other_arg_indices"),
    ),
)

#: Which features this process runs with, set by ``install()``.
ON: dict[str, bool] = {}


def feature_on(name: str) -> bool:
    """Whether feature ``name`` runs (``install()`` decided it)."""
    return ON.get(name, False)


#: What ``_reinplace`` changes in the reinplace pass: each must still be in
#: its source, or ``install()`` refuses.
REINPLACE_SITES = (
    "_overlap",
    "compute_overlapping_tensors(ls)",
    "OrderedSet(get_node_storage(arg) for arg in mutated_arg)",
    "storage_of_reinplaced_args = OrderedSet",
    "in storage_of_reinplaced_args",
)

#: Looked up and checked, not replaced: ``(owner, attr, parameters)``.
LAMBDA = (
    "torch._dynamo.guards.GuardBuilder",
    "add_python_lambda_leaf_guard_to_root",
    ["self", "code_parts", "verbose_code_parts", "closure_vars"],
)

#: Everything else read: per owner (a dotted path), the names read on it --
#: module attributes, class attributes, dataclass fields, attributes an
#: ``__init__`` sets.
READS: list[tuple[str, list[str]]] = [
    ("torch._logging._internal", ["trace_structured", "trace_log", "LazyTraceHandler"]),
    ("torch._logging._internal.LazyTraceHandler", ["root_dir", "stream"]),
    (f"{SC}.AOTConfig", ["aot_autograd_arg_pos_to_source", "cache_info"]),
    (f"{SC}.AOTAutogradCacheInfo", ["cache_key"]),
    (f"{SC}.InputAliasInfo", ["mutates_data", "mutates_metadata", "is_leaf"]),
    (f"{SC}.OutputAliasInfo", ["output_type", "base_idx"]),
    (f"{SC}.OutputType", ["alias_of_input", "is_input"]),
    (f"{SC}.ViewAndMutationMeta", ["input_info", "output_info"]),
    (
        f"{RW}.AOTSyntheticBaseWrapper",
        ["needs_post_compile", "base_groups", "other_arg_indices", "aliased_arg_idx_with_metadata_mutations"],
    ),
    (f"{RW}.AliasOfInputHandler", ["replay_views"]),
    (AC, ["BypassAOTAutogradCache"]),
    (
        "torch._functorch._aot_autograd.descriptors",
        ["DummyAOTInput", "SyntheticBaseAOTInput", "ViewBaseAOTInput"],
    ),
    ("torch._functorch._aot_autograd.aot_autograd_result.GenericAOTAutogradResult", ["runtime_metadata"]),
    ("torch._dynamo.output_graph.OutputGraph", ["aotautograd_guards"]),
    ("torch._dynamo.output_graph.OutputGraphCommon", ["shape_env"]),
    ("torch._dynamo.output_graph.OutputGraphGuardsState", ["aotautograd_guards"]),
    ("torch._dynamo.guards.CheckFunctionManager", ["output_graph", "guard_manager"]),
    ("torch._dynamo.guards.GuardManagerWrapper", ["closure_vars"]),
    ("torch._dynamo.guards.GuardsState", ["output_graph"]),
    ("torch._dynamo", ["reset"]),
    ("torch._dynamo.exc", ["unimplemented"]),
    ("torch._dynamo.exc", ["BackendCompilerFailed"]),
    (
        SRC,
        [
            "LocalSource",
            "AttrSource",
            "GetItemSource",
            "ListGetItemSource",
            "DictGetItemSource",
            "NNModuleSource",
            "ParamBufferSource",
            "UnspecializedParamBufferSource",
            "CellContentsSource",
        ],
    ),
    (f"{SRC}.LocalSource", ["local_name"]),
    (f"{SRC}.AttrSource", ["base", "member"]),
    (f"{SRC}.GetItemSource", ["base", "index", "index_is_slice"]),
    (f"{SRC}.DictGetItemSource", ["base", "index"]),
    (f"{SRC}.NNModuleSource", ["base"]),
    ("torch._subclasses.fake_tensor.FakeTensorMode", ["shape_env"]),
    ("torch._guards", ["GuardEnvExpr", "TracingContext"]),
    ("torch._guards.GuardsContext", ["aotautograd_guards"]),
    ("torch._guards.TracingContext", ["fake_mode", "guards_context", "try_get"]),
    ("torch._functorch.config", ["view_replay_for_aliased_outputs"]),
    ("torch._inductor.config", ["post_grad_custom_post_pass"]),
    ("torch._inductor.custom_graph_pass", ["CustomGraphPass"]),
    ("torch._prims_common", ["compute_required_storage_length"]),
    (AF, ["get_mutable_args_from_schema"]),
    ("torch._higher_order_ops.schema", ["HopSchema"]),
    (HU, ["potential_input_alias_or_mutation", "_collect_fake_inputs"]),
    ("torch._inductor.fx_utils", ["get_node_storage", "get_mutated_input_nodes", "get_mutated_storages"]),
    ("torch._inductor.virtualized", ["V"]),
    ("torch._inductor.graph.GraphLowering", ["current_node", "mutated_storages"]),
    ("torch._dynamo.output_graph.SubgraphTracer", ["has_input_mutation", "graph"]),
    ("torch._dynamo.output_graph", ["AliasingInfo"]),
    ("torch", ["_check"]),
    ("torch.fx.experimental.proxy_tensor", ["disable_proxy_modes_tracing"]),
    ("torch._ops", ["OpOverload"]),
    ("torch._ops.OpOverload", ["_schema", "tags"]),
    (RP, ["inplaceable_ops"]),
    ("torch.fx.passes.reinplace", ["_is_view_op"]),
    ("torch.utils._python_dispatch", ["is_traceable_wrapper_subclass"]),
    # Read by ``_native``: a tensor's layout, one call per field
    # (python/src/tensors.rs), its autograd base (checks.rs: a pinned base);
    # a SymInt's node and the ShapeEnv's tables (symints.rs: never compared).
    (
        "torch._C.TensorBase",
        ["size", "stride", "storage_offset", "element_size", "untyped_storage", "_base", "data_ptr", "is_set_to"],
    ),
    ("torch._C", ["_is_alias_of"]),
    (f"{DV}.tensor", ["TensorVariable", "DataPtrVariable"]),
    (f"{DV}.tensor.DataPtrVariable", ["from_tensor", "_is_same_data_ptr", "reconstruct"]),
    (f"{DV}.tensor.UntypedStorageVariable", ["from_tensor"]),
    (f"{DV}.torch.BaseTorchVariable", ["value"]),
    (f"{DV}.constant.ConstantVariable", ["create"]),
    (f"{DV}.base", ["Method"]),
    ("torch._dynamo.output_graph.OutputGraph", ["root_tx"]),
    ("torch._dynamo.symbolic_convert.InstructionTranslatorBase", ["f_locals", "output"]),
    ("torch._C.StorageBase", ["_cdata"]),
    ("torch.nn.Module", ["_get_name"]),
    ("torch._dynamo.exc.BackendCompilerFailed", ["inner_exception"]),
    ("torch.fx.experimental.sym_node.SymNode", ["expr", "shape_env", "hint"]),
    ("torch.fx.experimental.symbolic_shapes.ShapeEnv", ["backed_var_to_val", "var_to_range", "var_to_sources"]),
    ("torch.utils._sympy.value_ranges.ValueRanges", ["lower", "upper"]),
]


# ---- The gateway: every private torch name the rest of the package uses ----
#
# The other modules reach torch internals only through these (a test scans
# the package for any other private torch read: test_torch_hooks.py). Each
# name used here is listed in ``READS`` or ``HOOKS`` above and so checked at
# ``install()``.


def version() -> str:
    """This torch's version string (``2.15.0+cu132``)."""
    return str(torch.__version__)


def tracing_structured() -> bool:
    """A structured trace (``TORCH_TRACE``) is being written, and the
    ``trace_artifacts`` feature runs: torch's trace handler has its
    directory (or its file). Other handlers on the trace logger (pytest's
    capture, say) write no trace, and torch's handler without a directory
    writes nothing (it drops itself at the first record)."""
    if not ON.get("trace_artifacts", False):
        return False
    internal = torch._logging._internal
    return any(
        isinstance(h, internal.LazyTraceHandler) and (h.root_dir is not None or h.stream is not None)
        for h in internal.trace_log.handlers
    )


def trace_artifact(name: str, payload: Callable[[], str]) -> None:
    """Writes artifact ``name`` (text made by ``payload``, only when written)
    into the structured trace, under the compile in progress (tlparse lists
    it as ``<name>_<line>.txt`` in that compile's directory)."""
    torch._logging._internal.trace_structured(
        "artifact",
        metadata_fn=lambda: {"name": name, "encoding": "string"},
        payload_fn=payload,
    )


def storage_id(t: Any) -> int:
    """Identity of a tensor's storage (its StorageImpl's address)."""
    return int(t.untyped_storage()._cdata)


def autograd_base(t: Any) -> Any:
    """The tensor ``t`` is a view of in autograd's record, or None."""
    return t._base


def autograd_root(t: Any) -> Any:
    """``t``'s autograd base, or ``t`` itself when it is no view."""
    b = t._base
    return t if b is None else b


def tracing_context() -> Any:
    """Dynamo's tracing context on this thread, or None."""
    return torch._guards.TracingContext.try_get()


def is_wrapper_subclass(t: Any) -> bool:
    """``t`` is a traceable wrapper subclass (DTensor, TwoTensor)."""
    return bool(torch.utils._python_dispatch.is_traceable_wrapper_subclass(t))


def attr_source(base: Any, member: str) -> Any:
    """The Dynamo source of attribute ``member`` of the value at ``base``."""
    return torch._dynamo.source.AttrSource(base, member)


def view_replay() -> bool:
    """AOTAutograd's ``view_replay_for_aliased_outputs``."""
    return bool(torch._functorch.config.view_replay_for_aliased_outputs)


def patch_view_replay(on: bool) -> Any:
    """A context manager that sets ``view_replay_for_aliased_outputs``."""
    return torch._functorch.config.patch(view_replay_for_aliased_outputs=on)


def post_grad_passes() -> Any:
    """Inductor's ``post_grad_custom_post_pass`` (None, a pass or a list)."""
    return torch._inductor.config.post_grad_custom_post_pass


def patch_post_grad_passes(passes: Any) -> Any:
    """A context manager that sets ``post_grad_custom_post_pass``."""
    return torch._inductor.config.patch(post_grad_custom_post_pass=passes)


def custom_graph_pass() -> type:
    """Inductor's ``CustomGraphPass`` base class."""
    import torch._inductor.custom_graph_pass as m

    return m.CustomGraphPass


def guard_env_expr() -> type:
    """``torch._guards.GuardEnvExpr``, the base of AOTAutograd's guards."""
    return torch._guards.GuardEnvExpr


def reset_dynamo() -> None:
    """``torch._dynamo.reset()``: every compiled frame forgotten."""
    torch._dynamo.reset()


def required_storage_length(t: Any) -> Any:
    """The elements of storage ``t`` reaches, from the storage's first."""
    return torch._prims_common.compute_required_storage_length(t.size(), t.stride(), t.storage_offset())


def mutable_args_of_schema(schema: Any) -> list[str]:
    """The names of the arguments a functionalized op's schema mutates."""
    import torch._higher_order_ops.auto_functionalize as af

    names, _types = af.get_mutable_args_from_schema(schema)
    return list(names)


def untraced() -> Any:
    """A context in which tensor ops on fake tensors are not recorded by an
    active ``make_fx`` trace (probes whose results the graph must not
    hold)."""
    import torch.fx.experimental.proxy_tensor as pt

    return pt.disable_proxy_modes_tracing()


def deferred_check(cond: Any, message: Callable[[], str]) -> None:
    """``torch._check``: raises now for a concrete false ``cond``; for a
    symbolic one, a run-time assert of the graph (never a guard)."""
    torch._check(cond, message)


def op_schema(func: Any) -> Any:
    """An op overload's schema, or None for anything that is not an
    ``OpOverload`` (the other things a dispatch mode sees)."""
    return func._schema if isinstance(func, torch._ops.OpOverload) else None


def is_hop_schema(schema: Any) -> bool:
    """Whether a functionalized op's schema is a higher-order op's."""
    import torch._higher_order_ops.schema as hs

    return isinstance(schema, hs.HopSchema)


def int_hint(x: Any) -> int:
    """The example value of an int or SymInt."""
    if isinstance(x, torch.SymInt) and x.node.hint is not None:
        return int(x.node.hint)
    return int(x)


def alias_of_function() -> Any:
    """``torch._C._is_alias_of``."""
    return torch._C._is_alias_of  # type: ignore[attr-defined]


def is_tensor_variable(vt: Any) -> bool:
    """Whether a Dynamo variable tracks a tensor."""
    import torch._dynamo.variables.tensor as vtm

    return isinstance(vt, vtm.TensorVariable)


def data_ptr_variable_class() -> Any:
    """Dynamo's ``DataPtrVariable`` (``t.data_ptr()`` while tracing)."""
    import torch._dynamo.variables.tensor as vtm

    return vtm.DataPtrVariable


def is_data_ptr_variable(vt: Any) -> bool:
    return isinstance(vt, data_ptr_variable_class())


def same_traced_data_ptr(a: Any, b: Any) -> bool:
    """Whether torch answers two ``DataPtrVariable`` itself: one traced
    tensor (through ``detach``), unchanged between the two reads."""
    return bool(a._is_same_data_ptr(b))


def constant_variable(value: Any) -> Any:
    """A Dynamo constant."""
    import torch._dynamo.variables.constant as c

    return c.ConstantVariable.create(value)


def dynamo_method(handler: Callable[..., Any]) -> Any:
    """An entry of a Dynamo variable's method table."""
    import torch._dynamo.variables.base as b

    return b.Method(handler)


def frame_locals(tx: Any) -> Any:
    """The locals of the frame Dynamo compiles (``L`` of its guards)."""
    return tx.output.root_tx.f_locals


def fx_node_storage(node: Any) -> int | None:
    """The storage of an FX node's fake value (Inductor's identity), or None."""
    import torch._inductor.fx_utils as fu

    s = fu.get_node_storage(node)
    return None if s is None else int(s)


def fx_written_nodes(node: Any) -> list[Any]:
    """The FX nodes ``node`` writes in place (Inductor's reading of its
    schema)."""
    import torch._inductor.fx_utils as fu

    return list(fu.get_mutated_input_nodes(node))


def graph_written_storages(graph: Any) -> set[int] | None:
    """The storages some node of an FX graph writes in place (Inductor's
    ``get_mutated_storages``), or None for a graph with no module."""
    import torch._inductor.fx_utils as fu

    gm = graph.owning_module
    return None if gm is None else {int(s) for s in fu.get_mutated_storages(gm)}


def inductor_graph() -> Any:
    """The ``GraphLowering`` lowering now (``V.graph``)."""
    import torch._inductor.virtualized as v

    return v.V.graph


def hop_placeholders(tracer: Any) -> list[tuple[Any, Any]]:
    """A higher-order op subgraph's placeholders while Dynamo traces it:
    ``(node, example value)``, the value unwrapped as torch's aliasing
    check reads it."""
    import torch._higher_order_ops.utils as hu

    out = []
    for node in tracer.graph.nodes:
        if node.op != "placeholder":
            break
        out.append((node, hu._collect_fake_inputs([node])[0]))  # type: ignore[no-untyped-call]
    return out


def hop_written(tracer: Any) -> set[int]:
    """The placeholders (by position) the subgraph writes: torch's
    version-counter test."""
    return set(tracer.has_input_mutation().mutated_input_indices)


def aliasing_info(found: bool, message: str) -> Any:
    """Dynamo's ``AliasingInfo`` (what ``has_aliasing`` answers)."""
    import torch._dynamo.output_graph as og

    return og.AliasingInfo(found, message)


def hop_input_findings(gm: Any, inputs: Any, pre_dispatch: bool) -> Any:
    """torch's findings on a higher-order op's subgraph while it is
    functionalized: ``((input-input, input-output, output-output alias
    maps), mutated inputs)``, or True where torch could not tell."""
    import torch._higher_order_ops.utils as hu

    return hu.potential_input_alias_or_mutation(gm, inputs, pre_dispatch)  # type: ignore[no-untyped-call]


def inplaceable_ops() -> Any:
    """Inductor's reinplace pass's table: functional op -> its in-place form
    and the indices of the arguments it mutates (``mutated_args``)."""
    import torch._inductor.fx_passes.reinplace as rp

    return rp.inplaceable_ops


def is_view_op(target: Any) -> bool:
    """Whether an FX node's target is a view op (torch's reinplace test)."""
    import torch.fx.passes.reinplace as fr

    return bool(fr._is_view_op(target))


def aot_descriptors() -> Any:
    """AOTAutograd's input descriptors module."""
    import torch._functorch._aot_autograd.descriptors as m

    return m


def output_types() -> Any:
    """AOTAutograd's ``OutputType`` enum."""
    import torch._functorch._aot_autograd.schemas as m

    return m.OutputType


def bypass_cache(reason: str) -> Exception:
    """AOTAutograd's "do not cache this" exception, with ``reason``."""
    import torch._functorch._aot_autograd.autograd_cache as m

    return m.BypassAOTAutogradCache(reason)


def backend_failure(e: BaseException) -> tuple[bool, BaseException | None]:
    """Whether ``e`` is Dynamo's ``BackendCompilerFailed``, and what it wraps."""
    if isinstance(e, torch._dynamo.exc.BackendCompilerFailed):
        return True, e.inner_exception
    return False, None


def graph_break(gb_type: str, context: str, explanation: str, hints: list[str]) -> Any:
    """Dynamo's graph break (``torch._dynamo.exc.unimplemented``); raises."""
    return torch._dynamo.exc.unimplemented(gb_type=gb_type, context=context, explanation=explanation, hints=hints)


def add_reason_function(check_fn_manager: Any, name: str, fn: Any) -> None:
    """Makes ``fn`` callable as ``name`` where Dynamo evaluates a failed
    guard's words for the recompile reason: the closure variables of the
    guard manager that ``compile_check_fn`` just built."""
    check_fn_manager.guard_manager.closure_vars[name] = fn


def graph_name(gm: Any) -> str:
    """A ``GraphModule``'s class name, as torch prints it."""
    return str(gm._get_name())


def resolve(path: str) -> Any:
    """The object at a dotted path (a module, then attributes), or None."""
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            obj = getattr(obj, name, None)
            if obj is None:
                return None
        return obj
    return None


def _has(owner: Any, name: str) -> bool:
    """Whether ``owner`` (a class, module or config) has ``name``: a
    dataclass field, a class attribute, or an attribute its ``__init__``
    (or the ``_init`` it calls, as ``ShapeEnv``'s) sets -- read from the
    source: no instance is made."""
    if dataclasses.is_dataclass(owner) and name in {f.name for f in dataclasses.fields(owner)}:
        return True
    if hasattr(owner, name):
        return True
    if not isinstance(owner, type):
        return False
    return any(f"self.{name}" in _source(inspect.getattr_static(owner, init, None)) for init in INITS)


#: The methods whose source says which attributes an instance gets.
INITS = ("__init__", "_init")


def _source(fn: Any) -> str:
    try:
        return inspect.getsource(fn) if fn is not None else ""
    except (OSError, TypeError):
        return ""


def missing_reads() -> list[str]:
    """The names of ``READS`` that this torch lacks, dotted."""
    out = []
    for where, names in READS:
        owner = resolve(where)
        out += [f"{where}.{n}" for n in names if owner is None or not _has(owner, n)]
    return out


def _signature_problem(owner: Any, where: str, attr: str, params: Sequence[str] | None, alt: Any = ()) -> str | None:
    fn = getattr(owner, attr, None) if owner is not None else None
    if fn is None:
        return f"{where}.{attr} is missing"
    if params is None:
        return None if callable(fn) or isinstance(fn, dict) else f"{where}.{attr} is not callable"
    got = list(inspect.signature(fn).parameters)
    if any(got[: len(form)] == list(form) for form in (params, *alt)):
        return None
    return f"{where}.{attr} takes {got[: len(params)]}, symalias expects {params}"


@dataclasses.dataclass
class Checked:
    """What ``check()`` found: each hook to install and its owner (the core
    and the features that are on), and why each feature that is off is off."""

    owners: dict[Hook, Any]
    off: dict[str, list[str]]


def _hook_problems(h: Hook, owner: Any) -> list[str]:
    problems = [_signature_problem(owner, h.owner, h.attr, h.params, h.alt) or ""]
    if h.static and owner is not None and not isinstance(inspect.getattr_static(owner, h.attr, None), staticmethod):
        problems.append(f"{h.owner}.{h.attr} is no longer a static method")
    if h.cls and owner is not None and not isinstance(inspect.getattr_static(owner, h.attr, None), classmethod):
        problems.append(f"{h.owner}.{h.attr} is no longer a class method")
    return [p for p in problems if p]


def check() -> Checked:
    """Resolves and checks every name (``HOOKS``, ``LAMBDA``, ``READS``).
    A problem with a name that only a feature needs turns that feature off;
    any other is a ``HookError`` naming each problem."""
    of_feature = {h: f.name for f in FEATURES for h in f.hooks}
    read_of = {r: f.name for f in FEATURES for r in f.reads}
    core: list[str] = []
    off: dict[str, list[str]] = {}
    owners: dict[Hook, Any] = {}
    for h in HOOKS:
        owner = resolve(h.owner)
        owners[h] = owner
        for p in _hook_problems(h, owner):
            (off.setdefault(of_feature[h], []) if h in of_feature else core).append(p)
    core.append(_signature_problem(resolve(LAMBDA[0]), *LAMBDA) or "")
    for name in missing_reads():
        (off.setdefault(read_of[name], []) if name in read_of else core).append(f"{name} is missing")
    post = resolve(f"{RW}.AOTSyntheticBaseWrapper.post_compile")
    if post is not None and "runtime_metadata" not in inspect.signature(post).parameters:
        core.append(f"{RW}.AOTSyntheticBaseWrapper.post_compile takes no runtime_metadata")
    cfm = resolve("torch._dynamo.guards.CheckFunctionManager")
    if cfm is not None and "aotautograd_guards" not in _source(inspect.getattr_static(cfm, "compile_check_fn", None)):
        core.append("torch._dynamo.guards.CheckFunctionManager.compile_check_fn no longer builds AOTAutograd's guards")
    source = _source(resolve(f"{RP}.reinplace_inplaceable_ops_core"))
    core += [
        f"{RP}.reinplace_inplaceable_ops_core no longer has {site!r}" for site in REINPLACE_SITES if site not in source
    ]
    core = [p for p in core if p]
    if core:
        raise HookError(f"symalias cannot hook this torch ({version()}): " + "; ".join(core))
    dropped = {h for f in FEATURES if f.name in off for h in f.hooks}
    return Checked({h: o for h, o in owners.items() if h not in dropped}, off)


def path(source: Any) -> list[tuple[Literal["item", "attr"], Any]] | None:
    """The steps from the frame's locals ``L`` to the value a Dynamo source
    names, walking its chain (``L['params'][3]``: item 'params', item 3;
    ``L['self'].w``: item 'self', attribute 'w'), or None where a link is
    not a plain item or attribute step (the guard's code passes the value)."""
    src = torch._dynamo.source
    steps: list[tuple[Literal["item", "attr"], Any]] = []
    s = source
    while True:
        kind = type(s)
        if kind is src.LocalSource:
            steps.append(("item", s.local_name))
            steps.reverse()
            return steps
        if kind in (src.AttrSource, src.ParamBufferSource, src.UnspecializedParamBufferSource, src.CellContentsSource):
            steps.append(("attr", s.member))
        elif kind in (src.GetItemSource, src.ListGetItemSource) and not s.index_is_slice:
            if type(s.index) not in (int, str):
                return None
            steps.append(("item", s.index))
        elif kind is src.DictGetItemSource and type(s.index) in (int, str):
            steps.append(("item", s.index))
        elif not isinstance(s, src.NNModuleSource):  # names its base: no step
            return None
        s = s.base
