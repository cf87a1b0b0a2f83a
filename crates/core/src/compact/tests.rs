use super::*;

fn prompt(tokens: usize) -> Unit {
    let mut u = Unit::of_messages(&[MessageV3::new("user", vec![Item::text("x".repeat(tokens * 4))])]);
    u.prompt = true;
    u
}

fn call(id: &str, tokens: usize) -> Unit {
    let call = Item::tool_call(id, "x".repeat(tokens * 4), Value::String(String::new()));
    Unit::of_messages(&[MessageV3::new("assistant", vec![call])])
}

fn result(id: &str, tokens: usize) -> Unit {
    let content = Value::String("r".repeat(tokens * 4));
    Unit::of_messages(&[MessageV3::tool(id, vec![Item::tool_result(content)])])
}

#[test]
fn a_call_and_its_result_stay_on_one_side() {
    let units = vec![
        prompt(10),
        call("a", 10),
        result("a", 10),
        call("b", 10),
        result("b", 10),
    ];
    assert_eq!(safe_cuts(&units), vec![true, true, false, true, false, true]);
}

fn opts(keep_recent: usize, budget: Option<usize>) -> Options {
    Options {
        keep_recent,
        budget,
        ..Options::default()
    }
}

#[test]
fn keeps_at_least_keep_recent_between_exchanges_when_the_prompt_is_far_back() {
    let units = vec![
        prompt(100),
        call("a", 100),
        result("a", 100),
        prompt(100),
        call("b", 100),
        result("b", 100),
    ];
    // The prompt at 3 would keep 300 for a request of 150: the cut is before call b.
    let c = plan(&units, &opts(150, None), |_| 10).unwrap();
    assert_eq!((c.at, c.tail_tokens, c.on_prompt), (4, 200, false));
    // Exactly a prompt boundary's tail: cut there.
    let c = plan(&units, &opts(300, None), |_| 10).unwrap();
    assert_eq!((c.at, c.on_prompt), (3, true));
    // Never between a call and its result: 350 is kept as 400.
    assert_eq!(plan(&units, &opts(350, None), |_| 10).unwrap().at, 1);
}

#[test]
fn a_prompt_boundary_wins_within_the_tolerance() {
    let units = vec![
        prompt(100),
        call("a", 100),
        result("a", 100),
        prompt(4),
        call("b", 100),
        result("b", 100),
    ];
    // Latest legal cut keeping 200 is at 4 (200); the prompt at 3 keeps 204, within 10.
    let c = plan(&units, &opts(200, None), |_| 10).unwrap();
    assert_eq!((c.at, c.on_prompt), (3, true));
    // With a budget, a prompt boundary may keep a little less than the largest tail that
    // fits (a twentieth), and no more than that.
    let units = |b: usize| {
        vec![
            prompt(100),
            call("a", 100),
            result("a", 100),
            call("b", b),
            result("b", b),
            prompt(100),
            call("c", 100),
            result("c", 100),
        ]
    };
    // Largest fitting tail 308 (at 3); the prompt at 5 keeps 300, within 15.
    let c = plan(&units(4), &opts(0, Some(318)), |_| 10).unwrap();
    assert_eq!((c.at, c.tail_tokens, c.on_prompt), (5, 300, true));
    // Largest fitting tail 340 (at 3); the prompt at 5 keeps 300, 40 less than that.
    let c = plan(&units(20), &opts(0, Some(350)), |_| 10).unwrap();
    assert_eq!((c.at, c.tail_tokens, c.on_prompt), (3, 340, false));
}

#[test]
fn a_budget_keeps_the_tool_exchanges_that_fit_when_the_prompt_is_far_back() {
    // One prompt, then a long agentic turn: the budget is met between exchanges, not by
    // summarising the whole turn.
    let mut units = vec![prompt(100)];
    for id in ["a", "b", "c", "d"] {
        units.push(call(id, 50));
        units.push(result(id, 50));
    }
    let c = plan(&units, &opts(20_000, Some(350)), |_| 10).unwrap();
    assert_eq!((c.at, c.tail_tokens, c.tail_reduced), (3, 300, true));
}

#[test]
fn budget_takes_the_smallest_span_and_can_shorten_the_tail() {
    let units = vec![prompt(100), prompt(100), prompt(100), prompt(100), prompt(100)];
    let opts = Options {
        keep_recent: 100,
        budget: Some(350),
        ..Options::default()
    };
    let c = plan(&units, &opts, |_| 10).unwrap();
    assert_eq!((c.at, c.tail_reduced), (2, false));
    let opts = Options {
        keep_recent: 400,
        budget: Some(250),
        ..Options::default()
    };
    let c = plan(&units, &opts, |_| 10).unwrap();
    assert_eq!((c.at, c.tail_reduced), (3, true));
    // Already under budget: nothing to do.
    let opts = Options {
        budget: Some(10_000),
        ..Options::default()
    };
    assert!(plan(&units, &opts, |_| 10).is_none());
}

#[test]
fn nothing_to_compact_when_everything_is_recent() {
    let units = vec![prompt(10), prompt(10)];
    assert!(plan(&units, &Options::default(), |_| 0).is_none());
}

/// A recap of an earlier compaction within the most recent `keep_recent` tokens, with far more
/// before it: the span ends after the recap (which must go into the new one) and the shorter
/// tail is reported, instead of "nothing to compact: everything is recent".
#[test]
fn an_earlier_recap_among_the_recent_tokens_still_lets_the_rest_be_compacted() {
    let mut units = vec![prompt(100), call("a", 100), result("a", 100), prompt(100)];
    let mut recap = prompt(50);
    recap.prompt = false;
    recap.earlier.push(Earlier::Text("what came before".into()));
    units.push(recap);
    units.extend([prompt(20), call("b", 20), result("b", 20)]);
    let c = plan(&units, &opts(300, None), |_| 0).expect("a cut after the earlier recap");
    assert_eq!((c.at, c.tail_tokens, c.tail_reduced), (5, 60, true));
    // Everything within keep_recent is still nothing to compact.
    assert!(plan(&units, &opts(10_000, None), |_| 0).is_none());
}
