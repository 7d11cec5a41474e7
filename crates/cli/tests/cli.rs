//! The `fastzk` binary as users and scripts call it: exit statuses 0/1/2 of `verify` on
//! snarkjs' own files, errors naming the file, the JSON error format, and `info`.
//! (The protocols themselves are tested in their crates and against snarkjs in
//! `interop/`; this building of the binary is also the one CI's interop suite runs.)

use std::path::PathBuf;
use std::process::{Command, Output};

use fastzk_testing::fixtures;

fn fastzk(args: &[&str]) -> Output {
    fastzk_with_env(args, &[])
}

/// `fastzk` with these variables set, and the CPU-feature switches cleared otherwise (so
/// a test run under `FASTZK_NO_ADX=1` still sees the machine's own defaults).
fn fastzk_with_env(args: &[&str], envs: &[(&str, &str)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fastzk"))
        .args(args)
        .env_remove("FASTZK_NO_ADX")
        .env_remove("FASTZK_NO_IFMA")
        .envs(envs.iter().copied())
        .output()
        .expect("the fastzk binary runs")
}

fn fixture(rel: &str) -> String {
    fixtures::path(rel).to_string_lossy().into_owned()
}

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli-tests");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// snarkjs' proofs verify (exit 0), whichever protocol and curve the key names, and the
/// same proof against another public input is rejected (exit 1).
#[test]
fn verify_exit_statuses_on_snarkjs_files() {
    for curve in ["bn254", "bls12_381"] {
        for protocol in ["", "_plonk"] {
            let vk = fixture(&format!("{curve}/multiplier{protocol}_vk.json"));
            let public = fixture(&format!("{curve}/multiplier{protocol}_public.json"));
            let proof = fixture(&format!("{curve}/multiplier{protocol}_proof.json"));
            let ok = fastzk(&["verify", &vk, &public, &proof]);
            assert_eq!(ok.status.code(), Some(0), "{curve}{protocol}: {ok:?}");

            let text = std::fs::read_to_string(&public).unwrap();
            let mut wrong: Vec<String> = serde_json::from_str(&text).unwrap();
            wrong[0] = (wrong[0].parse::<u64>().unwrap() + 1).to_string();
            let wrong_path = scratch(&format!("{curve}{protocol}_wrong_public.json"));
            std::fs::write(&wrong_path, serde_json::to_string(&wrong).unwrap()).unwrap();
            let bad = fastzk(&["verify", &vk, wrong_path.to_str().unwrap(), &proof]);
            assert_eq!(bad.status.code(), Some(1), "{curve}{protocol}: {bad:?}");
        }
    }
}

/// A missing file is bad input (exit 2), and the message names it; with
/// `--error-format json` the same error is one JSON object carrying the status.
#[test]
fn missing_file_is_exit_2_naming_it() {
    let missing = scratch("no-such-vk.json");
    let missing = missing.to_str().unwrap();
    let public = fixture("bn254/multiplier_public.json");
    let proof = fixture("bn254/multiplier_proof.json");

    let text = fastzk(&["verify", missing, &public, &proof]);
    assert_eq!(text.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&text.stderr);
    assert!(
        stderr.contains(missing),
        "stderr does not name the file: {stderr}"
    );

    let json = fastzk(&["--error-format", "json", "verify", missing, &public, &proof]);
    assert_eq!(json.status.code(), Some(2));
    let error: serde_json::Value = serde_json::from_slice(&json.stderr).expect("one JSON object");
    assert_eq!(error["exit_status"], 2);
    assert!(error["error"].as_str().unwrap().contains(missing));
}

/// A proof file that is not a proof is bad input, not an invalid proof.
#[test]
fn garbage_proof_is_exit_2() {
    let garbage = scratch("garbage_proof.json");
    std::fs::write(&garbage, b"{\"pi_a\": [\"1\", \"2\"").unwrap();
    let out = fastzk(&[
        "verify",
        &fixture("bn254/multiplier_vk.json"),
        &fixture("bn254/multiplier_public.json"),
        garbage.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}

/// `info` lists each CPU feature with whether the hardware has it and whether it is in
/// use, and the documented environment switch takes MULX/ADX out of use.
#[test]
fn info_reports_cpu_features_and_switches() {
    let columns = |envs: &[(&str, &str)]| {
        let out = fastzk_with_env(&["info"], envs);
        assert_eq!(out.status.code(), Some(0));
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(stdout.contains("avx512ifma"), "{stdout}");
        let line = stdout
            .lines()
            .find(|l| l.starts_with("mulx/adx"))
            .unwrap_or_else(|| panic!("no mulx/adx line: {stdout}"))
            .to_owned();
        let words: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
        (words[1].clone(), words[2].clone())
    };
    let (hardware, in_use) = columns(&[]);
    assert_eq!(in_use, hardware, "MULX/ADX is used whenever the CPU has it");
    let (_, switched) = columns(&[("FASTZK_NO_ADX", "1")]);
    assert_eq!(switched, "no");
    // The layer's kernel lanes: AVX-512's where the CPU has it, off by the switch.
    let lanes = |envs: &[(&str, &str)]| {
        let out = fastzk_with_env(&["info"], envs);
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        stdout
            .lines()
            .find_map(|l| l.strip_prefix("kernel lanes (the single-source layer's CPU loop): "))
            .unwrap_or_else(|| panic!("no kernel lanes line: {stdout}"))
            .to_owned()
    };
    let info = String::from_utf8_lossy(&fastzk_with_env(&["info"], &[]).stdout).into_owned();
    let avx512_in_use = info
        .lines()
        .any(|l| l.starts_with("avx512f") && l.split_whitespace().nth(2) == Some("yes"));
    assert_eq!(lanes(&[]).starts_with("avx512"), avx512_in_use, "{info}");
    assert!(lanes(&[("FASTZK_NO_KERNEL_LANES", "1")]).starts_with("off"));
    // The feature level follows the same switches.
    let level = |envs: &[(&str, &str)]| {
        let out = fastzk_with_env(&["info"], envs);
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        stdout
            .lines()
            .find_map(|l| l.strip_prefix("feature level (BENCHMARKS.md's tables): "))
            .and_then(|l| l.split_whitespace().next())
            .unwrap_or_else(|| panic!("no feature level line: {stdout}"))
            .to_owned()
    };
    let ifma_in_use = info
        .lines()
        .any(|l| l.starts_with("avx512ifma") && l.split_whitespace().nth(2) == Some("yes"));
    let without_ifma = if in_use == "yes" { "adx" } else { "portable" };
    let expected = if ifma_in_use { "ifma" } else { without_ifma };
    assert_eq!(level(&[]), expected, "{info}");
    assert_eq!(level(&[("FASTZK_NO_IFMA", "1")]), without_ifma);
    assert_eq!(
        level(&[("FASTZK_NO_ADX", "1"), ("FASTZK_NO_IFMA", "1")]),
        "portable"
    );
    // Whether circom's generators run in process follows the cargo feature.
    let runtime = if cfg!(feature = "witness-runtime") {
        "run in process (wasmtime)"
    } else {
        "not built in"
    };
    assert!(
        info.lines().any(|l| l
            .strip_prefix("circom witness generators (.wasm): ")
            .is_some_and(|l| l.starts_with(runtime))),
        "{info}"
    );
}

/// `bench layer` runs each sumcheck both ways and compares the proofs (a mismatch is an
/// error); the outer sumcheck runs in Goldilocks' cubic extension, as Spartan's does.
#[test]
fn bench_layer_compares_both_sumchecks() {
    for (op, field, named) in [
        ("product3", "goldilocks", "goldilocks"),
        ("eq-r1cs", "goldilocks", "goldilocks-ext3"),
        ("eq-r1cs", "bn254", "bn254"),
    ] {
        let args = format!("bench layer --op {op} --field {field} --log-size 6 --runs 1 --json");
        let out = fastzk(&args.split(' ').collect::<Vec<_>>());
        assert_eq!(out.status.code(), Some(0), "{op} {field}: {out:?}");
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        assert_eq!(report["field"], named, "{report}");
        assert_eq!(report["checked"], "same proof", "{report}");
        assert!(
            report["layer_median_ms"].as_f64().unwrap() > 0.0,
            "{report}"
        );
    }
}

/// `bench msm --precompute` checks the fixed-base mode against the engine (a mismatch is
/// an error, exit 2) and reports its window, time and table size, for G1 and G2.
#[test]
fn bench_msm_precompute_reports_the_fixed_base_mode() {
    for (curve, group) in [("bn254", "g1"), ("bls12_381", "g2")] {
        let out = fastzk(&[
            "bench",
            "msm",
            "--curve",
            curve,
            "--group",
            group,
            "--log-size",
            "7",
            "--runs",
            "1",
            "--window",
            "5",
            "--precompute",
            "--json",
        ]);
        assert_eq!(out.status.code(), Some(0), "{curve} {group}: {out:?}");
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        let fixed = &report["precomputed"];
        assert_eq!(fixed["window"], 5, "{report}");
        assert!(fixed["median_ms"].as_f64().unwrap() > 0.0, "{report}");
        // 2^7 bases, each shifted once per 5-bit window of the signed digits (bits + 1 of
        // them), each an affine point: its coordinates and at most a word of flag.
        let (scalar_bits, coordinate_bytes) = match group {
            "g1" => (254.0, 64.0),
            _ => (255.0, 192.0),
        };
        let windows = f64::ceil((scalar_bits + 1.0) / 5.0);
        let bytes = fixed["table_bytes"].as_f64().unwrap();
        let least = 128.0 * windows * coordinate_bytes;
        assert!(
            bytes >= least && bytes <= least + 128.0 * windows * 8.0,
            "{report}"
        );
    }
}
