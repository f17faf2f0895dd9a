//! The one SymInt reader: a storage group of torch tensors -- real or
//! fake, with SymInt layouts -- read into layout fields without guarding.
//!
//! A node that is a constant gives its int; otherwise its expression's text
//! (a symbol's name directly, anything else printed once per expression)
//! and, per free symbol, its hint, range and source from the ShapeEnv's
//! tables -- or, in the hint-only mode, its value at the hints. Never a
//! comparison on a SymInt (that would add a ShapeEnv guard). The decision
//! (`decide.rs`) loads what is read here into the engine.

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyInt, PyTuple};
use std::collections::BTreeMap;
use symalias::env::SymbolDecl;
use symalias::io::ExprField;

use crate::tensors::{call, check_strided, Method};

/// The symbols met while reading one group.
struct Symbols<'py> {
    decls: BTreeMap<String, SymbolDecl>,
    /// Expression -> its text (a Python dict: sympy expressions hash).
    text: Bound<'py, PyDict>,
    /// The ShapeEnv's hint table, found on the first symbol.
    hints: Option<Bound<'py, PyAny>>,
    /// Each SymInt is read as its value at the hints (no symbols declared).
    hints_only: bool,
    /// A symbol without a hint (unbacked) takes its range's lower bound (or
    /// upper, when unbounded below) as hint: only a proof for all shapes
    /// means anything then.
    unbacked: bool,
    /// Each symbol's source is read (`SymbolDecl::source`, for guards).
    sources: bool,
}

/// A sympy bound as an i64; None for an infinity or anything else.
fn bound(v: &Bound<'_, PyAny>) -> PyResult<Option<i64>> {
    if let Ok(i) = v.cast::<PyInt>() {
        return Ok(i.extract().ok());
    }
    let py = v.py();
    if v.getattr(intern!(py, "is_Integer"))
        .and_then(|b| b.is_truthy())
        .unwrap_or(false)
    {
        return Ok(py.get_type::<PyInt>().call1((v,))?.extract().ok());
    }
    Ok(None)
}

/// The first run-time source of symbol `s` in the ShapeEnv, by its name.
fn source_of(shape_env: &Bound<'_, PyAny>, s: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
    let py = s.py();
    let sources = shape_env
        .getattr(intern!(py, "var_to_sources"))?
        .call_method1(intern!(py, "get"), (s,))?;
    if sources.is_none() || sources.len()? == 0 {
        return Ok(None);
    }
    let mut n = sources.get_item(0)?.getattr(intern!(py, "name"))?;
    if n.is_callable() {
        n = n.call0()?;
    }
    Ok(Some(n.extract()?))
}

impl<'py> Symbols<'py> {
    /// The ShapeEnv's hint table (`backed_var_to_val`; torch 2.15's
    /// `var_to_val` is a deprecated alias of it), read once.
    fn hints(&mut self, shape_env: &Bound<'py, PyAny>) -> PyResult<&Bound<'py, PyAny>> {
        let py = shape_env.py();
        if self.hints.is_none() {
            self.hints = Some(shape_env.getattr(intern!(py, "backed_var_to_val"))?);
        }
        Ok(self.hints.as_ref().expect("hints were just found"))
    }

    fn declare(&mut self, shape_env: &Bound<'py, PyAny>, s: &Bound<'py, PyAny>) -> PyResult<()> {
        let py = s.py();
        let name: String = s.getattr(intern!(py, "name"))?.extract()?;
        if self.decls.contains_key(&name) {
            return Ok(());
        }
        let mut doc = SymbolDecl::new(name.clone());
        let vr = shape_env
            .getattr(intern!(py, "var_to_range"))?
            .call_method1(intern!(py, "get"), (s,))?;
        if !vr.is_none() {
            doc.min = bound(&vr.getattr(intern!(py, "lower"))?)?;
            doc.max = bound(&vr.getattr(intern!(py, "upper"))?)?;
        }
        doc.hint = match self.hints(shape_env)?.get_item(s) {
            Ok(h) => Some(py.get_type::<PyInt>().call1((h,))?.extract()?),
            Err(_) if self.unbacked && doc.min.or(doc.max).is_some() => doc.min.or(doc.max),
            Err(_) => return Err(crate::error::unbacked(&[name])),
        };
        if self.sources {
            doc.source = source_of(shape_env, s)?;
        }
        self.decls.insert(name, doc);
        Ok(())
    }

    /// One size, stride or offset: an int, or a SymInt's text (declaring
    /// its symbols). The flag says whether it was a SymInt.
    fn field(&mut self, x: &Bound<'py, PyAny>) -> PyResult<(ExprField, bool)> {
        if let Ok(i) = x.cast::<PyInt>() {
            return Ok((ExprField::Int(i.extract()?), false));
        }
        let py = x.py();
        let node = x.getattr(intern!(py, "node"))?;
        let expr = node.getattr(intern!(py, "expr"))?;
        if let Some(text) = self.text.get_item(&expr)? {
            return Ok((ExprField::Text(text.extract()?), true));
        }
        // A node that settled on a number (`SymNode.maybe_as_int`).
        if expr.getattr(intern!(py, "is_number"))?.is_truthy()? {
            let v = py.get_type::<PyInt>().call1((&expr,))?;
            return Ok((ExprField::Int(v.extract()?), true));
        }
        let shape_env = node.getattr(intern!(py, "shape_env"))?;
        if self.hints_only {
            return Ok((ExprField::Int(self.at_hints(&shape_env, &expr)?), true));
        }
        let text: String = if expr.getattr(intern!(py, "is_Symbol"))?.is_truthy()? {
            self.declare(&shape_env, &expr)?;
            expr.getattr(intern!(py, "name"))?.extract()?
        } else {
            for s in expr.getattr(intern!(py, "free_symbols"))?.try_iter()? {
                self.declare(&shape_env, &s?)?;
            }
            expr.str()?.extract()?
        };
        self.text.set_item(&expr, &text)?;
        Ok((ExprField::Text(text), true))
    }

    /// `expr`'s value at its symbols' hints (the hint-only mode).
    fn at_hints(
        &mut self,
        shape_env: &Bound<'py, PyAny>,
        expr: &Bound<'py, PyAny>,
    ) -> PyResult<i64> {
        let py = expr.py();
        let hints = self.hints(shape_env)?.clone();
        let values = PyDict::new(py);
        let mut missing = Vec::new();
        for s in expr.getattr(intern!(py, "free_symbols"))?.try_iter()? {
            let s = s?;
            match hints.get_item(&s) {
                Ok(h) => values.set_item(&s, h)?,
                Err(_) => missing.push(s.getattr(intern!(py, "name"))?.extract::<String>()?),
            }
        }
        if !missing.is_empty() {
            missing.sort();
            return Err(crate::error::unbacked(&missing));
        }
        let v = expr.call_method1(intern!(py, "xreplace"), (values,))?;
        py.get_type::<PyInt>().call1((v,))?.extract()
    }
}

/// Shows `t` to the validator (`tensors::check_strided`) the first time
/// its type is met. Per-tensor properties (sparse layouts, nestedness) are
/// not read up front: reading such a tensor's layout fails, and then the
/// validator's refusal, if it has one, is the error.
fn check_type(
    t: &Bound<'_, PyAny>,
    i: usize,
    seen: &mut Vec<*mut pyo3::ffi::PyTypeObject>,
) -> PyResult<()> {
    let ty = t.get_type().as_type_ptr();
    if !seen.contains(&ty) {
        check_strided(t, i)?;
        seen.push(ty);
    }
    Ok(())
}

/// The fields of a size or stride tuple.
fn fields<'py>(
    obj: Bound<'py, PyAny>,
    syms: &mut Symbols<'py>,
    symbolic: &mut bool,
) -> PyResult<Vec<ExprField>> {
    let tuple = obj.cast_into::<PyTuple>()?;
    let mut out = Vec::with_capacity(tuple.len());
    for x in tuple.iter() {
        let (f, s) = syms.field(&x)?;
        *symbolic |= s;
        out.push(f);
    }
    Ok(out)
}

/// How [`read_group`] reads a group.
pub(crate) struct ReadOptions {
    /// Each SymInt as its value at the hints.
    pub(crate) hints_only: bool,
    /// Symbols without a hint read with their range.
    pub(crate) unbacked: bool,
    /// Each symbol's source read from the ShapeEnv (for guards).
    pub(crate) sources: bool,
}

/// One tensor's layout fields as read: ints, or SymInts' texts.
pub(crate) struct Fields {
    pub(crate) sizes: Vec<ExprField>,
    pub(crate) strides: Vec<ExprField>,
    pub(crate) offset: ExprField,
    pub(crate) itemsize: i64,
}

/// One group read from torch tensors: the symbols met, each tensor's
/// fields and name, each tensor's integer storage offset, and whether some
/// field was a SymInt.
pub(crate) struct ReadGroup {
    pub(crate) decls: BTreeMap<String, SymbolDecl>,
    pub(crate) tensors: Vec<Fields>,
    pub(crate) names: Vec<String>,
    pub(crate) offsets: Vec<Option<i64>>,
    pub(crate) symbolic: bool,
}

/// Reads `tensors` (views of one storage, named `sources` in guards, or
/// `tensors[i]`), without guarding.
pub(crate) fn read_group<'py>(
    py: Python<'py>,
    tensors: &[Bound<'py, PyAny>],
    sources: Option<&[String]>,
    opts: ReadOptions,
) -> PyResult<ReadGroup> {
    let mut seen = Vec::new();
    let mut storages = Vec::with_capacity(tensors.len());
    for (i, t) in tensors.iter().enumerate() {
        check_type(t, i, &mut seen)?;
        let s = call(py, t, Method::UntypedStorage)
            .map_err(|e| check_strided(t, i).err().unwrap_or(e))?;
        if !storages.is_empty() && !s.is(&storages[0]) {
            return Err(crate::error::different_storages(i));
        }
        storages.push(s);
    }
    let mut syms = Symbols {
        decls: BTreeMap::new(),
        text: PyDict::new(py),
        hints: None,
        hints_only: opts.hints_only,
        unbacked: opts.unbacked,
        sources: opts.sources,
    };
    let mut symbolic = false;
    let mut read = Vec::with_capacity(tensors.len());
    let mut offsets = Vec::with_capacity(tensors.len());
    for (i, t) in tensors.iter().enumerate() {
        let size = call(py, t, Method::Size).map_err(|e| check_strided(t, i).err().unwrap_or(e))?;
        let sizes = fields(size, &mut syms, &mut symbolic)?;
        let strides = fields(call(py, t, Method::Stride)?, &mut syms, &mut symbolic)?;
        let (offset, s) = syms.field(&call(py, t, Method::StorageOffset)?)?;
        symbolic |= s;
        offsets.push(match offset {
            ExprField::Int(v) => Some(v),
            ExprField::Text(_) => None,
        });
        read.push(Fields {
            sizes,
            strides,
            offset,
            itemsize: call(py, t, Method::ElementSize)?.extract()?,
        });
    }
    let names = (0..tensors.len())
        .map(|i| sources.map_or_else(|| format!("tensors[{i}]"), |s| s[i].clone()))
        .collect();
    Ok(ReadGroup {
        decls: syms.decls,
        tensors: read,
        names,
        offsets,
        symbolic,
    })
}
