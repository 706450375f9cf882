#!/usr/bin/env bash
# Installs what the GPU and browser tests need when it is missing: Debian's
# chromium (headless browser + SwiftShader, WebGPU on the CPU) and the Vulkan
# loader that Node's `webgpu` package (Dawn) uses to reach SwiftShader.
set -euo pipefail
need=()
[ -x /usr/bin/chromium ] || need+=(chromium)
[ -f /usr/lib/chromium/vk_swiftshader_icd.json ] || need+=(chromium)
ldconfig -p 2>/dev/null | grep -q 'libvulkan.so.1' || need+=(libvulkan1)
if [ ${#need[@]} -eq 0 ]; then exit 0; fi
if ! command -v apt-get >/dev/null 2>&1; then
  # Not Debian/Ubuntu: say what the tests look for instead of failing inside apt-get.
  echo "The WebGPU tests need /usr/bin/chromium, SwiftShader's Vulkan ICD at /usr/lib/chromium/vk_swiftshader_icd.json and libvulkan.so.1 (Debian packages: ${need[*]}); apt-get is not here, so install them with this system's package manager or run the tests in a Debian container" >&2
  exit 1
fi
echo "Installing system packages for WebGPU tests: ${need[*]}"
if [ "$(id -u)" != "0" ]; then SUDO=sudo; else SUDO=; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq "${need[@]}" >/dev/null
