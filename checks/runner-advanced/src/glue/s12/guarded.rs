//! Step 12 `guarded_read`: step 11's world of replies (the same
//! `ScriptedWorld`), with a clock that is state. It moves inside a send (by
//! the reply's cost, which may be negative or land on NaN or an infinity),
//! inside a close (by the script's step for that response) and inside a
//! non-zero sleep (by the script's wake); a reading never moves it, so
//! reading more or less often changes nothing. The n-th sleep may panic:
//! the runner sees whether that panic escapes.

use super::super::read::{play_read, world};
use super::wake;
use crate::advanced::guarded_read;
use lab_api::advanced::ScriptedWake;
use lab_scripts::s12::{Guarded, GuardedSeen};

/// The wakes of the whole read, the scripted panic in its place.
fn wakes(script: &Guarded) -> Vec<ScriptedWake> {
    let mut wakes: Vec<ScriptedWake> = script.wakes.iter().copied().map(wake).collect();
    // Sleeps are counted from 1: a panic at sleep 0 never happens.
    if let Some(n) = script.sleeper_panics.filter(|&n| n > 0) {
        let n = n as usize;
        if wakes.len() < n {
            wakes.resize(n, ScriptedWake::Exact);
        }
        wakes[n - 1] = ScriptedWake::Panics;
    }
    wakes
}

pub(super) fn play(script: Guarded) -> GuardedSeen {
    let s = &script.read;
    let world = world(s)
        .wakes(wakes(&script))
        .closing(script.closing.iter().map(|x| x.0).collect());
    let (events, ending) = play_read(world, s, true, guarded_read);
    GuardedSeen { events, ending }
}
