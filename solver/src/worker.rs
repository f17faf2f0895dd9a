//! A z3 context on a thread of its own, so that a caller can always walk away.
//!
//! The watchdog (see `watchdog.rs`) interrupts a query at its deadline, but
//! z3 4.8.12 has stretches of work that do not look at the interrupt flag
//! (measured: a nonlinear check interrupted at 1.0 s returned at 2.25 s). To
//! keep a hard bound, each session's context lives on a worker thread; the
//! caller sends a query and waits until the deadline plus [`GRACE`]. If no
//! answer came by then, the caller *abandons* the worker: it answers unknown,
//! drops its end of the channel, and opens a fresh worker for later queries.
//! The abandoned worker keeps being interrupted until z3 returns, then finds
//! its channel closed and ends, dropping its context.
//!
//! At most [`MAX_ABANDONED`] abandoned workers may be alive at once in the
//! process; past that, queries answer unknown at once instead of starting
//! more z3 work (soundly: unknown only adds guards).

use crate::lower;
use crate::{Answer, Query};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long past its deadline the caller waits for an interrupted query.
pub const GRACE: Duration = Duration::from_millis(50);

/// Most abandoned workers alive at once (each still busy in z3).
pub const MAX_ABANDONED: usize = 4;

/// Stack of a worker thread: z3 and the lowering recurse on deep terms.
const STACK: usize = 256 << 20;

/// Abandoned workers whose z3 call has not returned yet.
static ABANDONED: AtomicUsize = AtomicUsize::new(0);

/// The number of abandoned workers still running (for tests and reports).
pub fn abandoned_workers() -> usize {
    ABANDONED.load(Ordering::SeqCst)
}

/// The reason of an answer given because too many workers are abandoned.
pub(crate) const BUSY: &str = "solver busy: earlier interrupted queries are still running";

struct Job {
    query: Query,
    rlimit: u32,
    deadline: Instant,
}

/// One worker thread with its z3 context.
pub(crate) struct Worker {
    /// The seed its queries use.
    seed: u32,
    jobs: Sender<Job>,
    answers: Receiver<(Answer, u64)>,
    /// Set (before the job channel closes) when the caller walks away.
    abandoned: Arc<AtomicBool>,
}

impl Worker {
    /// Starts a worker whose queries use `seed`; `None` when no thread can be
    /// started or too many abandoned workers are still running.
    pub(crate) fn spawn(seed: u32) -> Option<Worker> {
        if ABANDONED.load(Ordering::SeqCst) >= MAX_ABANDONED {
            return None;
        }
        let (jobs, job_rx) = channel::<Job>();
        let (answer_tx, answers) = channel::<(Answer, u64)>();
        let abandoned = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&abandoned);
        std::thread::Builder::new()
            .name("symalias-z3".into())
            .stack_size(STACK)
            .spawn(move || {
                // `with_context` wants a `Sync` closure; the channels are used
                // by this thread only.
                let chans = std::sync::Mutex::new((job_rx, answer_tx));
                lower::with_context(|dog| {
                    let guard = chans.lock().unwrap_or_else(|p| p.into_inner());
                    let (job_rx, answer_tx) = &*guard;
                    // Made at the first job with its `rlimit` (re-setting the
                    // limit of a solver made with another one changes what
                    // z3 answers); re-set only when a later job differs.
                    let mut made: Option<(z3::Solver, u32)> = None;
                    // Ends when the caller drops its end of the job channel.
                    while let Ok(job) = job_rx.recv() {
                        let (solver, current) = made.get_or_insert_with(|| {
                            let budget = crate::Budget {
                                seed,
                                rlimit: job.rlimit,
                                ..crate::Budget::default()
                            };
                            (lower::new_solver(budget), job.rlimit)
                        });
                        if job.rlimit != *current {
                            lower::set_rlimit(solver, job.rlimit, seed);
                            *current = job.rlimit;
                        }
                        let a = lower::check_scoped(solver, dog, job.deadline, &job.query);
                        // A failed send means the caller walked away; the
                        // next `recv` then fails too.
                        let _ = answer_tx.send(a);
                    }
                });
                // The job channel closes only after the flag is set.
                if flag.load(Ordering::SeqCst) {
                    ABANDONED.fetch_sub(1, Ordering::SeqCst);
                }
            })
            .ok()?;
        Some(Worker {
            seed,
            jobs,
            answers,
            abandoned,
        })
    }

    /// Asks `q` under `rlimit`, interrupted at `deadline`. Returns the worker
    /// for later queries, or `None` when it did not answer by `deadline +
    /// GRACE` (it is then abandoned) or has ended; the answer, and the
    /// resource units it spent (`rlimit` when that is not known).
    pub(crate) fn check(
        self,
        q: &Query,
        rlimit: u32,
        deadline: Instant,
    ) -> (Option<Worker>, (Answer, u64)) {
        let job = Job {
            query: q.clone(),
            rlimit,
            deadline,
        };
        if self.jobs.send(job).is_err() {
            return (None, (Answer::Unknown(ENDED.into()), 0));
        }
        let wait = deadline.saturating_duration_since(Instant::now()) + GRACE;
        match self.answers.recv_timeout(wait) {
            Ok(a) => (Some(self), a),
            Err(RecvTimeoutError::Timeout) => {
                // Counted before the job channel closes (dropping `self`).
                self.abandoned.store(true, Ordering::SeqCst);
                ABANDONED.fetch_add(1, Ordering::SeqCst);
                let a = Answer::Unknown(lower::INTERRUPTED.into());
                (None, (a, u64::from(rlimit)))
            }
            Err(RecvTimeoutError::Disconnected) => (None, (Answer::Unknown(ENDED.into()), 0)),
        }
    }
}

/// The reason of an answer when the worker thread ended unexpectedly.
const ENDED: &str = "solver worker ended";

thread_local! {
    /// A worker whose session has ended, kept for the next session of the
    /// same analysis on this thread (inside a [`Reuse`] scope only).
    static SPARE: std::cell::RefCell<Option<Worker>> = const { std::cell::RefCell::new(None) };
    /// How many [`Reuse`] scopes are open on this thread.
    static DEPTH: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// One analysis's z3 contexts: inside the scope, a session that ends hands
/// its worker (a z3 context, about 30 ms of page faults to make) to the
/// next session on this thread, instead of ending it. The analysis asks the
/// same queries in the same order on every run, so a context's history is
/// the same too and the answers stay a function of the input; when the
/// outermost scope closes, the kept worker ends, so no analysis sees
/// another's history (a batch's cases each run in a scope of their own).
pub struct Reuse {
    _not_send: std::marker::PhantomData<*const ()>,
}

impl Reuse {
    /// Opens a scope on this thread.
    pub fn scope() -> Reuse {
        if DEPTH.with(|d| d.replace(d.get() + 1)) == 0 {
            SPARE.with(|s| s.borrow_mut().take());
        }
        Reuse {
            _not_send: std::marker::PhantomData,
        }
    }
}

impl Drop for Reuse {
    fn drop(&mut self) {
        if DEPTH.with(|d| {
            d.set(d.get() - 1);
            d.get()
        }) == 0
        {
            let spare = SPARE.with(|s| s.borrow_mut().take());
            drop(spare);
        }
    }
}

/// The kept worker for `seed`, if a [`Reuse`] scope is open and has one.
pub(crate) fn take_spare(seed: u32) -> Option<Worker> {
    SPARE.with(|s| {
        let mut slot = s.borrow_mut();
        match slot.take() {
            Some(w) if w.seed == seed => Some(w),
            _ => None,
        }
    })
}

/// Keeps `w` for the next session, inside a [`Reuse`] scope (else it ends).
pub(crate) fn keep(w: Worker) {
    if DEPTH.with(|d| d.get()) > 0 {
        SPARE.with(|s| *s.borrow_mut() = Some(w));
    }
}
