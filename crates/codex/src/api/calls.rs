//! Calls without an output closed, outputs without a call dropped (X8, X9).

use super::*;

/// Namespace of the ids Codex derives for the outputs it adds (a UUIDv5 of `prefix:call-id`).
pub(super) const SYNTHETIC_OUTPUT_NAMESPACE: uuid::Uuid =
    uuid::Uuid::from_u128(0x90d3_8d3e_6a5b_4d52_bfe2_2f1e_634b_fac4);

pub(super) fn synthetic_id(prefix: &str, call_item_id: Option<&str>) -> Option<String> {
    let id = call_item_id.filter(|i| !i.is_empty())?;
    let u = uuid::Uuid::new_v5(&SYNTHETIC_OUTPUT_NAMESPACE, format!("{prefix}:{id}").as_bytes());
    Some(format!("{prefix}_{u}"))
}

/// Every call that expects an output and has none gets an `aborted` one right after it (X8).
pub(super) fn close_calls(items: &mut Vec<Wire>) -> usize {
    let mut answered: HashSet<(CallKind, String)> = HashSet::new();
    for it in items.iter() {
        match it {
            Wire::FunctionCallOutput { call_id, .. } => {
                answered.insert((CallKind::Function, call_id.clone()));
            }
            Wire::CustomToolCallOutput { call_id, .. } => {
                answered.insert((CallKind::Custom, call_id.clone()));
            }
            Wire::ToolSearchOutput {
                call_id: Some(call_id), ..
            } => {
                answered.insert((CallKind::ToolSearch, call_id.clone()));
            }
            _ => {}
        }
    }
    let mut missing: Vec<(usize, Wire)> = Vec::new();
    for (i, it) in items.iter().enumerate() {
        let Some((call_id, kind)) = it.call() else { continue };
        if answered.contains(&(kind, call_id.to_string())) {
            continue;
        }
        let call_id = call_id.to_string();
        let output = match kind {
            CallKind::Function => Wire::FunctionCallOutput {
                id: synthetic_id("fco", it.id()),
                call_id,
                output: Output::Text("aborted".into()),
            },
            CallKind::Custom => Wire::CustomToolCallOutput {
                id: synthetic_id("ctco", it.id()),
                call_id,
                name: None,
                output: Output::Text("aborted".into()),
            },
            CallKind::ToolSearch => Wire::ToolSearchOutput {
                id: synthetic_id("tso", it.id()),
                call_id: Some(call_id),
                status: "completed".into(),
                execution: "client".into(),
                tools: Vec::new(),
            },
        };
        missing.push((i, output));
    }
    let n = missing.len();
    for (i, output) in missing.into_iter().rev() {
        items.insert(i + 1, output);
    }
    n
}

/// Outputs whose call is not in the history are dropped (X9). Server-side tool searches and
/// tool search outputs without a call id stay.
pub(super) fn drop_orphans(items: &mut Vec<Wire>) -> usize {
    let mut calls: HashSet<(CallKind, String)> = HashSet::new();
    for it in items.iter() {
        if let Some((call_id, kind)) = it.call() {
            calls.insert((kind, call_id.to_string()));
        }
    }
    let before = items.len();
    items.retain(|it| match it {
        Wire::FunctionCallOutput { call_id, .. } => calls.contains(&(CallKind::Function, call_id.clone())),
        Wire::CustomToolCallOutput { call_id, .. } => calls.contains(&(CallKind::Custom, call_id.clone())),
        Wire::ToolSearchOutput { execution, .. } if execution == "server" => true,
        Wire::ToolSearchOutput {
            call_id: Some(call_id), ..
        } => calls.contains(&(CallKind::ToolSearch, call_id.clone())),
        _ => true,
    });
    before - items.len()
}
