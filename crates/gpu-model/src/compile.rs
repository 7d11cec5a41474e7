//! Compiling a source for an architecture without a GPU: NVRTC (as the runtime does), then
//! `ptxas -v` and `nvdisasm -c`, from the CUDA 13.0 pip wheels CI installs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::sass::{parse_nvdisasm, parse_ptxas_verbose, Function, Resources};
use crate::{Arch, ModelError};

const INSTALL: &str = "install the CUDA 13.0 series from pip (python3 -m pip install --target \
                       DIR nvidia-cuda-nvrtc==13.0.* nvidia-cuda-nvcc==13.0.* \
                       nvidia-cuda-nvdisasm==13.2.86), put DIR/nvidia/cu13/lib on \
                       LD_LIBRARY_PATH and set FASTZK_PTXAS=DIR/nvidia/cu13/bin/ptxas \
                       (.ci/run does all of this)";

/// The assembler and disassembler: `FASTZK_PTXAS` (else `ptxas` on the PATH) and
/// `FASTZK_NVDISASM` (else `nvdisasm` next to ptxas, else on the PATH). NVRTC is opened by
/// the runtime's loader.
#[derive(Clone, Debug)]
pub struct Toolchain {
    pub ptxas: PathBuf,
    pub nvdisasm: PathBuf,
}

impl Toolchain {
    pub fn find() -> Result<Self, ModelError> {
        fastzk_gpu::cuda::nvrtc_present().map_err(|e| ModelError::ToolMissing {
            tool: "NVRTC",
            why: e.to_string(),
            install: INSTALL,
        })?;
        let ptxas = PathBuf::from(std::env::var_os("FASTZK_PTXAS").unwrap_or("ptxas".into()));
        runs(&ptxas, "ptxas")?;
        let nvdisasm = match std::env::var_os("FASTZK_NVDISASM") {
            Some(p) => PathBuf::from(p),
            None => {
                let sibling = ptxas.with_file_name("nvdisasm");
                if sibling.is_file() {
                    sibling
                } else {
                    PathBuf::from("nvdisasm")
                }
            }
        };
        runs(&nvdisasm, "nvdisasm")?;
        Ok(Self { ptxas, nvdisasm })
    }
}

fn runs(tool: &Path, name: &'static str) -> Result<(), ModelError> {
    match Command::new(tool).arg("--version").output() {
        Ok(o) if o.status.success() => Ok(()),
        Ok(o) => Err(ModelError::ToolMissing {
            tool: name,
            why: format!(
                "{} --version: {}",
                tool.display(),
                String::from_utf8_lossy(&o.stderr).trim()
            ),
            install: INSTALL,
        }),
        Err(e) => Err(ModelError::ToolMissing {
            tool: name,
            why: format!("{}: {e}", tool.display()),
            install: INSTALL,
        }),
    }
}

/// A source compiled for an architecture: every function's SASS and resources.
#[derive(Clone, Debug)]
pub struct Compiled {
    pub arch: &'static str,
    pub functions: Vec<Function>,
    /// By symbol.
    pub resources: BTreeMap<String, Resources>,
}

impl Compiled {
    /// The entry function `kernel`.
    pub fn kernel(&self, kernel: &str) -> Option<&Function> {
        self.functions
            .iter()
            .find(|f| f.entry && f.kernel == kernel)
    }

    /// The function `name` as compiled into `kernel`.
    pub fn called(&self, kernel: &str, name: &str) -> Option<&Function> {
        self.functions
            .iter()
            .find(|f| !f.entry && f.kernel == kernel && f.name == name)
    }

    /// `f`'s instructions and multiply-add slots with those of the functions it calls, once
    /// per call site — except the doubling an addition calls only for equal inputs.
    pub fn inclusive(&self, f: &Function) -> (u32, u32) {
        let (mut instr, mut imad) = (f.instructions(), f.imad_slots());
        for (symbol, &sites) in &f.calls {
            let Some(callee) = self
                .functions
                .iter()
                .find(|g| !g.entry && g.kernel == f.kernel && &g.symbol == symbol)
            else {
                continue;
            };
            if f.name.contains("add") && callee.name.ends_with("_dbl") || callee.symbol == f.symbol
            {
                continue;
            }
            let (i, m) = self.inclusive(callee);
            instr += sites * i;
            imad += sites * m;
        }
        (instr, imad)
    }

    pub fn resources_of(&self, f: &Function) -> Resources {
        self.resources.get(&f.symbol).cloned().unwrap_or_default()
    }

    /// The entry functions.
    pub fn kernels(&self) -> impl Iterator<Item = &Function> {
        self.functions.iter().filter(|f| f.entry)
    }
}

static SERIAL: AtomicUsize = AtomicUsize::new(0);

/// `source` through NVRTC, `ptxas -v` (with `ptxas_args`, e.g. a register limit) and
/// `nvdisasm -c`.
pub fn compile(
    tools: &Toolchain,
    source: &str,
    arch: &Arch,
    ptxas_args: &[&str],
) -> Result<Compiled, ModelError> {
    let ptx = fastzk_gpu::cuda::compile_ptx(source, arch.name)?;
    let dir = std::env::temp_dir().join(format!(
        "fastzk-model-{}-{}",
        std::process::id(),
        SERIAL.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir)?;
    let result = assemble(tools, &dir, &ptx, arch, ptxas_args);
    std::fs::remove_dir_all(&dir).ok();
    result
}

fn assemble(
    tools: &Toolchain,
    dir: &Path,
    ptx: &str,
    arch: &Arch,
    ptxas_args: &[&str],
) -> Result<Compiled, ModelError> {
    let (ptx_file, cubin) = (dir.join("k.ptx"), dir.join("k.cubin"));
    std::fs::write(&ptx_file, ptx)?;
    let o = Command::new(&tools.ptxas)
        .arg(format!("-arch={}", arch.name))
        .arg("-v")
        .args(ptxas_args)
        .arg("-o")
        .arg(&cubin)
        .arg(&ptx_file)
        .output()?;
    let log = String::from_utf8_lossy(&o.stderr).into_owned();
    if !o.status.success() {
        return Err(ModelError::ToolFailed { tool: "ptxas", log });
    }
    let resources = parse_ptxas_verbose(&log);
    let o = Command::new(&tools.nvdisasm)
        .arg("-c")
        .arg(&cubin)
        .output()?;
    if !o.status.success() {
        return Err(ModelError::ToolFailed {
            tool: "nvdisasm",
            log: String::from_utf8_lossy(&o.stderr).into_owned(),
        });
    }
    Ok(Compiled {
        arch: arch.name,
        functions: parse_nvdisasm(&String::from_utf8_lossy(&o.stdout)),
        resources,
    })
}
