//! The clauses about the field itself (missing, doubled, empty, too long)
//! and about delays in seconds.

use super::super::super::Builder;
use super::super::add;
use super::super::model::{self, err, Form, DELAY_LIMIT};
use super::dated;
use super::written::{
    any_receipt, any_value, at, blank, digits, padded, receipt, receipt_year, valid,
};
use crate::rng::Gen;
use lab_scripts::s10::{Kind, Observed};

/// `missing-or-duplicate` and `empty-or-oversized`.
pub(super) fn fields(b: &mut Builder, g: &mut Gen) {
    for _ in 0..15 {
        let received = any_receipt(g);
        if g.chance(1, 4) {
            add(
                b,
                "missing-or-duplicate",
                vec![],
                received,
                err(Kind::Missing),
            );
            continue;
        }
        let mut fields: Vec<String> = (0..g.int(2, 4)).map(|_| any_value(g, received)).collect();
        if g.chance(1, 3) {
            fields[1] = fields[0].clone();
        }
        add(
            b,
            "missing-or-duplicate",
            fields,
            received,
            err(Kind::Duplicate),
        );
    }

    for i in 0..24 {
        let received = any_receipt(g);
        let key = "empty-or-oversized";
        if i % 3 == 0 {
            // Blanks only, however many: nothing is left after trimming.
            let len = if g.chance(1, 3) {
                g.int(129, 300)
            } else {
                g.int(0, 128)
            };
            let value = blank(g, len);
            add(b, key, vec![value], received, err(Kind::Empty));
            continue;
        }
        // The limit counts what is left after trimming.
        let (core, expect) = if i % 3 == 1 {
            let len = g.int(129, 200) as usize;
            let core = match g.below(4) {
                0 => "x".repeat(len),
                1 => "\u{e9}".repeat(len),
                2 => digits(100 + g.below(900), len as i64 - 3),
                _ => {
                    let head = format!("{}, ", g.below(100));
                    head.clone() + &"5".repeat(len - head.len())
                }
            };
            (core, err(Kind::Oversized))
        } else {
            // A short delay that no other rule questions: only the padding
            // is long (padded dates and syntax errors are their clauses').
            let v = g.below(100_000);
            let zeros = g.int(0, 128 - v.to_string().len() as i64);
            (digits(v, zeros), Observed::Ok { value: v as u32 })
        };
        let len = core.chars().count() as i64;
        let extra = if len > 128 {
            g.int(0, 60)
        } else {
            g.int(129 - len, 200)
        };
        let left = g.int(0, extra);
        let value = format!("{}{core}{}", blank(g, left), blank(g, extra - left));
        add(b, key, vec![value], received, expect);
    }
}

/// `delay-seconds` and `delay-limit`.
pub(super) fn delays(b: &mut Builder, g: &mut Gen) {
    for _ in 0..30 {
        let received = any_receipt(g);
        let width = g.int(1, 10) as u32;
        let lo = if width == 1 { 0 } else { 10u64.pow(width - 1) };
        let hi = (10u64.pow(width) - 1).min(DELAY_LIMIT as u64);
        let v = lo + g.below(hi - lo + 1);
        let zeros = if g.chance(1, 3) { g.int(1, 20) } else { 0 };
        let text = padded(g, &digits(v, zeros));
        let expect = Observed::Ok { value: v as u32 };
        add(b, "delay-seconds", vec![text], received, expect);
    }

    for i in 0..25 {
        let r = receipt_year(g);
        let received = receipt(g, r);
        let form = if g.chance(1, 2) {
            Form::Imf
        } else {
            Form::Asctime
        };
        match i % 5 {
            0 => {
                let v = (DELAY_LIMIT + g.int(-3, 3)) as u64;
                let zeros = g.int(0, 20);
                let text = padded(g, &digits(v, zeros));
                add(
                    b,
                    "delay-limit",
                    vec![text],
                    received,
                    model::delay(v as i64),
                );
            }
            1 => {
                let len = g.int(11, 120) as usize;
                let mut text = (1 + g.below(9)).to_string();
                while text.len() < len {
                    text.push(char::from(b'0' + g.below(10) as u8));
                }
                let text = padded(g, &text);
                add(b, "delay-limit", vec![text], received, err(Kind::OverLimit));
            }
            2 => {
                let v = DELAY_LIMIT as u64 + 1 + g.below(10_000_000_000 - DELAY_LIMIT as u64);
                let text = padded(g, &v.to_string());
                add(b, "delay-limit", vec![text], received, err(Kind::OverLimit));
            }
            3 => {
                let w = at(received + DELAY_LIMIT + g.int(-2, 2), form, g.chance(1, 2));
                dated(b, g, "delay-limit", &w, received);
            }
            _ => {
                let year = g.int(r + 70, 9999);
                let w = valid(g, form, year, false);
                dated(b, g, "delay-limit", &w, received);
            }
        }
    }
}
