//! The wall clock as a backstop, and the record of when it decided.
//!
//! symalias's answers are meant to be a function of the input and the
//! options alone: every stage is bounded first by a work budget (z3's
//! deterministic `rlimit`, node counts of the searches, a count of
//! queries). The wall-clock deadline stays only as a backstop for
//! embedders: it should never be what stops the work on ordinary input.
//! When it is — a deadline found passed, a query interrupted by the
//! watchdog, the simplifier stopped by its time limit — the answer may
//! depend on the machine's speed and load, and it must say so.
//!
//! Every deadline check therefore goes through [`past`], which records a
//! firing in a per-thread counter; an analysis reads [`wall_stops`] before
//! and after its work ([`Watch`]) and reports whether the clock fired in
//! between. An analysis runs on one thread (a batch's cases each on their
//! own), and the z3 workers' interruptions are recorded on the thread that
//! asked, when the interrupted answer comes back ([`crate::Session`]).

use std::cell::Cell;
use std::time::Instant;

thread_local! {
    static WALL_STOPS: Cell<u64> = const { Cell::new(0) };
}

/// How many times, on this thread, the wall clock stopped work so far.
pub fn wall_stops() -> u64 {
    WALL_STOPS.with(Cell::get)
}

/// Records that the wall clock stopped work on this thread.
pub fn note_wall_stop() {
    WALL_STOPS.with(|c| c.set(c.get() + 1));
}

/// `true` (and recorded) when `deadline` has passed: the one way to ask
/// the wall clock whether to stop.
pub fn past(deadline: Instant) -> bool {
    let passed = Instant::now() >= deadline;
    if passed {
        note_wall_stop();
    }
    passed
}

/// [`past`] for an optional deadline (`None`: never).
pub fn past_opt(deadline: Option<Instant>) -> bool {
    deadline.is_some_and(past)
}

/// A window of work on this thread: did the wall clock stop any of it?
#[derive(Clone, Copy, Debug)]
pub struct Watch {
    at: u64,
}

impl Watch {
    /// Starts watching now.
    pub fn start() -> Watch {
        Watch { at: wall_stops() }
    }

    /// `true` when the wall clock stopped some work since [`Watch::start`].
    pub fn fired(&self) -> bool {
        wall_stops() > self.at
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_watch_sees_the_stops_made_while_it_watches_only() {
        let before = Watch::start();
        assert!(!past(Instant::now() + Duration::from_secs(60)));
        assert!(!past_opt(None));
        assert!(!before.fired());
        assert!(past(Instant::now()));
        assert!(before.fired());
        let after = Watch::start();
        assert!(!after.fired());
    }

    #[test]
    fn stops_are_counted_per_thread() {
        let w = Watch::start();
        std::thread::spawn(note_wall_stop).join().unwrap();
        assert!(!w.fired());
    }
}
