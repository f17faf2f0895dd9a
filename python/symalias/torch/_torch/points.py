"""The table of hook points: every torch function symalias replaces and
every torch config it patches, one row each -- which torch name, which
function of ``symalias.torch`` replaces (or patches) it, the part of the
design it belongs to (H1-H13 of docs/PYTORCH.md section 9, or a named
part), the feature that may turn it off, and why, in one line.

This is the one place to learn "which torch function, which file, why";
``docs/torch/hooks.md`` is rendered from it (``test_torch_hooks.py``
keeps the two equal, and fails when a ``wrap_*`` function of the package
is in no row or a row names a function that does not exist). Everything
else symalias reads of torch, without replacing it, is ``READS``.

A row names its replacing function by ``module.function`` inside
``symalias.torch`` (resolved by ``install()``): this table is the ground
floor of the package and imports nothing above it. The function, given
torch's function, returns what replaces it.

Facts relied on, for torch 2.15:

* AOTAutograd decides aliasing in ``runtime_wrappers`` and keys its cache
  in ``autograd_cache``;
* Dynamo builds AOTAutograd's guards in ``CheckFunctionManager
  .compile_check_fn``, after a user's ``guard_filter_fn``;
* Inductor's reinplace pass decides aliasing inside
  ``reinplace_inplaceable_ops_core`` through three names of its module
  (``compute_overlapping_tensors``, ``get_node_storage``, ``OrderedSet``);
* a source is a chain (``torch._dynamo.source``): ``LocalSource`` at the
  root, ``AttrSource`` / ``GetItemSource`` / ``DictGetItemSource`` steps,
  ``NNModuleSource`` wrappers that name their base.
"""

from __future__ import annotations

import dataclasses

__all__ = [
    "FEATURES",
    "HOOKS",
    "LAMBDA",
    "PATCHES",
    "POINTS",
    "READS",
    "REINPLACE_SITES",
    "Feature",
    "Hook",
    "Patch",
]


@dataclasses.dataclass(frozen=True, eq=False)
class Hook:
    """One replaced torch attribute (a hook is its own key: compared by
    identity)."""

    #: Where: a dotted path to the module or class that holds it.
    owner: str
    attr: str
    #: The parameters it must start with (None: a builtin, a class or a
    #: method table, whose signature is not compared).
    params: tuple[str, ...] | None
    #: The part of the design (``H1``..``H13``, or ``guards``, ``caches``,
    #: ``fallback``, ``artifacts``, ``replay``).
    part: str
    #: What replaces it: ``module.function`` of ``symalias.torch``, which,
    #: given torch's function, returns its replacement.
    by: str
    #: Why, in one line.
    why: str
    #: The optional feature it belongs to (None: the core, fail-closed).
    feature: str | None = None
    static: bool = False
    #: A class method (replaced by one; ``params`` after ``cls``).
    cls: bool = False
    #: A method table (a dict), replaced by a larger one.
    table: bool = False
    #: Other accepted forms of ``params`` (older releases), which the
    #: replacing function adapts to.
    alt: tuple[tuple[str, ...], ...] = ()

    @property
    def name(self) -> str:
        return f"{self.owner}.{self.attr}"


@dataclasses.dataclass(frozen=True, eq=False)
class Patch:
    """One torch config entry symalias sets for part of a compile (through
    the config's own ``patch``), never for good."""

    owner: str
    attr: str
    part: str
    #: The function of ``symalias.torch`` that patches it.
    by: str
    why: str
    feature: str | None = None

    @property
    def name(self) -> str:
        return f"{self.owner}.{self.attr}"


RW = "torch._functorch._aot_autograd.runtime_wrappers"
AC = "torch._functorch._aot_autograd.autograd_cache"
SC = "torch._functorch._aot_autograd.schemas"
SRC = "torch._dynamo.source"
RP = "torch._inductor.fx_passes.reinplace"
HOP = "torch._dynamo.variables.higher_order_ops"
HU = "torch._higher_order_ops.utils"
AF = "torch._higher_order_ops.auto_functionalize"
DV = "torch._dynamo.variables"

DECISION = Hook(
    RW,
    "compute_overlapping_inputs",
    ("aot_config", "fwd_inputs", "aliased_input_indices"),
    "H1",
    "_inputs.wrap_compute_overlapping_inputs",
    "AOTAutograd's overlap decision: the exact overlapping inputs, in bytes, proved for every allowed shape",
)
MERGE = Hook(
    RW,
    "merge_view_inputs",
    ("aot_config", "fwd_inputs", "fwd_inputs_descs", "mutated_input_info"),
    "H3",
    "_merge.wrap_merge_view_inputs",
    "the synthetic-base step: the recipe, cross-storage and self-overlap facts, byte-level bases, refusals run eagerly",
)
ALIAS_OF_INPUT = Hook(
    f"{RW}.AliasOfInputHandler",
    "__init__",
    ("self", "info", "runtime_metadata", "trace_joint"),
    "replay",
    "_merge.wrap_alias_of_input",
    "an output viewing an input that was not merged keeps the user's view replay",
)
GEN_ALIAS = Hook(
    RW,
    "gen_alias_from_base",
    ("aliased_base_tensor", "target_meta_tensor", "target_requires_grad"),
    "H4",
    "_regenerate.wrap_gen_alias_from_base",
    "a member of a byte-level (or torch's) synthetic base regenerated in its own dtype at its own offset",
)
SYNTHETIC_META = Hook(
    RW,
    "create_synthetic_base_metadata",
    ("m", "synthetic_base_info", "outer_args"),
    "H4",
    "_regenerate.wrap_synthetic_base_metadata",
    "the metadata of a byte-level base's members, read in their own dtypes",
)
SYNTHETIC_POST = Hook(
    f"{RW}.AOTSyntheticBaseWrapper",
    "post_compile",
    ("self", "compiled_fn", "aot_config"),
    "H4",
    "_wrapper.wrap_post_compile",
    "the run-time wrapper of a byte-level base: builds it from the members' bytes on each call",
)
USER_COMPILER = Hook(
    "torch._dynamo.output_graph.OutputGraph",
    "call_user_compiler",
    ("self", "gm", "example_inputs"),
    "fallback",
    "_merge.wrap_call_user_compiler",
    "opens the compile record, seals its facts into one guard, runs eagerly what AOTAutograd cannot build right",
)
CHECK_FN = Hook(
    "torch._dynamo.guards.CheckFunctionManager",
    "compile_check_fn",
    ("self", "builder", "guards_out", "guard_fail_fn"),
    "H2",
    "_checks.wrap_compile_check_fn",
    "installs the frame's facts as one native check after every guard filter, also for a loaded artifact",
)
LOAD_GUARDS = Hook(
    "torch._dynamo.package",
    "load_guard_manager",
    ("guards_state", "target_code", "runtime_global_scope"),
    "artifacts",
    "_checks.wrap_load_guard_manager",
    "a saved artifact made without symalias never passes its guards",
)
CACHE_KEY = Hook(
    AC,
    "autograd_cache_key",
    ("mod", "example_inputs", "config"),
    "caches",
    "_cache.wrap_key",
    "AOTAutograd's cache key carries symalias's decision where inputs share a storage, and the reinplace mark",
    alt=(("gm", "example_inputs", "config"),),
)
CACHE_TRY_LOAD = Hook(
    f"{AC}.AOTAutogradCache",
    "try_load",
    ("mod", "args", "aot_config"),
    "caches",
    "_cache.wrap_try_load",
    "a cache hit restores the decision and re-installs the same facts a compile installs",
    static=True,
)
CACHE_LOOKUP = Hook(
    f"{AC}.AOTAutogradCache",
    "_lookup",
    ("key", "local", "remote", "args", "cache_info", "aot_config"),
    "caches",
    "_cache.wrap_lookup",
    "an entry not made under this symalias decision is a miss",
    static=True,
)
CACHE_SAVE = Hook(
    f"{AC}.AOTAutogradCache",
    "save",
    ("key", "entry", "remote"),
    "caches",
    "_cache.wrap_save",
    "the recipe rides in the entry; compiles a hit could not rebuild are not saved",
    static=True,
)
HOP_STORAGES = Hook(
    HOP,
    "subgraph_mutated_input_storages",
    ("subgraph", "mutated_input_indices"),
    "H6",
    "_hop.wrap_subgraph_storages",
    "a higher-order op's subgraph mutations kept as tensors, to be matched to inputs by bytes",
    feature="hop_mutated_inputs",
)
HOP_PARENTS = Hook(
    HOP,
    "parent_mutated_input_indices",
    ("parent_inputs", "mutated_input_storages"),
    "H6",
    "_hop.wrap_parent_indices",
    "an input overlapping a tensor the subgraph mutates is refused with torch's aliasing error",
    feature="hop_mutated_inputs",
)
HOP_ALIASING = Hook(
    "torch._dynamo.output_graph.SubgraphTracer",
    "has_aliasing",
    ("self", "allow_input_input_aliasing"),
    "H6",
    "_hop.wrap_has_aliasing",
    "Dynamo accepts a subgraph's inputs of one storage when read-only or disjoint in bytes",
    feature="hop_input_aliasing",
)
HOP_FUNCTIONAL = Hook(
    HU,
    "_check_alias_and_mutation",
    ("graph_module", "inputs_fake", "name", "pre_dispatch"),
    "H6",
    "_hop.wrap_check_alias_and_mutation",
    "the functionalized subgraph's aliasing check decides inputs of one storage by bytes",
    feature="hop_input_aliasing",
)
HOP_FUNCTIONAL_WHILE = Hook(
    "torch._higher_order_ops.while_loop",
    "_check_alias_and_mutation",
    ("graph_module", "inputs_fake", "name", "pre_dispatch"),
    "H6",
    "_hop.wrap_check_alias_and_mutation",
    "the same check, as while_loop binds it by name",
    feature="hop_input_aliasing",
)
CONCAT = Hook(
    "torch._inductor.ir.ConcatKernel",
    "create",
    ("inputs", "dim"),
    "H10",
    "_concat.wrap_create",
    "Inductor's cat copies an input only where a later write touches it or the result it lives in",
    feature="concat_inputs",
    cls=True,
)
NOOPS = Hook(
    "torch._inductor.fx_passes.post_grad",
    "remove_noop_ops",
    ("graph",),
    "H13",
    "_noops.wrap_remove_noop_ops",
    "a clone kept where its operand is written before a reader or it returns an input; H12's clones given back",
    feature="noop_reads",
)
JOINT_NOOPS = Hook(
    "torch._inductor.fx_passes.joint_graph",
    "remove_no_ops",
    ("gm", "zeros", "ones"),
    "H13",
    "_noops.wrap_remove_no_ops",
    "v * 1, v + 0, v / 1 kept where v's bytes are written before a reader or the result would be an input",
    feature="noop_reads",
)
SAVED_VIEWS = Hook(
    RW,
    "_codegen_compiled_forward",
    ("fw_metadata", "backward_state_indices", "disable_amp", "num_rng"),
    "H13",
    "_versions.wrap_codegen_forward",
    "a saved view of an input keeps the input's version counter: autograd's in-place check holds",
    feature="saved_versions",
)
LOWER_CALL = Hook(
    "torch._inductor.graph.GraphLowering",
    "call_function",
    ("self", "target", "args", "kwargs"),
    "H13",
    "_offsets.wrap_call_function",
    "sym_storage_offset lowered to the node's own value: a custom op's view of an input keeps its offset",
    feature="storage_offsets",
)
DATA_PTR_COMPARE = Hook(
    f"{DV}.tensor.DataPtrVariable",
    "tp_richcompare_impl",
    ("self", "tx", "other", "op"),
    "H11",
    "_address.wrap_data_ptr_compare",
    "two inputs' data_ptr() compared: a constant kept by a run-time check, not a graph break",
    feature="address_checks",
)
STORAGE_METHODS = Hook(
    f"{DV}.tensor.UntypedStorageVariable",
    "tp_methods",
    None,
    "H11",
    "_address.wrap_storage_methods",
    "a storage's data_ptr() on an input, traced as a checked constant",
    feature="address_checks",
    table=True,
)
TENSOR_METHODS = Hook(
    f"{DV}.tensor.TensorVariable",
    "tp_methods",
    None,
    "H11",
    "_address.wrap_tensor_methods",
    "is_set_to between inputs, traced as a checked constant",
    feature="address_checks",
    table=True,
)
TORCH_CALL = Hook(
    f"{DV}.torch.TorchInGraphFunctionVariable",
    "call_function",
    ("self", "tx", "args", "kwargs"),
    "H11",
    "_address.wrap_torch_call",
    "torch._C._is_alias_of between inputs, traced as a checked constant",
    feature="address_checks",
)
FUNCTIONAL_ARGS = Hook(
    AF,
    "_generate_new_op_kwargs_from_bases",
    ("schema", "kwargs", "all_bases", "_only_clone_these_bases", "_is_out"),
    "H7",
    "_functionalized.wrap_generate_op_kwargs",
    "a read-only argument overlapping a mutated one reads the mutated base's clone",
    alt=(("schema", "kwargs", "all_bases", "_only_clone_these_bases"),),
)
FAKE_DISPATCH = Hook(
    "torch._subclasses.fake_tensor.FakeTensorMode",
    "dispatch",
    ("self", "func", "types", "args", "kwargs"),
    "H9",
    "_overlap_errors.wrap_fake_dispatch",
    "eager's partial-overlap error for in-place pointwise ops, raised while Dynamo traces them",
)
FX_GRAPH_HASH = Hook(
    "torch._inductor.codecache",
    "compiled_fx_graph_hash",
    ("gm", "example_inputs", "fx_kwargs", "inputs_to_check"),
    "caches",
    "_cache.wrap_fx_graph_hash",
    "Inductor's FX graph cache key carries the reinplace mark",
)
REINPLACE_CORE = Hook(
    RP,
    "reinplace_inplaceable_ops_core",
    ("graph",),
    "H5",
    "_reinplace.wrap_core",
    "the reinplace pass runs with symalias's answers switched on (and H8's epilogue clones first)",
)
REINPLACE_STORAGE = Hook(
    RP,
    "get_node_storage",
    ("node",),
    "H5",
    "_reinplace.wrap_get_node_storage",
    "a mutated argument's storage, read so disjoint arguments of one storage count apart",
)
REINPLACE_SET = Hook(
    RP,
    "OrderedSet",
    None,
    "H5",
    "_reinplace.wrap_ordered_set",
    "the pass's set of reinplaced storages answers membership in bytes",
)
REINPLACE_OVERLAP = Hook(
    RP,
    "compute_overlapping_tensors",
    None,
    "H5",
    "_reinplace.wrap_compute_overlapping",
    "the pass's pair test, exact in bytes for every allowed shape",
)

#: Every replaced torch attribute, in the order ``install()`` replaces them.
HOOKS: tuple[Hook, ...] = (
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
    JOINT_NOOPS,
    SAVED_VIEWS,
    LOWER_CALL,
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
)

#: Every torch config symalias sets for part of a compile.
PATCHES: tuple[Patch, ...] = (
    Patch(
        "torch._functorch.config",
        "view_replay_for_aliased_outputs",
        "H4",
        "_compile.hold_view_replay_off",
        "off for a compile with a synthetic base: replayed views of merged inputs land at the wrong offset",
    ),
    Patch(
        "torch._inductor.config",
        "post_grad_custom_post_pass",
        "H4",
        "_ordering.hold_ordering_pass",
        "a pass added while a byte-level base compiles: its members' dtype views read before its bytes are written",
    ),
)

#: The whole table.
POINTS: tuple[Hook | Patch, ...] = (*HOOKS, *PATCHES)


@dataclasses.dataclass(frozen=True)
class Feature:
    """A part of symalias.torch that only *adds* to what stock torch does
    (fixes a refusal, a copy, a graph break), so that a release lacking one
    of its names runs without it -- as that release's stock does --
    instead of refusing ``install()``. Everything not in a feature is
    needed for soundness and stays fail-closed. Its hook points are the
    rows that name it; ``reads``: names of ``READS`` only this feature
    reads (dotted)."""

    name: str
    summary: str
    reads: tuple[str, ...] = ()

    @property
    def hooks(self) -> tuple[Hook, ...]:
        return tuple(h for h in HOOKS if h.feature == self.name)


#: The optional features, each off on a torch that lacks one of its names
#: (said once in the log and in ``symalias.torch.features()``).
FEATURES: tuple[Feature, ...] = (
    Feature("hop_mutated_inputs", "higher-order ops map a subgraph's mutations to inputs by bytes"),
    Feature(
        "hop_input_aliasing",
        "higher-order ops accept read-only or disjoint inputs of one storage",
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
        (
            "torch._inductor.graph.GraphLowering.current_node",
            "torch._inductor.graph.GraphLowering.mutated_storages",
            "torch._inductor.fx_utils.get_mutated_input_nodes",
        ),
    ),
    Feature(
        "noop_reads",
        "Inductor's no-op removal keeps an op whose operand is written before a reader, or that would return an input",
        ("torch._inductor.fx_passes.post_grad.noop_registry", "torch._inductor.fx_utils.get_fake_args_kwargs"),
    ),
    Feature(
        "saved_versions",
        "a tensor saved for backward that views an input shares its version counter, as in eager",
        (
            f"{SC}.ViewAndMutationMeta.saved_tensor_is_graph_input",
            f"{SC}.ViewAndMutationMeta.tensors_saved_for_backwards_with_vc_check_slice",
        ),
    ),
    Feature(
        "storage_offsets",
        "Inductor lowers sym_storage_offset to the node's value, as it does sym_size and sym_stride",
        ("torch._inductor.graph.GraphLowering.current_node",),
    ),
    Feature(
        "input_clones",
        "a user's clone of an input, dropped by Inductor's no-op removal, given back to the op writing it",
        ("torch._inductor.fx_utils.get_mutated_storages",),
    ),
    Feature(
        "trace_artifacts",
        "each decision written into the structured trace (TORCH_TRACE) for tlparse: its picture and its text",
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
        (f"{RW}.AOTSyntheticBaseWrapper.base_groups", f"{RW}.AOTSyntheticBaseWrapper.other_arg_indices"),
    ),
)

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
    (
        f"{SC}.ViewAndMutationMeta",
        [
            "input_info",
            "output_info",
            "saved_tensor_is_graph_input",
            "tensors_saved_for_backwards_with_vc_check_slice",
        ],
    ),
    (
        f"{RW}.AOTSyntheticBaseWrapper",
        ["needs_post_compile", "base_groups", "other_arg_indices", "aliased_arg_idx_with_metadata_mutations"],
    ),
    (f"{RW}.AliasOfInputHandler", ["replay_views"]),
    (AC, ["BypassAOTAutogradCache"]),
    (
        "torch._functorch._aot_autograd.descriptors",
        ["DummyAOTInput", "SyntheticBaseAOTInput", "TangentAOTInput", "ViewBaseAOTInput"],
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
    ("torch._inductor.custom_graph_pass", ["CustomGraphPass"]),
    ("torch._prims_common", ["compute_required_storage_length"]),
    (AF, ["get_mutable_args_from_schema"]),
    ("torch._higher_order_ops.schema", ["HopSchema"]),
    (HU, ["potential_input_alias_or_mutation", "_collect_fake_inputs"]),
    (
        "torch._inductor.fx_utils",
        ["get_node_storage", "get_mutated_input_nodes", "get_mutated_storages", "get_fake_args_kwargs"],
    ),
    ("torch._inductor.fx_passes.post_grad", ["noop_registry"]),
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
