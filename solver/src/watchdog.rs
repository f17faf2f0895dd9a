//! A wall-clock bound on z3 work that z3 itself does not honour.
//!
//! z3 4.8.12 ignores `rlimit` inside some nonlinear checks and inside the
//! preprocessing of large assertions (`Z3_solver_assert` on a 3,000-deep
//! `ite` nest runs for minutes). Its own `timeout` parameter can deadlock the
//! library once it fires. What does stop such work is `Z3_interrupt`, called
//! from another thread: the running call returns (a check answers unknown,
//! reason "canceled"), and the context stays usable.
//!
//! One watchdog thread serves one session. Before a bounded piece of z3 work
//! the session *arms* it with a deadline and a fresh generation number; after
//! the work it *disarms* it. The watchdog interrupts only while the same
//! generation is still armed, and keeps re-interrupting every
//! [`REFIRE`] until it is disarmed — an interrupt that lands between two z3
//! calls is lost (measured), so a single shot could miss. An interrupt can
//! therefore never reach a later query, and a query that outlives its deadline
//! is stopped within a few milliseconds of z3 noticing.

use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// How often the watchdog repeats an interrupt until the armed work returns.
pub const REFIRE: Duration = Duration::from_millis(5);

#[derive(Debug, Default)]
struct State {
    /// The armed work: its generation and deadline.
    armed: Option<(u64, Instant)>,
    /// The last generation handed out.
    generation: u64,
    /// Generations that were interrupted (only the last one matters).
    fired: Option<u64>,
    /// The session is over: the watchdog thread ends.
    stop: bool,
}

/// The shared state between a session and its watchdog thread.
#[derive(Debug, Default)]
pub(crate) struct Watchdog {
    state: Mutex<State>,
    wake: Condvar,
}

/// Proof that work was armed; give it back to [`Watchdog::disarm`].
#[derive(Debug)]
#[must_use]
pub(crate) struct Armed(u64);

impl Watchdog {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A poisoned lock only means a panic elsewhere; the state is plain data.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Arms the watchdog: z3 work from now until [`Watchdog::disarm`] is
    /// interrupted once `deadline` passes.
    pub(crate) fn arm(&self, deadline: Instant) -> Armed {
        let mut st = self.lock();
        st.generation += 1;
        let g = st.generation;
        st.armed = Some((g, deadline));
        drop(st);
        self.wake.notify_one();
        Armed(g)
    }

    /// Disarms; `true` when the watchdog interrupted this work.
    pub(crate) fn disarm(&self, armed: Armed) -> bool {
        let mut st = self.lock();
        if st.armed.is_some_and(|(g, _)| g == armed.0) {
            st.armed = None;
        }
        st.fired == Some(armed.0)
    }

    /// Ends the watchdog thread.
    pub(crate) fn stop(&self) {
        self.lock().stop = true;
        self.wake.notify_one();
    }

    /// The watchdog thread's loop: `interrupt` is called (with the state
    /// locked, so the session cannot disarm and start new work meanwhile)
    /// whenever the armed work is past its deadline.
    pub(crate) fn run(&self, interrupt: impl Fn()) {
        let mut st = self.lock();
        loop {
            if st.stop {
                return;
            }
            match st.armed {
                None => st = self.wake.wait(st).unwrap_or_else(|p| p.into_inner()),
                Some((g, deadline)) => {
                    let now = Instant::now();
                    let wait = if now >= deadline {
                        interrupt();
                        st.fired = Some(g);
                        REFIRE
                    } else {
                        deadline - now
                    };
                    st = self
                        .wake
                        .wait_timeout(st, wait)
                        .unwrap_or_else(|p| p.into_inner())
                        .0;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};

    #[test]
    fn fires_only_for_the_armed_generation() {
        let dog = Watchdog::default();
        let shots = AtomicU64::new(0);
        std::thread::scope(|s| {
            s.spawn(|| {
                dog.run(|| {
                    shots.fetch_add(1, Ordering::SeqCst);
                })
            });
            // Work that ends before its deadline is never interrupted.
            let a = dog.arm(Instant::now() + Duration::from_secs(5));
            assert!(!dog.disarm(a));
            // Work past its deadline is interrupted, repeatedly, until disarmed.
            let b = dog.arm(Instant::now() + Duration::from_millis(10));
            std::thread::sleep(Duration::from_millis(40));
            assert!(dog.disarm(b));
            let after = shots.load(Ordering::SeqCst);
            assert!(after >= 2, "{after}");
            // Nothing fires once disarmed, and later work is not marked.
            std::thread::sleep(Duration::from_millis(20));
            assert_eq!(shots.load(Ordering::SeqCst), after);
            let c = dog.arm(Instant::now() + Duration::from_secs(5));
            assert!(!dog.disarm(c));
            dog.stop();
        });
    }
}
