#!/usr/bin/env bash
# Installs what dtb needs on a Debian 12 machine: compilers, CMake, Open MPI,
# oneTBB, zstd, xxhash, GoogleTest, CLI11, fmt, nlohmann-json, cpp-httplib, clang with
# its sanitizer and libFuzzer runtime, python3 (scripts/set_stats.sh and
# set_report.py, run by the tests), and chromium with its WebDriver and
# python3-selenium (the explorer page's browser test), iproute2 and util-linux
# (scripts/hosts_check.sh makes hosts of network namespaces). Idempotent: installs only what is
# missing and prints nothing when everything is there.
set -euo pipefail

packages=(
  g++ cmake ninja-build pkg-config git
  libopenmpi-dev openmpi-bin
  libtbb-dev libzstd-dev libxxhash-dev
  libgtest-dev libgmock-dev
  libcli11-dev libfmt-dev nlohmann-json3-dev libcpp-httplib-dev
  clang libclang-rt-14-dev
  python3
  chromium chromium-driver python3-selenium
  iproute2 util-linux
)

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

if ! command -v apt-get >/dev/null; then
  echo "setup: apt-get not found; install these packages by hand: ${missing[*]}" >&2
  exit 1
fi
sudo=()
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "setup: run as root or install sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo=(sudo)
fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
