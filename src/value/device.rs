//! Choosing the backend at run time: `descent-cpu` (the default: descent's own network engine,
//! inference by the direct CPU pass `CpuNet`, training by the direct CPU step `CpuTrainer`),
//! then burn's backends under burn's names: `flex` (burn-flex for both), `ndarray`, `wgpu`,
//! `cuda` / `cuda:N`. `cpu`, the default's name before, is still read as `descent-cpu`. A
//! backend that was not compiled in is an error naming the cargo feature that enables it.

use std::fmt;
use std::str::FromStr;

use crate::settings::config_error::ConfigError;

use burn::prelude::Device;

/// A device named on the command line or in a config.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceChoice {
    /// descent's own CPU engine: inference by `CpuNet`, training by `CpuTrainer` (default).
    DescentCpu,
    /// burn-flex on the CPU for inference and training.
    Flex,
    /// burn-ndarray on the CPU (cargo feature `ndarray`; deprecated by burn, 25-45× slower).
    Ndarray,
    /// A GPU through wgpu (cargo feature `wgpu`).
    Wgpu,
    /// CUDA GPU number N (cargo feature `cuda`).
    Cuda(usize),
}

/// The devices named by one word, as parsed and as printed (`cuda:N` aside).
const DEVICE_NAMES: [(&str, DeviceChoice); 4] = [
    ("descent-cpu", DeviceChoice::DescentCpu),
    ("flex", DeviceChoice::Flex),
    ("ndarray", DeviceChoice::Ndarray),
    ("wgpu", DeviceChoice::Wgpu),
];

/// The default's name before `descent-cpu`, still read.
const OLD_DEFAULT_NAME: &str = "cpu";

impl FromStr for DeviceChoice {
    type Err = ConfigError;

    fn from_str(text: &str) -> Result<Self, ConfigError> {
        let text = if text == OLD_DEFAULT_NAME {
            "descent-cpu"
        } else {
            text
        };
        if let Some((_, device)) = DEVICE_NAMES.iter().find(|(name, _)| *name == text) {
            return Ok(*device);
        }
        match text {
            "cuda" => Ok(DeviceChoice::Cuda(0)),
            _ => match text.strip_prefix("cuda:").map(str::parse::<usize>) {
                Some(Ok(index)) => Ok(DeviceChoice::Cuda(index)),
                _ => {
                    let names = DEVICE_NAMES.map(|(name, _)| name).join(", ");
                    Err(ConfigError::new(
                        "device",
                        format!("unknown {text:?}: expected {names}, cuda or cuda:N"),
                    ))
                }
            },
        }
    }
}

impl fmt::Display for DeviceChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self, DEVICE_NAMES.iter().find(|(_, device)| device == self)) {
            (DeviceChoice::Cuda(i), _) => write!(f, "cuda:{i}"),
            (_, Some((name, _))) => f.write_str(name),
            (_, None) => unreachable!("every device but cuda:N has its name in DEVICE_NAMES"),
        }
    }
}

fn not_compiled(device: DeviceChoice, feature: &str) -> ConfigError {
    ConfigError::new(
        "device",
        format!(
            "{device} is not compiled into this build: rebuild with `cargo build --release --features {feature}`"
        ),
    )
}

/// Where the value network runs.
#[derive(Clone, Debug)]
pub struct NetDevice {
    /// burn's device: training, loading, and inference unless `direct_inference`.
    pub burn: Device,
    /// Inference by the direct CPU pass (`CpuNet`) instead of burn.
    pub direct_inference: bool,
    /// Training by the direct CPU step (`CpuTrainer`) instead of burn's autodiff.
    pub direct_training: bool,
}

impl NetDevice {
    /// The default: the direct CPU passes for inference and training (burn-flex loads and
    /// saves).
    pub fn cpu() -> NetDevice {
        NetDevice {
            burn: Device::flex(),
            direct_inference: true,
            direct_training: true,
        }
    }

    /// burn alone on `device`.
    pub fn burn(device: Device) -> NetDevice {
        NetDevice {
            burn: device,
            direct_inference: false,
            direct_training: false,
        }
    }
}

impl DeviceChoice {
    /// Whether it is a GPU (`wgpu`, `cuda:N`).
    pub fn is_gpu(self) -> bool {
        matches!(self, DeviceChoice::Wgpu | DeviceChoice::Cuda(_))
    }

    /// The device.
    ///
    /// # Errors
    /// Its backend was not compiled in.
    pub fn device(self) -> Result<NetDevice, ConfigError> {
        self.burn_device().map(|burn| NetDevice {
            burn,
            direct_inference: self == DeviceChoice::DescentCpu,
            direct_training: self == DeviceChoice::DescentCpu,
        })
    }

    fn burn_device(self) -> Result<Device, ConfigError> {
        match self {
            DeviceChoice::DescentCpu | DeviceChoice::Flex => Ok(Device::flex()),
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
        assert_eq!("descent-cpu".parse(), Ok(DeviceChoice::DescentCpu));
        assert_eq!(
            "cpu".parse(),
            Ok(DeviceChoice::DescentCpu),
            "the old name still reads"
        );
        assert_eq!(DeviceChoice::DescentCpu.to_string(), "descent-cpu");
        assert_eq!("flex".parse(), Ok(DeviceChoice::Flex));
        assert!(DeviceChoice::DescentCpu.device().unwrap().direct_inference);
        assert!(!DeviceChoice::Flex.device().unwrap().direct_inference);
        assert_eq!("cuda:1".parse(), Ok(DeviceChoice::Cuda(1)));
        assert_eq!("cuda".parse(), Ok(DeviceChoice::Cuda(0)));
        let err = "tpu".parse::<DeviceChoice>().unwrap_err().to_string();
        assert!(err.contains("tpu") && err.contains("cuda:N"), "{err}");
        assert!(
            err.contains("descent-cpu, flex, ndarray, wgpu, cuda or"),
            "{err}"
        );
        assert!("cuda:x".parse::<DeviceChoice>().is_err());
        for choice in [
            DeviceChoice::DescentCpu,
            DeviceChoice::Flex,
            DeviceChoice::Ndarray,
            DeviceChoice::Wgpu,
            DeviceChoice::Cuda(2),
        ] {
            assert_eq!(choice.to_string().parse(), Ok(choice));
        }
        #[cfg(not(feature = "cuda"))]
        assert!(
            DeviceChoice::Cuda(0)
                .device()
                .unwrap_err()
                .to_string()
                .contains("--features cuda")
        );
        #[cfg(not(feature = "wgpu"))]
        assert!(
            DeviceChoice::Wgpu
                .device()
                .unwrap_err()
                .to_string()
                .contains("--features wgpu")
        );
    }
}
