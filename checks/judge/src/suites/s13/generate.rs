//! Step 13's generated scripts: per clause, then random ones, each with
//! the clause key it checks; `draw` has the pieces they are drawn from.

use crate::rng::Gen;
use lab_scripts::s13::{
    Answer, FanOutScript, GateOp, GateScript, Given, HttpScript, Report, Script, SupplierOutcome,
};
use lab_wire::F64;

mod draw;

use draw::{
    any_offer, final_answer, gen_scenario, names, offer, plain_transient, random_answer, scenario,
    transient, NOT_RETRIED, TRANSIENT,
};

/// The fraction whose pause, `0.02 + 0.01 × 0.34375`, is 3/128 exactly:
/// with it every sum of grid times and pauses is exact.
const EXACT_FRACTION: f64 = 0.34375;

/// Redraws the suppliers' fractions until no pause test of the scenario
/// depends on how a correct `fan_out` arranges `now + pause >= deadline`
/// (a pause is off the 1/64 grid, so a time reached after another
/// supplier's pause can round onto a tie). If a few draws do not do it,
/// every pause becomes 3/128, which keeps all sums exact.
pub(super) fn settle_pauses(s: &mut FanOutScript, g: &mut Gen) {
    for _ in 0..16 {
        if super::model::simulate(s).1.is_none() {
            return;
        }
        for x in &mut s.suppliers {
            x.fractions = vec![F64(g.sixty_fourths(0, 63))];
        }
    }
    for x in &mut s.suppliers {
        x.fractions = vec![F64(EXACT_FRACTION)];
    }
}

/// Makes every offer's total differ from every other's, so that only the
/// ranking clause's own scenarios have quotes with equal totals (a tie is
/// ranked by name: that is `ranking`'s rule, not theirs).
pub(super) fn distinct_totals(s: &mut FanOutScript) {
    let mut seen = std::collections::BTreeSet::new();
    for a in s.suppliers.iter_mut().flat_map(|x| &mut x.attempts) {
        if let Answer::Offer {
            unit_cents,
            quantity,
            shipping_cents,
            ..
        } = &mut a.answer
        {
            if *unit_cents < 0 || *shipping_cents < 0 || *unit_cents > 1 << 40 {
                continue;
            }
            let total = |shipping: i64| *unit_cents * i64::from(*quantity) + shipping;
            while !seen.insert(total(*shipping_cents)) {
                *shipping_cents += 1;
            }
        }
    }
}

/// The generated scripts, in order, each with its clause key.
pub(super) fn scripts(g: &mut Gen) -> Vec<(&'static str, Script)> {
    let mut out = Vec::new();
    let gen = |out: &mut Vec<(&'static str, Script)>, key: &'static str, s: Script| {
        out.push((key, s));
    };
    let gate = |capacity: u32, ops: Vec<GateOp>| Script::Gate(GateScript { capacity, ops });
    for _ in 0..8 {
        let c = g.int(1, 6) as u32;
        gen(&mut out, "gate-capacity", gate(c, vec![GateOp::InUse]));
        gen(&mut out, "gate-capacity", gate(0, vec![GateOp::InUse]));
        let mut ops = vec![GateOp::Acquire; c as usize + g.int(1, 3) as usize];
        ops.push(GateOp::InUse);
        ops.push(GateOp::Drop { pass: 0 });
        ops.push(GateOp::InUse);
        ops.push(GateOp::Acquire);
        ops.push(GateOp::Acquire);
        ops.push(GateOp::InUse);
        gen(&mut out, "gate-full-rejects", gate(c, ops));
        let held = g.int(1, i64::from(c)) as usize;
        let mut ops = vec![GateOp::Acquire; held];
        for p in (0..held).rev() {
            ops.push(GateOp::Drop { pass: p });
            ops.push(GateOp::Drop { pass: p });
            ops.push(GateOp::InUse);
        }
        ops.push(GateOp::Acquire);
        ops.push(GateOp::InUse);
        gen(&mut out, "gate-returns-on-drop", gate(c, ops));
        let held = g.int(0, i64::from(c) - 1) as usize;
        let mut ops = vec![GateOp::Acquire; held];
        ops.extend([
            GateOp::PanicHolding,
            GateOp::InUse,
            GateOp::PanicHolding,
            GateOp::InUse,
        ]);
        ops.push(GateOp::Acquire);
        ops.push(GateOp::InUse);
        gen(&mut out, "gate-returns-on-panic", gate(c, ops));
    }
    for _ in 0..4 {
        let c = g.int(1, 3) as u32;
        gen(
            &mut out,
            "gate-threads",
            gate(
                c,
                vec![
                    GateOp::Threads {
                        threads: g.int(2, 3) as u32,
                    },
                    GateOp::InUse,
                ],
            ),
        );
    }
    for _ in 0..15 {
        let n = g.int(1, 3) as usize;
        let answers: Vec<Vec<Answer>> = (0..n).map(|_| vec![any_offer(g)]).collect();
        let mut s = gen_scenario(g, answers, n as u32);
        if g.chance(1, 3) {
            s.held = s.capacity;
        }
        // Cases 0 to 5 break one rule of clause 6; 6 to 9 come as close to
        // a rule as a valid request can (the other side of its line).
        match g.below(10) {
            0 => s.suppliers.clear(),
            1 => {
                let i = g.below(n as u64) as usize;
                s.suppliers[i].name = String::new();
            }
            2 => {
                let copy = s.suppliers[0].clone();
                let at = g.below(n as u64 + 1) as usize;
                s.suppliers.insert(at, copy);
            }
            3 => s.request.quantity = 0,
            4 => s.request.id = g.pick(&["", " ", "\t", " \n ", "\u{3000}"]).to_string(),
            5 => s.deadline = F64(*g.pick(&[f64::NAN, f64::INFINITY, f64::NEG_INFINITY])),
            6 => {
                // Another supplier whose name differs only in ASCII case.
                let mut copy = s.suppliers[0].clone();
                let upper = copy.name.to_ascii_uppercase();
                copy.name = if upper != copy.name {
                    upper
                } else {
                    copy.name.to_ascii_lowercase()
                };
                let at = g.below(n as u64 + 1) as usize;
                s.suppliers.insert(at, copy);
                s.slots += 1;
            }
            7 => {
                // A name of white space only, or one with white space
                // around it next to the same name without.
                let i = g.below(n as u64) as usize;
                let name = *g.pick(&[" ", "\t", "  ", "\u{3000}"]);
                let mut copy = s.suppliers[i].clone();
                copy.name = if g.chance(1, 2) {
                    name.to_string()
                } else {
                    format!("{}{name}", copy.name)
                };
                s.suppliers.push(copy);
                s.slots += 1;
            }
            8 => {
                s.request.id = format!(
                    "{}{}{}",
                    g.pick(&["", " ", "\t", "\u{3000}"]),
                    g.pick(&["q 1", "q\t1", "q", "\u{a0}q"]),
                    g.pick(&["", " ", "\n"]),
                )
            }
            _ => {
                s.request.quantity = 1;
                for a in s.suppliers.iter_mut().flat_map(|x| &mut x.attempts) {
                    if let Answer::Offer { quantity, .. } = &mut a.answer {
                        *quantity = 1;
                    }
                }
                s.deadline = F64(s.start.0 + 1024.0);
            }
        }
        gen(&mut out, "invalid-input", Script::FanOut(s));
    }
    for k in 0..12 {
        let n = g.int(1, 3) as usize;
        let answers: Vec<Vec<Answer>> = (0..n).map(|_| vec![transient(g), any_offer(g)]).collect();
        let mut s = gen_scenario(g, answers, 1);
        s.held = s.capacity;
        if k % 3 == 2 {
            // The other side: a gate with room. The pass must be held
            // while run_all runs (in_use() == held + 1) and given back
            // after. The deadline is the start, so no slot is ever granted
            // and no call made: a slot mistake cannot show here first.
            let offer = any_offer(g);
            let mut one = gen_scenario(g, vec![vec![offer]], 1);
            one.capacity = g.int(1, 3) as u32;
            one.held = g.below(u64::from(one.capacity)) as u32;
            one.deadline = one.start;
            s = one;
        }
        gen(&mut out, "rejected-when-full", Script::FanOut(s));
    }
    for _ in 0..12 {
        // slot-limit: a slot for every supplier, so every call starts at
        // once (a wait moves a call's start: shared-deadline's); plain
        // offers only.
        let n = g.int(1, 5) as usize;
        let answers: Vec<Vec<Answer>> = (0..n).map(|_| vec![any_offer(g)]).collect();
        let slots = n as u32 + g.int(0, 2) as u32;
        gen(
            &mut out,
            "slot-limit",
            Script::FanOut(gen_scenario(g, answers, slots)),
        );
    }
    for _ in 0..16 {
        // shared-deadline: fewer slots than suppliers, so calls wait and
        // start late; one try each. Either everyone finishes, or everyone
        // times out (a mix is timed-out-keeps-finished's).
        let n = g.int(1, 4) as usize;
        let answers: Vec<Vec<Answer>> = (0..n).map(|_| vec![any_offer(g)]).collect();
        let slots = g.int(1, n as i64) as u32;
        let mut s = gen_scenario(g, answers, slots);
        let costs: f64 = s.suppliers.iter().map(|x| x.attempts[0].cost.0).sum();
        let span = match g.below(8) {
            // A deadline at or before the start: no call at all.
            0 => -g.sixty_fourths(0, 64),
            // Every call's reply comes at or after the deadline.
            1 => {
                let span = g.sixty_fourths(1, 32);
                for x in &mut s.suppliers {
                    x.attempts[0].cost = F64(span + g.sixty_fourths(0, 64));
                }
                span
            }
            // Time for every call, even one after the other.
            _ => costs + g.sixty_fourths(1, 64),
        };
        s.deadline = F64(s.start.0 + span);
        gen(&mut out, "shared-deadline", Script::FanOut(s));
    }
    for _ in 0..12 {
        // pause-outside-slot: supplier j's first call fails transiently
        // and its slot goes at once to the first supplier waiting; j
        // pauses, then waits for a slot until the deadline, for every
        // other call lasts until then. No second call (that is
        // same-request-id's) and nobody finishes (a mix of finished and
        // timed-out suppliers is timed-out-keeps-finished's).
        let slots = g.int(1, 3) as usize;
        let n = slots + g.int(1, 2) as usize;
        let j = g.below(slots as u64) as usize;
        let span = g.sixty_fourths(64, 128);
        let answers: Vec<Vec<Answer>> = (0..n)
            .map(|k| {
                if k == j {
                    vec![plain_transient(g), any_offer(g)]
                } else {
                    vec![any_offer(g)]
                }
            })
            .collect();
        let mut s = gen_scenario(g, answers, slots as u32);
        for (k, x) in s.suppliers.iter_mut().enumerate() {
            x.attempts[0].cost = F64(if k == j {
                g.sixty_fourths(1, 32)
            } else {
                span + g.sixty_fourths(0, 64)
            });
        }
        s.deadline = F64(s.start.0 + span);
        gen(&mut out, "pause-outside-slot", Script::FanOut(s));
    }
    for _ in 0..12 {
        let n = g.int(1, 3) as usize;
        // Two transport failures: a 503 in either round is
        // last-round-code's.
        let answers: Vec<Vec<Answer>> = (0..n)
            .map(|_| {
                vec![
                    *g.pick(&TRANSIENT[1..]),
                    *g.pick(&TRANSIENT[1..]),
                    any_offer(g),
                ]
            })
            .collect();
        let slots = g.int(1, n as i64) as u32;
        gen(
            &mut out,
            "two-attempts",
            Script::FanOut(gen_scenario(g, answers, slots)),
        );
    }
    for _ in 0..12 {
        let n = g.int(1, 4) as usize;
        let answers: Vec<Vec<Answer>> = (0..n)
            .map(|_| {
                let first = transient(g);
                let second = if g.chance(3, 4) {
                    transient(g)
                } else {
                    *g.pick(&NOT_RETRIED)
                };
                vec![first, second, any_offer(g)]
            })
            .collect();
        let slots = n as u32;
        gen(
            &mut out,
            "last-round-code",
            Script::FanOut(gen_scenario(g, answers, slots)),
        );
    }
    for _ in 0..16 {
        let n = g.int(1, 3) as usize;
        let answers: Vec<Vec<Answer>> = (0..n)
            .map(|_| {
                let first = if g.chance(1, 3) {
                    transient(g)
                } else {
                    *g.pick(&NOT_RETRIED)
                };
                vec![first, any_offer(g)]
            })
            .collect();
        let slots = n as u32;
        gen(
            &mut out,
            "retry-only-transient",
            Script::FanOut(gen_scenario(g, answers, slots)),
        );
    }
    for _ in 0..16 {
        let n = g.int(1, 4) as usize;
        let q = g.int(1, 5) as u32;
        let answers: Vec<Vec<Answer>> = (0..n)
            .map(|_| {
                // A timed-out supplier next to finished ones is
                // timed-out-keeps-finished's: TimedOut only alone.
                let a = if n == 1 && g.chance(1, 4) {
                    Answer::TimedOut
                } else {
                    final_answer(g, q)
                };
                vec![a, offer(g, q)]
            })
            .collect();
        let mut s = scenario(g, &answers, n as u32);
        s.request.quantity = q;
        gen(&mut out, "classification", Script::FanOut(s));
    }
    for _ in 0..12 {
        let n = g.int(1, 3) as usize;
        let answers: Vec<Vec<Answer>> = (0..n)
            .map(|_| vec![plain_transient(g), any_offer(g)])
            .collect();
        let slots = g.int(1, n as i64) as u32;
        gen(
            &mut out,
            "same-request-id",
            Script::FanOut(gen_scenario(g, answers, slots)),
        );
    }
    for _ in 0..12 {
        let n = g.int(2, 4) as usize;
        let mut answers: Vec<Vec<Answer>> = (0..n).map(|_| vec![any_offer(g)]).collect();
        let k = g.below(n as u64) as usize;
        answers[k] = if g.chance(1, 3) {
            vec![transient(g), Answer::Panic]
        } else {
            vec![Answer::Panic, any_offer(g)]
        };
        let slots = g.int(1, n as i64 - 1) as u32;
        gen(
            &mut out,
            "panic-escapes",
            Script::FanOut(gen_scenario(g, answers, slots)),
        );
    }
    for _ in 0..12 {
        let n = g.int(2, 4) as usize;
        let mut answers: Vec<Vec<Answer>> = (0..n).map(|_| vec![any_offer(g)]).collect();
        let mut s = gen_scenario(g, std::mem::take(&mut answers), n as u32);
        let span = g.sixty_fourths(16, 64);
        s.deadline = F64(s.start.0 + span);
        // At least one finishes well before the deadline, one never does.
        let fast = g.below(n as u64) as usize;
        let slow = (fast + 1 + g.below(n as u64 - 1) as usize) % n;
        s.suppliers[fast].attempts[0].cost = F64(g.sixty_fourths(1, 15));
        s.suppliers[slow].attempts[0].cost = F64(span + g.sixty_fourths(0, 64));
        gen(&mut out, "timed-out-keeps-finished", Script::FanOut(s));
    }
    for _ in 0..12 {
        let n = g.int(3, 6) as usize;
        let q = g.int(1, 3) as u32;
        let price = g.int(1, 3) * 100;
        let answers: Vec<Vec<Answer>> = (0..n)
            .map(|_| {
                vec![if g.chance(2, 3) {
                    Answer::Offer {
                        unit_cents: price + g.int(0, 1) * 50,
                        quantity: q,
                        shipping_cents: g.int(0, 1) * 50,
                        in_stock: true,
                    }
                } else {
                    final_answer(g, q)
                }]
            })
            .collect();
        let mut s = scenario(g, &answers, n as u32);
        s.request.quantity = q;
        gen(&mut out, "ranking", Script::FanOut(s));
    }
    for _ in 0..80 {
        let n = g.int(1, 5) as usize;
        let q = g.int(1, 5) as u32;
        let answers: Vec<Vec<Answer>> = (0..n)
            .map(|_| vec![random_answer(g, q), random_answer(g, q)])
            .collect();
        let slots = g.int(1, n as i64 + 1) as u32;
        let mut s = scenario(g, &answers, slots);
        s.request.quantity = q;
        s.deadline = F64(s.start.0 + g.sixty_fourths(-8, 64 * 3));
        if g.chance(1, 4) {
            // The service's defaults: 0.8 s, 6 outbound slots, 8 inbound.
            s.slots = 6;
            s.capacity = 8;
            s.held = g.below(8) as u32;
            s.deadline = F64(s.start.0 + 0.8);
        }
        if g.chance(1, 10) {
            s.held = s.capacity;
        }
        gen(&mut out, "random", Script::FanOut(s));
    }
    // Drawn last, so the scenarios above stay what they were.
    for k in 0..12 {
        let n = g.int(0, 5) as usize;
        let reports = names(g, n)
            .into_iter()
            .map(|supplier| Report {
                supplier,
                // Every third list: every supplier answered 503 twice.
                outcome: if k % 3 == 0 {
                    SupplierOutcome::HttpStatus { status: 503 }
                } else {
                    report_outcome(g)
                },
            })
            .collect();
        let given = Given::Ok { reports };
        gen(
            &mut out,
            "answered-is-200",
            Script::Http(HttpScript { given }),
        );
    }
    out
}

/// Any outcome a supplier's report can carry.
fn report_outcome(g: &mut Gen) -> SupplierOutcome {
    match g.below(9) {
        0 => SupplierOutcome::Quote {
            total_cents: g.int(1, 100_000) as u64,
        },
        1 => SupplierOutcome::OutOfStock,
        2 => SupplierOutcome::NotFound,
        3 => SupplierOutcome::HttpStatus {
            status: *g.pick(&[503, 429, 500, 502, 400]),
        },
        4 => SupplierOutcome::TransportError,
        5 => SupplierOutcome::BadData,
        6 => SupplierOutcome::Protocol,
        7 => SupplierOutcome::Decode,
        _ => SupplierOutcome::TimedOut,
    }
}
