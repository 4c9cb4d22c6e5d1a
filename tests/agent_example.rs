//! The `agent_loop` example runs to its committed result.

#[path = "../examples/agent_loop.rs"]
mod agent_loop;

#[test]
fn example_agent_loop_approves_rejects_and_commits_the_corrected_submit() {
    // The example checks each step itself: the hold, the approval, the rejected submit and
    // the committed resubmit; any deviation is an error.
    agent_loop::main().unwrap();
}
