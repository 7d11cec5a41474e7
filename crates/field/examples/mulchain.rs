use fastzk_field::{bn254::Fr, Field};
#[inline(never)]
fn chain(mut x: Fr, y: Fr, n: u64) -> Fr {
    for _ in 0..n {
        x *= y;
    }
    x
}
fn main() {
    let x = Fr::from_u64(3);
    println!("{}", chain(x, x, std::env::args().count() as u64 * 1000));
}
