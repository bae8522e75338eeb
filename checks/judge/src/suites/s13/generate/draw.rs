//! The pieces step 13's generated scripts are drawn from: suppliers'
//! names, requests, answers (transient, final, offers good and bad),
//! suppliers, and fan-out scenarios made of them.

use crate::rng::Gen;
use lab_scripts::s13::{Answer, Attempt, FanOutScript, Request, SupplierScript};
use lab_wire::F64;

const NAMES: [&str; 12] = [
    "acme", "bolt-co", "cogs", "delta", "echo", "fixit", "gizmo", "hexa", "Zeta", "b", "a2",
    "äpfel",
];
const ITEMS: [&str; 4] = ["bolt", "nut", "gear", "valve"];
pub(super) const NOT_RETRIED: [Answer; 8] = [
    Answer::Status { status: 404 },
    Answer::Status { status: 429 },
    Answer::Status { status: 500 },
    Answer::Status { status: 502 },
    Answer::LocalProtocol,
    Answer::Decode,
    Answer::Status { status: 400 },
    Answer::Status { status: 504 },
];
pub(super) const TRANSIENT: [Answer; 9] = [
    Answer::Status { status: 503 },
    Answer::Connect,
    Answer::ConnectTimeout,
    Answer::Read,
    Answer::ReadTimeout,
    Answer::Write,
    Answer::WriteTimeout,
    Answer::RemoteProtocol,
    Answer::PoolTimeout,
];

/// A transient answer that no special case owns: 503 or a transport
/// failure that is not a timeout (the timeouts being transient is
/// `retry-only-transient`'s).
pub(super) fn plain_transient(g: &mut Gen) -> Answer {
    *g.pick(&[
        Answer::Status { status: 503 },
        Answer::Connect,
        Answer::Read,
        Answer::Write,
        Answer::RemoteProtocol,
    ])
}

/// A transient answer: 503 half the time, else one of the transport ones.
pub(super) fn transient(g: &mut Gen) -> Answer {
    if g.chance(1, 2) {
        TRANSIENT[0]
    } else {
        *g.pick(&TRANSIENT[1..])
    }
}

fn request(g: &mut Gen) -> Request {
    Request {
        id: g.id("q-"),
        item: g.pick(&ITEMS).to_string(),
        quantity: g.int(1, 5) as u32,
    }
}

/// `n` distinct names, in a random order.
pub(super) fn names(g: &mut Gen, n: usize) -> Vec<String> {
    let mut pool: Vec<&str> = NAMES.to_vec();
    (0..n)
        .map(|_| pool.remove(g.below(pool.len() as u64) as usize).to_string())
        .collect()
}

pub(super) fn offer(g: &mut Gen, quantity: u32) -> Answer {
    Answer::Offer {
        unit_cents: g.int(1, 5000),
        quantity,
        shipping_cents: g.int(0, 900),
        in_stock: true,
    }
}

/// Any answer that ends a supplier's work, bad data included.
pub(super) fn final_answer(g: &mut Gen, quantity: u32) -> Answer {
    match g.below(8) {
        0..=2 => offer(g, quantity),
        3 => Answer::Offer {
            unit_cents: g.int(1, 900),
            quantity,
            shipping_cents: 0,
            in_stock: false,
        },
        4 => bad_offer(g, quantity),
        _ => *g.pick(&NOT_RETRIED),
    }
}

fn bad_offer(g: &mut Gen, quantity: u32) -> Answer {
    match g.below(4) {
        0 => Answer::Offer {
            unit_cents: -g.int(1, 500),
            quantity,
            shipping_cents: 10,
            in_stock: true,
        },
        1 => Answer::Offer {
            unit_cents: g.int(1, 500),
            quantity,
            shipping_cents: -g.int(1, 500),
            in_stock: true,
        },
        2 => Answer::Offer {
            unit_cents: g.int(1, 500),
            quantity: quantity + g.int(1, 3) as u32,
            shipping_cents: 10,
            in_stock: true,
        },
        _ => Answer::Offer {
            unit_cents: i64::MAX - g.int(0, 1000),
            quantity: quantity.max(2),
            shipping_cents: 0,
            in_stock: true,
        },
    }
}

fn cost(g: &mut Gen) -> F64 {
    F64(g.sixty_fourths(1, 64))
}

fn supplier(g: &mut Gen, name: &str, answers: &[Answer]) -> SupplierScript {
    SupplierScript {
        name: name.into(),
        attempts: answers
            .iter()
            .map(|&answer| Attempt {
                cost: cost(g),
                answer,
            })
            .collect(),
        fractions: vec![F64(g.sixty_fourths(0, 63))],
    }
}

/// A scenario with ample time (no supplier can run out of it).
fn roomy(g: &mut Gen, suppliers: Vec<SupplierScript>, slots: u32) -> FanOutScript {
    let start = g.sixty_fourths(0, 64 * 100);
    let capacity = g.int(1, 3) as u32;
    FanOutScript {
        request: Request {
            id: String::new(),
            item: String::new(),
            quantity: 1,
        },
        suppliers,
        slots,
        capacity,
        held: g.below(u64::from(capacity)) as u32,
        start: F64(start),
        deadline: F64(start + 64.0),
    }
}

/// A roomy scenario for `request` with one supplier per list of answers.
pub(super) fn scenario(g: &mut Gen, answers: &[Vec<Answer>], slots: u32) -> FanOutScript {
    let req = request(g);
    let names = names(g, answers.len());
    let sups = names
        .iter()
        .zip(answers)
        .map(|(n, a)| supplier(g, n, a))
        .collect();
    let mut s = roomy(g, sups, slots);
    s.request = req;
    s
}

fn quantity_fix(answers: &mut [Vec<Answer>], quantity: u32) {
    for a in answers.iter_mut().flatten() {
        if let Answer::Offer { quantity: q, .. } = a {
            if *q == 0 {
                *q = quantity;
            }
        }
    }
}

/// Answers for a supplier whose offers get the request's quantity later
/// (quantity 0 stands for "the request's").
pub(super) fn any_offer(g: &mut Gen) -> Answer {
    Answer::Offer {
        unit_cents: g.int(1, 5000),
        quantity: 0,
        shipping_cents: g.int(0, 900),
        in_stock: true,
    }
}

pub(super) fn gen_scenario(g: &mut Gen, mut answers: Vec<Vec<Answer>>, slots: u32) -> FanOutScript {
    let q = g.int(1, 5) as u32;
    quantity_fix(&mut answers, q);
    let mut s = scenario(g, &answers, slots);
    s.request.quantity = q;
    s
}

pub(super) fn random_answer(g: &mut Gen, q: u32) -> Answer {
    match g.below(10) {
        0..=2 => transient(g),
        3 if g.chance(1, 3) => Answer::Panic,
        3 => Answer::TimedOut,
        _ => final_answer(g, q),
    }
}
