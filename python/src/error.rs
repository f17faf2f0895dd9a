//! `symalias.InputError`: bad input, with its parts as attributes (like
//! pydantic-core's errors): `message` (what is wrong), `field` (the field
//! path, e.g. `tensors[1].sizes[0]`), `case_id` (the document's `id`). Its
//! text is the engine's located message (`io::InputError`'s rendering),
//! the same as the CLI's without the line number. The errors the torch
//! readers raise are defined here too (`UnbackedSymbolError`,
//! `DifferentStoragesError`, both `ValueError`s), so that the binding never
//! imports the package above it.

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use symalias::io::InputError as EngineInputError;

create_exception!(
    symalias._native,
    UnbackedSymbolError,
    PyValueError,
    "A layout uses a data-dependent (unbacked) symbol: no hint to decide at."
);
create_exception!(
    symalias._native,
    DifferentStoragesError,
    PyValueError,
    "The tensors are not all views of one storage."
);

/// `tensors[0]` and `tensors[other]` are views of different storages.
pub(crate) fn different_storages(other: usize) -> PyErr {
    DifferentStoragesError::new_err(format!(
        "tensors[0] and tensors[{other}] are views of different storages; \
         compute_overlapping_tensors compares views of one storage \
         (group the tensors by storage first)"
    ))
}

/// Symbols (by name) without a hint.
pub(crate) fn unbacked(names: &[String]) -> PyErr {
    let what = match names {
        [one] => format!("symbol {one} is"),
        _ => format!("symbols {} are", names.join(", ")),
    };
    UnbackedSymbolError::new_err(format!(
        "{what} data-dependent (unbacked): it has no example value"
    ))
}

/// Two error classes defined in Python source run by the binding (the
/// stable ABI cannot subclass `ValueError` from Rust):
///
/// - `InputError`, bad input: the message names the case and the field, as
///   the CLI's does; `message`, `field` and `case_id` hold the parts; its
///   text is rendered by the engine ([`render_input_error`]) or given by
///   the binding (`_text`);
/// - `TooHardError`, numpy's: a `max_work` bound was reached. `_too_hard`
///   makes one that is also numpy's `TooHardError` when numpy is loaded
///   (never imported here), so that code written for numpy catches it.
const ERRORS: &std::ffi::CStr = c"
import sys as _sys

class TooHardError(RuntimeError):
    \"\"\"The work bound (``max_work``) was reached before an answer.\"\"\"

_joint = {}

def _too_hard(message):
    np = _sys.modules.get('numpy')
    foreign = getattr(getattr(np, 'exceptions', np), 'TooHardError', None)
    if not (isinstance(foreign, type) and issubclass(foreign, BaseException)):
        return TooHardError(message)
    joint = _joint.get(foreign)
    if joint is None:
        joint = _joint[foreign] = type('TooHardError', (TooHardError, foreign), {'__module__': __name__})
    return joint(message)

class InputError(ValueError):
    \"\"\"Bad input. ``str(e)`` is the engine's located message (the case and
    the field, as the CLI's); the parts are attributes.\"\"\"

    def __init__(self, message, field=None, case_id=None, /):
        super().__init__(message, field, case_id)
        self.message = message
        self.field = field
        self.case_id = case_id
        self._text = _render(message, field, case_id)

    def __str__(self):
        return self._text

    def __repr__(self):
        return f'InputError({self._text!r})'
";

/// The classes and the maker that [`ERRORS`] defines.
struct Defined {
    input_error: Py<pyo3::types::PyType>,
    too_hard_error: Py<pyo3::types::PyType>,
    too_hard: Py<PyAny>,
}

static DEFINED: pyo3::sync::PyOnceLock<Defined> = pyo3::sync::PyOnceLock::new();

/// The engine's rendering of an error's parts (what `InputError` shows).
#[pyfunction]
pub(crate) fn render_input_error(
    message: String,
    field: Option<String>,
    case_id: Option<String>,
) -> String {
    EngineInputError {
        line: None,
        id: case_id,
        field,
        message,
    }
    .to_string()
}

/// Defines `InputError` and `TooHardError` in `module` (once per process).
pub(crate) fn add_python_errors(module: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = module.py();
    let defined = DEFINED.get_or_try_init(py, || -> PyResult<_> {
        let globals = pyo3::types::PyDict::new(py);
        globals.set_item("__name__", "symalias._native")?;
        globals.set_item("_render", wrap_pyfunction!(render_input_error, module)?)?;
        py.run(ERRORS, Some(&globals), None)?;
        let get = |name: &str| -> PyResult<Bound<'_, PyAny>> {
            globals
                .get_item(name)?
                .ok_or_else(|| PyValueError::new_err(format!("{name} was not defined")))
        };
        Ok(Defined {
            input_error: get("InputError")?
                .cast_into::<pyo3::types::PyType>()?
                .unbind(),
            too_hard_error: get("TooHardError")?
                .cast_into::<pyo3::types::PyType>()?
                .unbind(),
            too_hard: get("_too_hard")?.unbind(),
        })
    })?;
    module.add("InputError", defined.input_error.bind(py))?;
    module.add("TooHardError", defined.too_hard_error.bind(py))
}

/// numpy's `TooHardError` with `message` (also numpy's when it is loaded).
pub(crate) fn too_hard(py: Python<'_>, message: &str) -> PyErr {
    let Some(defined) = DEFINED.get(py) else {
        return pyo3::exceptions::PyRuntimeError::new_err(message.to_string());
    };
    match defined.too_hard.bind(py).call1((message,)) {
        Ok(e) => PyErr::from_value(e),
        Err(e) => e,
    }
}

/// The parts of an `InputError` and its text.
struct Parts {
    message: String,
    field: Option<String>,
    case_id: Option<String>,
    text: String,
}

/// The engine's located error as a Python `InputError`.
pub(crate) fn located(e: EngineInputError) -> PyErr {
    let text = EngineInputError {
        line: None,
        ..e.clone()
    }
    .to_string();
    raise(Parts {
        message: e.message,
        field: e.field,
        case_id: e.id,
        text,
    })
}

/// An error about one field, written `field: message` (the text the
/// binding has always used for documents it converts itself).
pub(crate) fn at_field(field: impl Into<String>, message: impl std::fmt::Display) -> PyErr {
    let field = field.into();
    let message = message.to_string();
    raise(Parts {
        text: format!("{field}: {message}"),
        message,
        field: Some(field),
        case_id: None,
    })
}

/// An error with no field (an expression that does not parse).
pub(crate) fn plain(message: String) -> PyErr {
    raise(Parts {
        text: message.clone(),
        message,
        field: None,
        case_id: None,
    })
}

fn raise(e: Parts) -> PyErr {
    Python::attach(|py| {
        let made = (|| -> PyResult<Bound<'_, PyAny>> {
            let defined = DEFINED
                .get(py)
                .ok_or_else(|| PyValueError::new_err(e.text.clone()))?;
            let obj = defined
                .input_error
                .bind(py)
                .call1((e.message, e.field, e.case_id))?;
            obj.setattr("_text", e.text)?;
            Ok(obj)
        })();
        match made {
            Ok(obj) => PyErr::from_value(obj),
            Err(err) => err,
        }
    })
}
