#!/usr/bin/env bash
# Installs the Debian packages the tests, CI and the benchmark need: PostgreSQL and Redis server
# binaries (test/support/servers.ts starts throwaway instances of them on loopback ports),
# Chromium (headless browser tests) and the openssl command (the watcher's end-to-end tests make
# a certificate for their https callback receiver). Safe to run repeatedly: it installs only what is missing.
#
# No system service is started or enabled: the project never uses the packaged clusters or the
# packaged redis on their default ports, it starts its own servers on free ports.
set -euo pipefail

declare -a missing=()

postgres_present() {
  compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null
}
redis_present() {
  command -v redis-server >/dev/null 2>&1
}
chromium_present() {
  [[ -x /usr/bin/chromium ]]
}
openssl_present() {
  command -v openssl >/dev/null 2>&1
}

check() {
  local package=$1 probe=$2
  if "$probe"; then
    echo "$package: present"
  else
    missing+=("$package")
  fi
}

check postgresql postgres_present
check redis-server redis_present
check chromium chromium_present
check openssl openssl_present

if ((${#missing[@]} == 0)); then
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "error: apt-get not found; install these packages by other means: ${missing[*]}" >&2
  exit 1
fi

declare -a as_root=()
if ((EUID != 0)); then
  if command -v sudo >/dev/null 2>&1; then
    as_root=(sudo)
  else
    echo "error: not root and sudo is not available; cannot install: ${missing[*]}" >&2
    exit 1
  fi
fi

# Package maintainer scripts start services through invoke-rc.d, which asks policy-rc.d first;
# exit code 101 means "not allowed". Put one in place for the install unless the machine already
# has its own policy (container images often do), and always remove ours afterwards.
policy=/usr/sbin/policy-rc.d
added_policy=0
cleanup() {
  if ((added_policy)); then
    "${as_root[@]}" rm -f "$policy"
  fi
}
trap cleanup EXIT
if [[ ! -e $policy ]]; then
  printf '#!/bin/sh\nexit 101\n' | "${as_root[@]}" tee "$policy" >/dev/null
  "${as_root[@]}" chmod 755 "$policy"
  added_policy=1
fi

if ! "${as_root[@]}" apt-get update; then
  echo "error: apt-get update failed; cannot install: ${missing[*]}" >&2
  exit 1
fi
if ! "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y --no-install-recommends "${missing[@]}"; then
  echo "error: apt-get install failed for: ${missing[*]}" >&2
  exit 1
fi

status=0
for package in "${missing[@]}"; do
  case $package in
    postgresql) probe=postgres_present ;;
    redis-server) probe=redis_present ;;
    chromium) probe=chromium_present ;;
  esac
  if "$probe"; then
    echo "$package: installed"
  else
    echo "error: $package was installed but its binaries are still missing" >&2
    status=1
  fi
done
exit "$status"
