"""The accessors: every private torch name the rest of the package uses,
one function each (polars' ``dependencies.py`` is the model).

The other modules reach torch internals only through these; a test scans
the package for any other private torch read (``test_torch_hooks.py``).
Each name used here is listed in ``points.READS`` or is a hook point of
``points.POINTS``, and so is checked at ``install()`` (``verify``).
Nothing here holds state or decides.
"""

from __future__ import annotations

import importlib
import os
from typing import Any, Callable, Literal

import torch
import torch._dynamo
import torch._dynamo.source
import torch._functorch.config
import torch._guards
import torch._inductor.config
import torch._prims_common
import torch.utils._python_dispatch


def forget_compiled_frames() -> None:
    """Drops Dynamo's compiled code (``torch._dynamo.reset``): a frame
    compiled before ``install()`` carries stock's decision and none of
    symalias's checks, and would otherwise be run again as it is."""
    torch._dynamo.reset()


def version() -> str:
    """This torch's version string (``2.15.0+cu132``)."""
    return str(torch.__version__)


def tracing_structured() -> bool:
    """A structured trace (``TORCH_TRACE``) is being written: torch's trace
    handler has its directory (or its file). Other handlers on the trace
    logger (pytest's capture, say) write no trace, and torch's handler
    without a directory writes nothing (it drops itself at the first
    record). Whether the ``trace_artifacts`` feature runs is the caller's
    question (``_state.feature_on``)."""
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


def add_leaf(builder: Any, source: Any, fn: Any, verbose: list[str]) -> bool:
    """Adds ``fn`` as a lambda leaf on the guard manager of ``source`` in
    Dynamo's guard tree (``source`` None: on the root, where leaves run
    before any child manager); False where this torch's builder cannot
    (the check then fetches that tensor itself)."""
    try:
        manager = builder.guard_manager.root if source is None else builder.get_guard_manager_from_source(source)
        manager.add_lambda_guard(fn, verbose, None)
    except Exception:  # any refusal: the check reads the tensor itself
        return False
    return True


def add_epilogue(builder: Any, fn: Any, verbose: list[str]) -> bool:
    """Adds ``fn`` (called with the frame's locals) as an epilogue leaf of
    Dynamo's root, run after every other guard; False where this torch's
    builder cannot."""
    try:
        builder.guard_manager.root.add_epilogue_lambda_guard(fn, verbose, None)
    except Exception:  # any refusal: the guard's code calls the check
        return False
    return True


def reader_library() -> str:
    """The path of the loaded ``libtorch_cpu`` (its C shim for AOTInductor
    is what the native tensor reader calls)."""
    return os.path.join(os.path.dirname(torch.__file__), "lib", "libtorch_cpu.so")


def reader_header() -> str | None:
    """The text of the installed torch's ``python_variable.h`` (the layout
    of a tensor's Python object), or None when the wheel ships no headers."""
    path = os.path.join(os.path.dirname(torch.__file__), "include", "torch", "csrc", "autograd", "python_variable.h")
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError:
        return None


def reader_types() -> list[type]:
    """The tensor types the native reader reads: those whose methods are
    torch's own (no ``__torch_function__`` of their own)."""
    return [torch.Tensor, torch.nn.Parameter]


def reader_probes() -> list[Any]:
    """Tensors of every common dtype and of many layouts, to verify the
    native reader on (each exactly of a ``reader_types`` type)."""
    dtypes = [
        torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.complex64, torch.complex128,
        torch.int8, torch.uint8, torch.int16, torch.int32, torch.int64, torch.bool,
    ]  # fmt: skip
    out: list[Any] = [torch.zeros(3, 5, dtype=d)[1:, 2:] for d in dtypes]
    base = torch.arange(60.0).reshape(3, 4, 5)
    out += [
        base,
        base.transpose(0, 2),
        base[1:, ::2, 3],
        base[2, 3, 4],  # zero-dim, offset 59
        base.reshape(-1)[7:7],  # empty, offset 7
        torch.zeros(4, 1).expand(4, 6),  # stride 0
        torch.tensor(1.5),
        torch.empty(0),
        base.as_strided((2, 2), (1, 1), 3),
        torch.zeros(2, 3, requires_grad=True),
    ]
    p = torch.nn.Parameter(torch.ones(6, 2))
    out += [p, p[2:].detach(), p.view(2, 6)]
    other = torch.zeros(10)
    moved = torch.empty(0)
    moved.set_(other.untyped_storage(), 2, (2, 3), (3, 1))
    out += [moved]
    return out


def reader_expected(t: Any) -> tuple[int, int, list[int], list[int], int]:
    """What torch's Python methods read of a probe: its storage's
    ``StorageImpl*``, offset, sizes, strides and itemsize."""
    return (int(t.untyped_storage()._cdata), t.storage_offset(), list(t.size()), list(t.stride()), t.element_size())


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


def is_post_grad_noop(node: Any) -> bool:
    """Whether Inductor's post-grad ``remove_noop_ops`` may replace an FX
    node by an operand: its target in the pass's ``noop_registry`` and the
    entry's condition true on the node's fake arguments."""
    import torch._inductor.fx_passes.post_grad as pg
    import torch._inductor.fx_utils as fu

    if node.op != "call_function":
        return False
    entry = pg.noop_registry.get(node.target)
    if entry is None:
        return False
    ok, args, kwargs = fu.get_fake_args_kwargs(node)
    return bool(ok and entry[0](*args, **kwargs))


def lowering_node(graph_lowering: Any) -> Any:
    """The FX node a ``GraphLowering`` is lowering now (``current_node``)."""
    return graph_lowering.current_node


def sym_expr(v: Any) -> Any:
    """An int, or a SymInt's sympy expression (what Inductor's lowerings
    take for a size)."""
    return v.node.expr if isinstance(v, torch.SymInt) else int(v)


def functionalized_mutation_ops() -> frozenset[Any]:
    """The functionalized forms of a mutating op, whose results the
    reinplace pass may later place in the mutated inputs' memory."""
    hop = torch.ops.higher_order
    return frozenset((hop.auto_functionalized, hop.auto_functionalized_v2))


def is_tangent_placeholder(node: Any) -> bool:
    """Whether an FX placeholder is a backward graph's incoming gradient
    (AOTAutograd's ``TangentAOTInput`` descriptor)."""
    import torch._functorch._aot_autograd.descriptors as d

    return isinstance(node.meta.get("desc"), d.TangentAOTInput)


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
