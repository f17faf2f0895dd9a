//! The 2-D grid: the storage's bytes in rows of the views' own row length,
//! drawn when that makes them readable (a few dozen rows of at most 256
//! bytes): each view's bytes in its colour, half transparent so that views
//! over one byte darken it, shared bytes outlined, witness bytes dotted.

use std::fmt::Write as _;

use super::footprint::Footprint;
use super::svg::{num, LEFT, PALETTE, PLOT, RED};
use crate::layout::View;

/// At most this many rows.
const ROWS: i64 = 32;
/// Row lengths drawn, in bytes (a cell at least 2.9 px wide).
const ROW_BYTES: std::ops::RangeInclusive<i64> = 4..=256;

/// The grid's row length in bytes and its first byte (a multiple of the row
/// length), when the views have rows and the grid stays readable.
pub(super) fn layout(views: &[View], feet: &[Footprint], lo: i64, hi: i64) -> Option<(i64, i64)> {
    if feet.iter().any(|f| f.extent_only) {
        return None;
    }
    // Contiguous rows: the last dimension of stride 1, the one before it of
    // more than one row; its stride in bytes is a row.
    let mut lengths: Vec<i64> = views
        .iter()
        .filter_map(|v| {
            let n = v.sizes.len();
            (n >= 2 && v.strides[n - 1] == 1 && v.sizes[n - 2] > 1)
                .then(|| v.strides[n - 2].checked_mul(v.itemsize))
                .flatten()
        })
        .filter(|r| ROW_BYTES.contains(r))
        .collect();
    lengths.sort_unstable();
    // The most frequent (the smallest of those).
    let mut best: Option<(usize, i64)> = None;
    for chunk in lengths.chunk_by(|a, b| a == b) {
        if best.is_none_or(|(n, _)| chunk.len() > n) {
            best = Some((chunk.len(), chunk[0]));
        }
    }
    let (_, row) = best?;
    let origin = lo - lo.rem_euclid(row);
    let rows = (hi - origin + row - 1) / row;
    (rows <= ROWS).then_some((row, origin))
}

/// Draws the grid from `y`; returns the next free `y`.
pub(super) fn draw(
    out: &mut String,
    mut y: f64,
    (row, origin): (i64, i64),
    hi: i64,
    feet: &[Footprint],
    shared: &[(i64, i64)],
    witnesses: &[i64],
) -> f64 {
    let cell = PLOT / row as f64;
    let h = cell.clamp(6.0, 14.0);
    let rows = (hi - origin + row - 1) / row;
    super::svg::text(out, 10.0, y + 10.0, "n", &format!("rows of {row} bytes"));
    y += 4.0;
    out.push_str(r#"<g id="grid">"#);
    write!(
        out,
        r##"<rect x="{LEFT}" y="{}" width="{}" height="{}" fill="none" stroke="#ccc"/>"##,
        num(y),
        num(PLOT),
        num(h * rows as f64)
    )
    .unwrap();
    for r in 0..rows {
        write!(
            out,
            r#"<text x="{}" y="{}" text-anchor="end" font-size="10">{}</text>"#,
            num(LEFT - 4.0),
            num(y + h * (r as f64 + 1.0) - 2.0),
            origin + r * row
        )
        .unwrap();
    }
    // A run's bytes, split at row ends, as rectangles.
    let segments = |out: &mut String, runs: &[(i64, i64)], attrs: &str| {
        for &(s, e) in runs {
            let mut b = s;
            while b < e {
                let r = (b - origin) / row;
                let end = e.min(origin + (r + 1) * row);
                let x = LEFT + (b - origin - r * row) as f64 * cell;
                write!(
                    out,
                    r#"<rect {attrs} x="{}" y="{}" width="{}" height="{}"/>"#,
                    num(x),
                    num(y + r as f64 * h),
                    num((end - b) as f64 * cell),
                    num(h)
                )
                .unwrap();
                b = end;
            }
        }
    };
    for (k, f) in feet.iter().enumerate() {
        segments(
            out,
            &f.runs,
            &format!(r#"class="v{} g""#, k % PALETTE.len()),
        );
    }
    segments(
        out,
        shared,
        &format!(r#"fill="none" stroke="{RED}" stroke-width="1.5""#),
    );
    for &a in witnesses {
        let r = (a - origin) / row;
        let x = LEFT + ((a - origin - r * row) as f64 + 0.5) * cell;
        write!(
            out,
            r#"<circle class="sh" data-address="{a}" cx="{}" cy="{}" r="3"/>"#,
            num(x),
            num(y + (r as f64 + 0.5) * h)
        )
        .unwrap();
    }
    out.push_str("</g>");
    y + h * rows as f64 + 6.0
}
