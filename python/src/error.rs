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

/// Bad input: the message names the case and the field, as the CLI's does;
/// `message`, `field` and `case_id` hold the parts.
#[pyclass(extends = PyValueError, module = "symalias._native", name = "InputError", frozen)]
pub(crate) struct PyInputError {
    /// What is wrong.
    #[pyo3(get)]
    message: String,
    /// The field path, when known.
    #[pyo3(get)]
    field: Option<String>,
    /// The case's `id`, when known.
    #[pyo3(get)]
    case_id: Option<String>,
    text: String,
}

#[pymethods]
impl PyInputError {
    /// An error from its parts, positional (`ValueError.__init__` takes no
    /// keywords); its text is rendered as the engine's.
    #[new]
    #[pyo3(signature = (message, field = None, case_id = None, /))]
    fn new(message: String, field: Option<String>, case_id: Option<String>) -> Self {
        let text = EngineInputError {
            line: None,
            id: case_id.clone(),
            field: field.clone(),
            message: message.clone(),
        }
        .to_string();
        PyInputError {
            message,
            field,
            case_id,
            text,
        }
    }

    fn __str__(&self) -> &str {
        &self.text
    }

    fn __repr__(&self) -> String {
        format!("InputError({:?})", self.text)
    }
}

/// The engine's located error as a Python `InputError`.
pub(crate) fn located(e: EngineInputError) -> PyErr {
    let text = EngineInputError {
        line: None,
        ..e.clone()
    }
    .to_string();
    raise(PyInputError {
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
    raise(PyInputError {
        text: format!("{field}: {message}"),
        message,
        field: Some(field),
        case_id: None,
    })
}

/// An error with no field (an expression that does not parse).
pub(crate) fn plain(message: String) -> PyErr {
    raise(PyInputError {
        text: message.clone(),
        message,
        field: None,
        case_id: None,
    })
}

fn raise(e: PyInputError) -> PyErr {
    Python::attach(|py| match Bound::new(py, e) {
        Ok(obj) => PyErr::from_value(obj.into_any()),
        Err(err) => err,
    })
}
