//! The SVG text: a canvas of fixed width, panels of lanes, notes below.

use std::fmt::Write as _;

use super::footprint::{shared, Footprint};
use crate::io::{GuardDoc, GuardKindDoc, OverlapResult};
use crate::layout::View;

/// One drawing of the views: at the hints, or at a counterexample.
pub(super) struct Panel {
    pub title: String,
    pub views: Vec<View>,
    /// Mark the result's witness bytes (they are the hints').
    pub witnesses: bool,
}

const WIDTH: f64 = 960.0;
pub(super) const LEFT: f64 = 190.0;
const RIGHT: f64 = 20.0;
pub(super) const PLOT: f64 = WIDTH - LEFT - RIGHT;
/// Lanes get at most this much height in all (then thinner lanes).
const LANES_HEIGHT: f64 = 480.0;
const LINE: f64 = 16.0;
/// Witness bytes marked at most.
const MARKS: usize = 100;
/// Lines of notes drawn at most per kind (the rest counted).
const NOTES: usize = 12;
pub(super) const PALETTE: [&str; 10] = [
    "#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2", "#edc948", "#9c755f", "#bab0ac",
    "#86bcb6", "#8cd17d",
];
/// Shared bytes and witnesses.
pub(super) const RED: &str = "#d62728";

pub(super) fn draw(
    id: &str,
    sources: &[String],
    result: &OverlapResult,
    panels: &[Panel],
) -> String {
    let mut body = String::new();
    let mut y = 24.0;
    text(
        &mut body,
        10.0,
        y,
        "t",
        &format!("{id}: {}", super::verdict(result)),
    );
    y += 10.0;
    let mut notes: Vec<String> = Vec::new();
    for panel in panels {
        y = draw_panel(&mut body, y + LINE, sources, result, panel, &mut notes);
    }
    // The guards and what the lanes cannot say.
    y += LINE;
    y = lines(&mut body, y, 10.0, &notes);
    let guards = &result.guards;
    text(
        &mut body,
        10.0,
        y,
        "h",
        &format!("guards: {}", guards.len()),
    );
    y += LINE;
    let guard_lines: Vec<String> = guards.iter().map(guard_line).collect();
    y = lines(&mut body, y, 20.0, &guard_lines);
    let height = (y + 8.0).ceil();
    let mut out = String::with_capacity(body.len() + 1024);
    write!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" font-family="DejaVu Sans, Arial, sans-serif" font-size="12">"#
    )
    .unwrap();
    out.push_str("<style>");
    for (k, c) in PALETTE.iter().enumerate() {
        write!(out, ".v{k}{{fill:{c}}}").unwrap();
    }
    write!(
        out,
        ".sh{{fill:{RED}}}.g{{fill-opacity:.5}}.tw{{fill:#000;fill-opacity:.55}}.ext{{fill-opacity:.35}}.w{{stroke:{RED};stroke-width:2}}.ax{{stroke:#555}}.t{{font-size:14px;font-weight:bold}}.h{{font-weight:bold}}.n{{fill:#222}}"
    )
    .unwrap();
    out.push_str("</style>");
    write!(
        out,
        r##"<rect width="{WIDTH}" height="{height}" fill="#fff"/>"##
    )
    .unwrap();
    out.push_str(&body);
    out.push_str("</svg>\n");
    out
}

/// One panel from `y`: its title, an axis, the shared lane, a lane per
/// view. Returns the next free `y`.
fn draw_panel(
    out: &mut String,
    mut y: f64,
    sources: &[String],
    result: &OverlapResult,
    panel: &Panel,
    notes: &mut Vec<String>,
) -> f64 {
    text(out, 10.0, y, "h", &panel.title);
    y += 8.0;
    let feet: Vec<Footprint> = panel.views.iter().map(Footprint::of).collect();
    let lo = feet
        .iter()
        .filter_map(|f| f.runs.first())
        .map(|r| r.0)
        .min();
    let hi = feet.iter().filter_map(|f| f.runs.last()).map(|r| r.1).max();
    let (Some(lo), Some(hi)) = (lo, hi) else {
        text(out, 10.0, y + LINE, "n", "no view reaches a byte");
        return y + LINE;
    };
    let scale = Scale { lo, hi };
    // The axis: bytes, five ticks.
    y += 14.0;
    let axis = y;
    write!(
        out,
        r#"<line class="ax" x1="{LEFT}" y1="{y}" x2="{}" y2="{y}"/>"#,
        LEFT + PLOT
    )
    .unwrap();
    for k in 0..=4 {
        let b = lo + ((hi - lo) as i128 * k / 4) as i64;
        let x = scale.x(b);
        write!(
            out,
            r#"<line class="ax" x1="{x:.1}" y1="{}" x2="{x:.1}" y2="{y}"/>"#,
            y - 4.0
        )
        .unwrap();
        let anchor = ["start", "middle", "middle", "middle", "end"][k as usize];
        write!(
            out,
            r#"<text x="{x:.1}" y="{}" text-anchor="{anchor}" font-size="10">{b}</text>"#,
            y - 6.0
        )
        .unwrap();
    }
    text(out, 10.0, y, "n", "byte");
    y += 6.0;
    let n = feet.len();
    let lane = (LANES_HEIGHT / (n + 1) as f64).clamp(1.0, 16.0);
    let gap = if lane >= 6.0 { 2.0 } else { 0.0 };
    let labelled = lane >= 8.0;
    // The shared bytes.
    let both = shared(&feet);
    if !both.is_empty() {
        let h = lane.max(6.0);
        out.push_str(r#"<g id="shared">"#);
        rects(out, &scale, &both, y, h, "sh");
        out.push_str("</g>");
        text(out, 10.0, y + h - 1.0, "n", "shared bytes");
        y += h + gap + 2.0;
    }
    let mut lane_y = Vec::with_capacity(n);
    for (i, f) in feet.iter().enumerate() {
        let class = if f.extent_only {
            format!("v{} ext", i % PALETTE.len())
        } else {
            format!("v{}", i % PALETTE.len())
        };
        write!(out, r#"<g id="l{i}">"#).unwrap();
        rects(out, &scale, &f.runs, y, lane, &class);
        rects(out, &scale, &f.twice, y, lane, "tw");
        if f.runs.is_empty() {
            // A view of no elements (a size of 0 at these shapes).
            text(out, LEFT + 4.0, y + lane - 3.0, "n", "no bytes");
        }
        out.push_str("</g>");
        if labelled {
            text(out, 10.0, y + lane - 3.0, "n", &clip(&sources[i], 28));
        }
        if panel.witnesses && f.extent_only {
            notes.push(format!(
                "{}: {} elements, drawn by its extent",
                sources[i],
                elements(&panel.views[i])
            ));
        }
        if panel.witnesses && !f.twice.is_empty() {
            notes.push(format!(
                "{} reaches bytes twice (black), first at {}",
                sources[i], f.twice[0].0
            ));
        }
        lane_y.push(y);
        y += lane + gap;
    }
    if !labelled {
        text(
            out,
            10.0,
            y + LINE,
            "n",
            &format!("{n} views, one lane each, top to bottom in order"),
        );
        y += LINE;
    }
    let mut marks = Vec::new();
    if panel.witnesses {
        let marked = result
            .pairs
            .iter()
            .filter(|p| p.overlap && p.witness.is_some());
        if marked.clone().count() > MARKS {
            notes.push(format!("the first {MARKS} witness bytes are marked"));
        }
        for p in marked.take(MARKS) {
            let Some(w) = &p.witness else { continue };
            let (top, bottom) = (
                lane_y[p.a].min(lane_y[p.b]),
                lane_y[p.a].max(lane_y[p.b]) + lane,
            );
            witness(out, &scale, w.address, axis, (top, bottom));
            marks.push(w.address);
            notes.push(format!(
                "witness byte {}: {}{:?} and {}{:?}",
                w.address, sources[p.a], w.index_a, sources[p.b], w.index_b
            ));
        }
        for s in &result.self_overlap {
            if let Some(w) = &s.witness {
                let top = lane_y[s.tensor];
                witness(out, &scale, w.address, axis, (top, top + lane));
                marks.push(w.address);
                notes.push(format!(
                    "witness byte {} of {} against itself: {:?} and {:?}",
                    w.address, sources[s.tensor], w.index_a, w.index_b
                ));
            }
        }
    }
    if let Some(rows) = super::grid::layout(&panel.views, &feet, lo, hi) {
        y = super::grid::draw(out, y + LINE, rows, hi, &feet, &both, &marks);
    }
    y + 4.0
}

/// The witness byte's mark: a line across the lanes `top..bottom` at the
/// byte's middle and a dot on the byte axis (above every lane: it hides no
/// footprint).
fn witness(out: &mut String, scale: &Scale, address: i64, axis: f64, (top, bottom): (f64, f64)) {
    let x = scale.x(address) + scale.width(1) / 2.0;
    write!(
        out,
        r#"<line class="w" data-address="{address}" x1="{x:.1}" y1="{top:.1}" x2="{x:.1}" y2="{bottom:.1}"/><circle class="sh" cx="{x:.1}" cy="{axis:.1}" r="3"/>"#,
    )
    .unwrap();
}

/// Bytes to x.
struct Scale {
    lo: i64,
    hi: i64,
}

impl Scale {
    fn x(&self, b: i64) -> f64 {
        LEFT + (b as f64 - self.lo as f64) * PLOT / (self.hi as f64 - self.lo as f64).max(1.0)
    }

    fn width(&self, bytes: i64) -> f64 {
        bytes as f64 * PLOT / (self.hi as f64 - self.lo as f64).max(1.0)
    }
}

/// The runs as rectangles, runs closer than a pixel merged (a lane is at
/// most one rectangle per pixel column), each at least 0.6 px wide.
fn rects(out: &mut String, scale: &Scale, runs: &[(i64, i64)], y: f64, h: f64, class: &str) {
    let mut open: Option<(f64, f64)> = None;
    let flush = |out: &mut String, (x0, x1): (f64, f64)| {
        let w = (x1 - x0).max(0.6);
        write!(
            out,
            r#"<rect class="{class}" x="{}" y="{}" width="{}" height="{}"/>"#,
            num(x0),
            num(y),
            num(w),
            num(h)
        )
        .unwrap();
    };
    for &(s, e) in runs {
        let (x0, x1) = (scale.x(s), scale.x(e));
        open = match open {
            Some((a, b)) if x0 - b < 1.0 => Some((a, x1.max(b))),
            Some(r) => {
                flush(out, r);
                Some((x0, x1))
            }
            None => Some((x0, x1)),
        };
    }
    if let Some(r) = open {
        flush(out, r);
    }
}

pub(super) fn text(out: &mut String, x: f64, y: f64, class: &str, s: &str) {
    write!(
        out,
        r#"<text class="{class}" x="{x:.1}" y="{y:.1}">{}</text>"#,
        escape(&clip(s, 150))
    )
    .unwrap();
}

/// A coordinate to a tenth of a pixel, without a trailing `.0`.
pub(super) fn num(x: f64) -> String {
    let t = format!("{x:.1}");
    t.strip_suffix(".0").map_or(t.clone(), str::to_string)
}

fn elements(v: &View) -> String {
    let n = v.sizes.iter().try_fold(1i64, |a, &s| a.checked_mul(s));
    n.map_or_else(|| "more than 2^63".into(), |n| n.to_string())
}

fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(n - 1).collect::<String>())
    }
}

/// `s` as XML text (also HTML's): markup characters escaped, control
/// characters blanked, and characters XML 1.0 does not allow at all (the
/// noncharacters U+FFFE and U+FFFF; surrogates cannot be in a `str`)
/// replaced by U+FFFD, so that any name makes a well-formed document.
pub(super) fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if (c as u32) < 0x20 => out.push(' '),
            '\u{FFFE}' | '\u{FFFF}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// Up to `NOTES` lines of text from `y` on at `x`, then "… and N more"
/// when there are more; the `y` after them.
fn lines(out: &mut String, mut y: f64, x: f64, items: &[String]) -> f64 {
    for item in items.iter().take(NOTES) {
        text(out, x, y, "n", item);
        y += LINE;
    }
    if items.len() > NOTES {
        text(
            out,
            x,
            y,
            "n",
            &format!("… and {} more", items.len() - NOTES),
        );
        y += LINE;
    }
    y
}

/// A guard on one line (at most [`GUARD_LINE`] characters: the picture's
/// width holds no more).
fn guard_line(g: &GuardDoc) -> String {
    let line = match &g.kind {
        GuardKindDoc::Shape { expr } => format!("shape: {expr}"),
        GuardKindDoc::StorageOverlap {
            overlapping,
            non_overlapping,
            ..
        } => format!(
            "storage overlap: overlapping [{}], disjoint [{}]",
            overlapping.join(", "),
            non_overlapping.join(", ")
        ),
        GuardKindDoc::SelfOverlap {
            overlapping,
            non_overlapping,
        } => format!(
            "self overlap: overlapping [{}], not [{}]",
            overlapping.join(", "),
            non_overlapping.join(", ")
        ),
        GuardKindDoc::Layout { sources, .. } => {
            format!("layouts as decided: {}", sources.join(", "))
        }
        kind => serde_json::to_string(kind).unwrap_or_default(),
    };
    let line = if g.fast_path {
        format!("{line} (fast path)")
    } else {
        line
    };
    if line.chars().count() <= GUARD_LINE {
        return line;
    }
    let head: String = line.chars().take(GUARD_LINE - 1).collect();
    format!("{head}…")
}

/// Characters of one guard's line.
const GUARD_LINE: usize = 110;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_has_no_character_xml_forbids() {
        let got = escape("a\u{FFFE}b\u{FFFF}<c>\u{1}");
        assert_eq!(got, "a\u{FFFD}b\u{FFFD}&lt;c&gt; ");
        assert!(!got.contains('\u{FFFE}') && !got.contains('\u{FFFF}'));
    }

    #[test]
    fn long_lists_stop_at_notes_and_say_how_many_more() {
        let items: Vec<String> = (0..NOTES + 3).map(|k| format!("item {k}")).collect();
        let mut out = String::new();
        let y = lines(&mut out, 100.0, 10.0, &items);
        assert_eq!(out.matches("<text").count(), NOTES + 1);
        assert!(out.contains(&format!("item {}", NOTES - 1)));
        assert!(!out.contains(&format!("item {NOTES}")));
        assert!(out.contains("… and 3 more"));
        assert_eq!(y, 100.0 + (NOTES + 1) as f64 * LINE);
        // A short list: every item, no tail.
        let mut short = String::new();
        let y = lines(&mut short, 0.0, 10.0, &items[..2]);
        assert_eq!((short.matches("<text").count(), y), (2, 2.0 * LINE));
        assert!(!short.contains("more"));
    }
}
