//! Prints the assembled kernel source for one group's MSM (for reading, or compiling with
//! another tool): `cargo run -p fastzk-gpu --example kernel_source [bn254_g1|…]`.
use fastzk_gpu::Source;

fn main() {
    let which = std::env::args().nth(1).unwrap_or_else(|| "bn254_g1".into());
    let mut s = Source::new();
    match which.as_str() {
        "bn254_g1" => s.msm::<fastzk_curve::bn254::G1Config>(),
        "bn254_g2" => s.msm::<fastzk_curve::bn254::G2Config>(),
        "bls12_381_g1" => s.msm::<fastzk_curve::bls12_381::G1Config>(),
        "bls12_381_g2" => s.msm::<fastzk_curve::bls12_381::G2Config>(),
        other => {
            eprintln!("unknown group {other}: bn254_g1, bn254_g2, bls12_381_g1, bls12_381_g2");
            std::process::exit(2);
        }
    };
    print!("{}", s.text());
}
