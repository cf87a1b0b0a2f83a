//! Where each record of a Claude Code transcript goes when all it holds is handed on in the
//! order of its history (the v5 import): the chain, and every record off it placed among the
//! chain in file order, with a note where its place needs saying.

use crate::chain as claude;

/// A transcript message placed in the history, in the order it is handed on.
pub(crate) struct Placed {
    /// Its position in the transcript's index.
    pub(crate) pos: u32,
    /// Not on the chain a resume loads (with `--full`, its earlier history).
    pub(crate) off_chain: bool,
    /// Why it is where it is, when that is not the chain's own order.
    pub(crate) note: Option<String>,
}

/// The order of all a transcript holds: the chain a resume loads (with its earlier history unless
/// `effective`), and, unless `effective`, every other transcript message — other branches,
/// sidechains, parts a broken link cut off — in file order, each run of them before the first
/// chain record written after it. A record whose link is broken, and the first of each run
/// off the chain, carry a note saying so.
pub(crate) fn order(t: &claude::Transcript, chain: &claude::Chain, positions: &[u32], effective: bool) -> Vec<Placed> {
    let parents = t.parents();
    let mut on_chain = vec![false; t.nodes.len()];
    for &p in positions {
        on_chain[p as usize] = true;
    }
    let dangling = |p: u32| -> Option<String> {
        let n = t.node(p);
        let id = n.parent_id()?;
        parents[p as usize].is_none().then(|| t.ids.text(id))
    };
    let chain_note = |p: u32, first: bool| -> Option<String> {
        let missing = dangling(p)?;
        Some(match chain.bridges.iter().find(|b| b.child == p) {
            Some(b) => format!(
                "parent {missing} is not in the file; linked to {} as Claude Code does",
                t.uuid_text(b.to)
            ),
            None if first => format!("parent {missing} is not in the file: the conversation starts here"),
            None => format!(
                "parent {missing} is not in the file: the link to what came before is broken, and the messages before this one are in file order"
            ),
        })
    };
    let off_note = |p: u32| -> String {
        let n = t.node(p);
        if n.is_sidechain() {
            return "off the chain a resume loads: a sidechain (subagent) message; in file order".into();
        }
        if let Some(missing) = dangling(p) {
            return format!(
                "off the chain a resume loads: parent {missing} is not in the file, so this part is not linked to the conversation; in file order"
            );
        }
        match parents[p as usize] {
            Some(q) if on_chain[q as usize] => format!(
                "off the chain a resume loads: a branch from {} that the conversation does not continue; in file order",
                t.uuid_text(q)
            ),
            _ => "off the chain a resume loads: not reached from its last message; in file order".into(),
        }
    };
    let mut off: Vec<u32> = if effective {
        Vec::new()
    } else {
        (0..t.nodes.len() as u32).filter(|&p| !on_chain[p as usize]).collect()
    };
    off.sort_by_key(|&p| t.node(p).line);
    let mut out = Vec::with_capacity(positions.len() + off.len());
    let mut off = off.into_iter().peekable();
    let mut push_off = |out: &mut Vec<Placed>, upto: u64| {
        let mut first = true;
        while let Some(p) = off.next_if(|&p| t.node(p).line < upto) {
            out.push(Placed {
                pos: p,
                off_chain: true,
                note: std::mem::replace(&mut first, false).then(|| off_note(p)),
            });
        }
    };
    for &p in positions {
        push_off(&mut out, t.node(p).line);
        let first = out.is_empty();
        out.push(Placed {
            pos: p,
            off_chain: false,
            note: chain_note(p, first),
        });
    }
    push_off(&mut out, u64::MAX);
    out
}
