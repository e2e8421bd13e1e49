//! Rules benchmarks that assert a correct result while they time: perft counts (recorded in
//! `tests/rules/conformance.rs` with their sources) and random playouts that must end within the
//! game's maximum length. Run with `cargo bench --features bench --bench rules`.

use descent::games::perft::perft;
use descent::games::random_playout::run_playouts;
use descent::games::{
    Awale, AwaleParams, ConnectFour, Game, Hus, HusParams, Shobu, ShobuParams, TicTacToe,
};
use divan::Bencher;
use rand::SeedableRng;
use rand::rngs::Xoshiro256PlusPlus;

fn main() {
    divan::main();
}

#[divan::bench]
fn awale_perft_6(bencher: Bencher<'_, '_>) {
    let initial = Awale::new(&AwaleParams::default());
    bencher.bench(|| assert_eq!(perft(divan::black_box(&initial), 6), 27_332));
}

#[divan::bench]
fn connect_four_perft_7(bencher: Bencher<'_, '_>) {
    let initial = ConnectFour::new(&Default::default());
    bencher.bench(|| assert_eq!(perft(divan::black_box(&initial), 7), 823_536));
}

#[divan::bench]
fn tic_tac_toe_perft_9(bencher: Bencher<'_, '_>) {
    let initial = TicTacToe::new(&Default::default());
    bencher.bench(|| assert_eq!(perft(divan::black_box(&initial), 9), 127_872));
}

#[divan::bench]
fn hus_perft_5(bencher: Bencher<'_, '_>) {
    let initial = Hus::new(&HusParams::default());
    bencher.bench(|| assert_eq!(perft(divan::black_box(&initial), 5), 3_439_088));
}

#[divan::bench(sample_count = 10)]
fn hus_perft_6(bencher: Bencher<'_, '_>) {
    let initial = Hus::new(&HusParams::default());
    bencher.bench(|| assert_eq!(perft(divan::black_box(&initial), 6), 55_769_962));
}

#[divan::bench(sample_count = 10)]
fn shobu_perft_3(bencher: Bencher<'_, '_>) {
    let initial = Shobu::new(&ShobuParams::default());
    bencher.bench(|| assert_eq!(perft(divan::black_box(&initial), 3), 8_675_832));
}

/// 1 000 random games; `run_playouts` panics if one outlasts the game's maximum length.
fn playouts<G: Game>(bencher: Bencher<'_, '_>, initial: G) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(0);
    bencher.bench_local(|| {
        let totals = run_playouts(&initial, &mut rng, |games| games < 1000);
        assert_eq!(totals.games, 1000);
        totals.moves
    });
}

#[divan::bench]
fn awale_random_playouts_1000(bencher: Bencher<'_, '_>) {
    playouts(bencher, Awale::new(&AwaleParams::default()));
}

#[divan::bench]
fn connect_four_random_playouts_1000(bencher: Bencher<'_, '_>) {
    playouts(bencher, ConnectFour::new(&Default::default()));
}

#[divan::bench]
fn hus_random_playouts_1000(bencher: Bencher<'_, '_>) {
    playouts(bencher, Hus::new(&HusParams::default()));
}

#[divan::bench(sample_count = 10)]
fn shobu_random_playouts_1000(bencher: Bencher<'_, '_>) {
    playouts(bencher, Shobu::new(&ShobuParams::default()));
}
