//! Search benchmarks that assert the move they find while they time: each agent, with a fixed
//! iteration budget (reproducible), must take Connect Four's only non-losing move (P1 blocks
//! column b, where P0 threatens four) and complete its own four when it can. Run with
//! `cargo bench --features bench --bench search`.

use descent::arena::{AgentFactory, AgentRng, AgentSpec};
use descent::games::{ConnectFour, Game, GameExt};
use descent::value::NetDevice;
use divan::Bencher;
use rand::SeedableRng;

fn main() {
    divan::main();
}

/// Times one move of `spec` from the position after `moves`, asserting it is `expected`.
fn best_move(bencher: Bencher<'_, '_>, spec: &str, moves: &str, expected: &str) {
    let factory: AgentFactory<ConnectFour> = AgentFactory::new(
        spec.parse::<AgentSpec>().unwrap(),
        ConnectFour::NAME,
        &NetDevice::cpu(),
    )
    .unwrap();
    let mut position = ConnectFour::new(&Default::default());
    position.play_moves(moves).unwrap();
    bencher.bench_local(|| {
        let mut agent = factory.build();
        let choice = agent.choose_move(&position, &mut AgentRng::seed_from_u64(3));
        let text = ConnectFour::action_to_text(position.to_move(), choice.action);
        assert_eq!(text, expected, "{spec}");
    });
}

const BLOCK: &str = "a b c b e b";
const WIN: &str = "a b a b a b";

#[divan::bench(args = ["descent:iters=200", "ubfms:iters=200", "mcts:iters=2000", "alphabeta:depth=4"])]
fn block_the_four(bencher: Bencher<'_, '_>, spec: &str) {
    best_move(bencher, spec, BLOCK, "b");
}

#[divan::bench(args = ["descent:iters=200", "ubfms:iters=200", "mcts:iters=2000", "alphabeta:depth=4"])]
fn complete_the_four(bencher: Bencher<'_, '_>, spec: &str) {
    best_move(bencher, spec, WIN, "a");
}
