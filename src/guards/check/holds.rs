//! One function per guard kind: `None` when the guard holds on the bound
//! call, else why not.

use super::call::{one_storage, Bound};
use super::prepare::{Expr, Prepared};
use super::{CheckError, GuardSet};
use crate::expr::Value;
use crate::guards::model::with_sources;
use crate::layout::ViewRef;
use crate::overlap::{analyze_view_refs, Verdict, DEFAULT_BUDGET};
use hashbrown::HashMap;

impl GuardSet {
    /// `None` when the guard holds, else why not.
    /// The source of index `k`.
    fn name(&self, k: usize) -> &str {
        self.sources[k].as_str()
    }

    pub(super) fn holds(&self, p: &Prepared, b: &Bound) -> Result<Option<String>, CheckError> {
        match p {
            Prepared::DuplicateInput { kept, dupe } => self.duplicate_input(b, *kept, *dupe),
            Prepared::SelfOverlap {
                members,
                overlapping,
            } => self.self_overlap(b, members, *overlapping),
            Prepared::DistinctObjects { sources, others } => {
                self.distinct_objects(b, sources, others)
            }
            Prepared::StoragePartition { groups, others } => {
                self.storage_partition(b, groups, others)
            }
            Prepared::Shape(e) => self.shape(b, e),
            Prepared::Layout {
                members,
                sizes,
                strides,
                offsets,
                itemsizes,
            } => self.layout(b, members, sizes, strides, offsets, itemsizes),
            Prepared::StorageOverlap {
                members,
                overlapping,
                components,
            } => self.storage_overlap(b, members, *overlapping, components),
        }
    }

    /// Every member overlaps itself as at compile time (the first
    /// `overlapping` members do, the rest do not); undecided fails.
    fn self_overlap(
        &self,
        b: &Bound,
        members: &[usize],
        overlapping: usize,
    ) -> Result<Option<String>, CheckError> {
        for (i, &k) in members.iter().enumerate() {
            let expected = i < overlapping;
            let now = crate::overlap::internal_overlap(&b.tensor(k)?.view, DEFAULT_BUDGET);
            if now == Verdict::Undecided {
                return Ok(Some(format!(
                    "{}: overlap with itself undecided within the search budget",
                    self.name(k)
                )));
            }
            if now.may_overlap() != expected {
                return Ok(Some(format!(
                    "{} {} itself now",
                    self.name(k),
                    if expected {
                        "no longer overlaps"
                    } else {
                        "overlaps"
                    }
                )));
            }
        }
        Ok(None)
    }

    fn duplicate_input(
        &self,
        b: &Bound,
        kept: usize,
        dupe: usize,
    ) -> Result<Option<String>, CheckError> {
        Ok((b.tensor(kept)?.object != b.tensor(dupe)?.object).then(|| {
            format!(
                "{} and {} are different objects",
                self.name(kept),
                self.name(dupe)
            )
        }))
    }

    fn distinct_objects(
        &self,
        b: &Bound,
        sources: &[usize],
        others: &[usize],
    ) -> Result<Option<String>, CheckError> {
        let mut seen: HashMap<&str, usize> = HashMap::new();
        for &k in sources {
            if let Some(prev) = seen.insert(b.tensor(k)?.object.as_str(), k) {
                return Ok(Some(format!(
                    "{} and {} are now the same object",
                    self.name(prev),
                    self.name(k)
                )));
            }
        }
        for &k in others {
            if let Some(&prev) = seen.get(b.tensor(k)?.object.as_str()) {
                return Ok(Some(format!(
                    "{} and {} are now the same object",
                    self.name(prev),
                    self.name(k)
                )));
            }
        }
        Ok(None)
    }

    fn storage_partition(
        &self,
        b: &Bound,
        groups: &[Vec<usize>],
        others: &[usize],
    ) -> Result<Option<String>, CheckError> {
        let mut owner: HashMap<&str, usize> = HashMap::new();
        for (g, grp) in groups.iter().enumerate() {
            let Some(&first) = grp.first() else { continue };
            let st = b.tensor(first)?.storage.as_str();
            for &k in &grp[1..] {
                if b.tensor(k)?.storage != st {
                    return Ok(Some(format!(
                        "{} left the storage of {} (storage identity changed)",
                        self.name(k),
                        self.name(first)
                    )));
                }
            }
            if let Some(other) = owner.insert(st, g) {
                return Ok(Some(format!(
                    "{} now shares a storage with {} (distinct at compile time)",
                    self.name(first),
                    self.name(groups[other][0])
                )));
            }
        }
        for &k in others {
            if let Some(&g) = owner.get(b.tensor(k)?.storage.as_str()) {
                return Ok(Some(format!(
                    "{} now shares a storage with {} (distinct at compile time)",
                    self.name(k),
                    self.name(groups[g][0])
                )));
            }
        }
        Ok(None)
    }

    fn shape(&self, b: &Bound, e: &Expr) -> Result<Option<String>, CheckError> {
        Ok(match self.eval(e, b)? {
            Ok(Value::Bool(true)) => None,
            Ok(other) => Some(format!("{other} at {}", self.at(e, b)?)),
            Err(err) => Some(err.to_string()),
        })
    }

    fn layout(
        &self,
        b: &Bound,
        members: &[usize],
        sizes: &[Vec<Expr>],
        strides: &[Vec<Expr>],
        offsets: &[Expr],
        itemsizes: &[i64],
    ) -> Result<Option<String>, CheckError> {
        let ts = match one_storage(members, b)? {
            Ok(ts) => ts,
            Err(why) => return Ok(Some(why)),
        };
        for (j, t) in ts.iter().map(|t| &t.view).enumerate() {
            let who = self.name(members[j]);
            if t.itemsize != itemsizes[j] {
                return Ok(Some(format!(
                    "{who} has itemsize {}, compiled for {}",
                    t.itemsize, itemsizes[j]
                )));
            }
            if t.sizes.len() != sizes[j].len() {
                return Ok(Some(format!(
                    "{who} has rank {}, compiled for {}",
                    t.sizes.len(),
                    sizes[j].len()
                )));
            }
            // (what, dim, compiled, actual); described only on failure.
            let fields = (0..t.sizes.len())
                .flat_map(|d| {
                    [
                        ("size", d, &sizes[j][d], t.sizes[d]),
                        ("stride", d, &strides[j][d], t.strides[d]),
                    ]
                })
                .chain([("storage offset", 0, &offsets[j], t.offset)]);
            for (what, d, want, got) in fields {
                let v = self.eval(want, b)?.ok().and_then(Value::as_int);
                if v != Some(got) {
                    let what = if what == "storage offset" {
                        what.to_string()
                    } else {
                        format!("{what} {d}")
                    };
                    return Ok(Some(format!(
                        "{who} {what} is {got}, compiled for {}{}",
                        with_sources(&self.pool.display(want.id).to_string(), &self.symbols),
                        v.map_or(String::new(), |v| format!(" = {v}"))
                    )));
                }
            }
        }
        Ok(None)
    }

    fn storage_overlap(
        &self,
        b: &Bound,
        members: &[usize],
        overlapping: usize,
        components: &[Vec<usize>],
    ) -> Result<Option<String>, CheckError> {
        let ts = match one_storage(members, b)? {
            Ok(ts) => ts,
            Err(why) => return Ok(Some(why)),
        };
        // Validated when the call was bound.
        let views: Vec<ViewRef> = ts.iter().map(|t| t.view.view_ref()).collect();
        let answer = analyze_view_refs(&views, DEFAULT_BUDGET);
        // `answer.overlapping` is sorted; compile time listed the
        // overlapping members first.
        let same = answer.overlapping.len() == overlapping
            && answer.overlapping.iter().enumerate().all(|(i, &j)| i == j);
        if !same {
            let undecided = answer
                .pairs
                .iter()
                .any(|p| matches!(p.verdict, Verdict::Undecided));
            let now: Vec<&str> = answer
                .overlapping
                .iter()
                .map(|&i| self.name(members[i]))
                .collect();
            return Ok(Some(format!(
                "the overlapping set is now [{}]{}",
                now.join(", "),
                if undecided {
                    " (some pair undecided within the search budget)"
                } else {
                    ""
                }
            )));
        }
        if components.is_empty() {
            return Ok(None);
        }
        let pairs: Vec<(usize, usize)> = answer.pairs.iter().map(|p| (p.a, p.b)).collect();
        let mut now: Vec<Vec<usize>> = crate::overlap::components(members.len(), &pairs)
            .into_iter()
            .filter(|c| c.len() >= 2)
            .collect();
        now.sort();
        if now == components {
            return Ok(None);
        }
        let now: Vec<String> = now
            .iter()
            .map(|c| {
                let names: Vec<&str> = c.iter().map(|&i| self.name(members[i])).collect();
                format!("[{}]", names.join(", "))
            })
            .collect();
        Ok(Some(format!(
            "the same inputs overlap, but the overlap graph's components are now [{}]",
            now.join(", ")
        )))
    }
}
