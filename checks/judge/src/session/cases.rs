//! A suite's cases as the runner reads them: one sealed file, written once,
//! and what each case in it answers for.

use crate::suites::Suite;
use lab_wire::{self as wire, Call, Case, Header, PROTOCOL};
use std::io::{self, Write};

/// Most statuses one `RetryableMany` case carries.
const BATCH: usize = 512;

/// A suite's cases, written once into a sealed file of the judge's own
/// (see [`crate::platform::sealable_file`]) and handed to each runner as descriptor
/// [`wire::CASES_FD`].
pub struct CasesFile {
    pub(super) file: std::fs::File,
    /// Per case: the flat indices of the checks it answers.
    pub(super) covers: Vec<std::ops::Range<usize>>,
    /// Per case: whether it is a batch (answered with `Value::Bools`).
    pub(super) batch: Vec<bool>,
    /// Per case: its clause, for skipping the rest after a bad case.
    pub(super) clause: Vec<usize>,
    /// Per case: the id its outcome must echo.
    pub(super) ids: Vec<String>,
}

impl CasesFile {
    /// The same cases for another run, through a second descriptor of the
    /// same sealed file. The two share a read offset (each runner rewinds
    /// first), so they serve runners that run one after the other.
    pub fn again(&self) -> io::Result<CasesFile> {
        Ok(CasesFile {
            file: self.file.try_clone()?,
            covers: self.covers.clone(),
            batch: self.batch.clone(),
            clause: self.clause.clone(),
            ids: self.ids.clone(),
        })
    }
}

/// Writes the cases file of a suite (done while the runner still compiles).
/// Consecutive `retryable` checks of one clause travel as batches; every
/// other check is one case.
pub fn write_cases(suite: &Suite, ids: &[String]) -> io::Result<CasesFile> {
    write_selected(suite, ids, true, &|_| true)
}

/// Appends cases to a cases file and records what each one covers.
struct Writer<'a> {
    out: io::BufWriter<std::fs::File>,
    file: CasesFile,
    ids: &'a [String],
    /// A batch being gathered: (clause, first check, statuses).
    pending: Option<(usize, usize, Vec<u16>)>,
}

impl Writer<'_> {
    fn emit(
        &mut self,
        case: Case,
        covers: std::ops::Range<usize>,
        batch: bool,
        clause: usize,
    ) -> io::Result<()> {
        self.out.write_all(wire::to_line(&case).as_bytes())?;
        self.out.write_all(b"\n")?;
        self.file.ids.push(case.id);
        self.file.covers.push(covers);
        self.file.batch.push(batch);
        self.file.clause.push(clause);
        Ok(())
    }

    fn flush_batch(&mut self) -> io::Result<()> {
        if let Some((clause, first, statuses)) = self.pending.take() {
            let covers = first..first + statuses.len();
            let case = Case {
                id: self.ids[first].clone(),
                call: Call::RetryableMany { statuses },
            };
            self.emit(case, covers, true, clause)?;
        }
        Ok(())
    }

    /// Adds `status` (check `i` of clause `c`) to the batch, starting a new
    /// one when it cannot join the current one.
    fn batch(&mut self, c: usize, i: usize, status: u16) -> io::Result<()> {
        let joins = matches!(&self.pending, Some((pc, first, st)) if *pc == c && first + st.len() == i && st.len() < BATCH);
        if !joins {
            self.flush_batch()?;
            self.pending = Some((c, i, Vec::new()));
        }
        if let Some((_, _, st)) = &mut self.pending {
            st.push(status);
        }
        Ok(())
    }
}

pub(super) fn write_selected(
    suite: &Suite,
    ids: &[String],
    batching: bool,
    wanted: &dyn Fn(usize) -> bool,
) -> io::Result<CasesFile> {
    let sealed = crate::platform::sealable_file()?;
    let out = io::BufWriter::new(sealed.try_clone()?);
    let file = CasesFile {
        file: sealed,
        covers: Vec::new(),
        batch: Vec::new(),
        clause: Vec::new(),
        ids: Vec::new(),
    };
    let mut w = Writer {
        out,
        file,
        ids,
        pending: None,
    };
    w.out.write_all(
        wire::to_line(&Header {
            protocol: PROTOCOL.into(),
        })
        .as_bytes(),
    )?;
    w.out.write_all(b"\n")?;
    let mut i = 0;
    for (c, clause) in suite.clauses.iter().enumerate() {
        for check in &clause.checks {
            match (&check.call, batching && wanted(i)) {
                _ if !wanted(i) => w.flush_batch()?,
                (Call::Retryable { status }, true) => w.batch(c, i, *status)?,
                _ => {
                    w.flush_batch()?;
                    let case = Case {
                        id: ids[i].clone(),
                        call: check.call.clone(),
                    };
                    w.emit(case, i..i + 1, false, c)?;
                }
            }
            i += 1;
        }
    }
    w.flush_batch()?;
    w.out.flush()?;
    crate::platform::seal(&w.file.file)?;
    Ok(w.file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_travel_in_batches_within_a_clause_and_singles_when_asked() {
        let suite = crate::suites::build("01", 5);
        let n: usize = suite.clauses.iter().map(|c| c.checks.len()).sum();
        let ids: Vec<String> = (0..n).map(|i| format!("c{i}")).collect();
        let batched = write_cases(&suite, &ids).unwrap();
        assert!(
            batched.covers.len() < n / 100,
            "{} cases for {n} checks",
            batched.covers.len()
        );
        // Every check is covered exactly once, in order, and no batch crosses a clause.
        let mut next = 0;
        for (k, r) in batched.covers.iter().enumerate() {
            assert_eq!(r.start, next);
            assert!(r.len() <= BATCH && batched.batch[k]);
            next = r.end;
        }
        assert_eq!(next, n);
        let first_clause = suite.clauses[0].checks.len();
        assert!(batched
            .covers
            .iter()
            .all(|r| r.end <= first_clause || r.start >= first_clause));
        let singles = write_selected(&suite, &ids, false, &|i| i % 1000 == 0).unwrap();
        assert_eq!(singles.covers.len(), n.div_ceil(1000));
        assert!(singles.batch.iter().all(|b| !b) && singles.covers.iter().all(|r| r.len() == 1));
    }
}
