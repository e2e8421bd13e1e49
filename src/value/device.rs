//! Choosing the backend at run time: `cpu` (burn-flex, the default), `ndarray`, `wgpu`,
//! `cuda` / `cuda:N`. A backend that was not compiled in is an error naming the cargo feature
//! that enables it.

use std::fmt;
use std::str::FromStr;

use burn::prelude::Device;

/// A device named on the command line or in a config.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceChoice {
    /// burn-flex on the CPU (default build).
    Cpu,
    /// burn-ndarray on the CPU (cargo feature `ndarray`; deprecated by burn, 25-45× slower).
    Ndarray,
    /// A GPU through wgpu (cargo feature `wgpu`).
    Wgpu,
    /// CUDA GPU number N (cargo feature `cuda`).
    Cuda(usize),
}

impl FromStr for DeviceChoice {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        match text {
            "cpu" | "flex" => Ok(DeviceChoice::Cpu),
            "ndarray" => Ok(DeviceChoice::Ndarray),
            "wgpu" => Ok(DeviceChoice::Wgpu),
            "cuda" => Ok(DeviceChoice::Cuda(0)),
            _ => match text.strip_prefix("cuda:").map(str::parse::<usize>) {
                Some(Ok(index)) => Ok(DeviceChoice::Cuda(index)),
                _ => Err(format!(
                    "unknown device {text:?}: expected cpu, ndarray, wgpu, cuda or cuda:N"
                )),
            },
        }
    }
}

impl fmt::Display for DeviceChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeviceChoice::Cpu => f.write_str("cpu"),
            DeviceChoice::Ndarray => f.write_str("ndarray"),
            DeviceChoice::Wgpu => f.write_str("wgpu"),
            DeviceChoice::Cuda(i) => write!(f, "cuda:{i}"),
        }
    }
}

fn not_compiled(device: DeviceChoice, feature: &str) -> String {
    format!(
        "device {device} is not compiled into this build: rebuild with `cargo build --release --features {feature}`"
    )
}

impl DeviceChoice {
    /// The burn device, or an error if its backend was not compiled in.
    pub fn device(self) -> Result<Device, String> {
        match self {
            DeviceChoice::Cpu => Ok(Device::flex()),
            #[cfg(feature = "ndarray")]
            #[allow(deprecated)]
            // kept for comparison; burn deprecates it in favour of flex
            DeviceChoice::Ndarray => Ok(Device::ndarray()),
            #[cfg(not(feature = "ndarray"))]
            DeviceChoice::Ndarray => Err(not_compiled(self, "ndarray")),
            #[cfg(feature = "wgpu")]
            DeviceChoice::Wgpu => Ok(Device::wgpu(burn::prelude::DeviceKind::DefaultDevice)),
            #[cfg(not(feature = "wgpu"))]
            DeviceChoice::Wgpu => Err(not_compiled(self, "wgpu")),
            #[cfg(feature = "cuda")]
            DeviceChoice::Cuda(index) => Ok(Device::cuda(index)),
            #[cfg(not(feature = "cuda"))]
            DeviceChoice::Cuda(_) => Err(not_compiled(self, "cuda")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_names_parse_and_uncompiled_backends_name_their_feature() {
        assert_eq!("cpu".parse(), Ok(DeviceChoice::Cpu));
        assert_eq!("cuda:1".parse(), Ok(DeviceChoice::Cuda(1)));
        assert_eq!("cuda".parse(), Ok(DeviceChoice::Cuda(0)));
        let err = "tpu".parse::<DeviceChoice>().unwrap_err();
        assert!(err.contains("tpu") && err.contains("cuda:N"), "{err}");
        assert!("cuda:x".parse::<DeviceChoice>().is_err());
        assert!(DeviceChoice::Cpu.device().is_ok());
        #[cfg(not(feature = "cuda"))]
        assert!(
            DeviceChoice::Cuda(0)
                .device()
                .unwrap_err()
                .contains("--features cuda")
        );
        #[cfg(not(feature = "wgpu"))]
        assert!(
            DeviceChoice::Wgpu
                .device()
                .unwrap_err()
                .contains("--features wgpu")
        );
    }
}
