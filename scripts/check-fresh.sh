#!/usr/bin/env bash
# Proves README's Quick start on a bare Debian 12: builds a minimal root with debootstrap
# (--variant=minbase: no compiler, cmake, git or node), clones this repository's HEAD into it
# and runs the two README commands there as root (`bash scripts/run.sh` with stdin not a
# terminal, then `bash scripts/test.sh`). Needs root on a Debian/Ubuntu host.
#
# usage: scripts/check-fresh.sh [ROOT_DIR]
#   ROOT_DIR   where the Debian root is made (default: a new directory under /var/tmp);
#              an existing root made by an earlier run is reused when TSCH_FRESH_REUSE=1
# env: TSCH_FRESH_MIRROR  the Debian mirror (default: the host's bookworm source)
#      TSCH_FRESH_KEEP=1  keep the root afterwards (default: removed when the check passes)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)

if [ "$(id -u)" -ne 0 ]; then
  echo "check-fresh: must run as root (debootstrap and chroot)" >&2
  exit 2
fi
if ! command -v debootstrap > /dev/null; then
  apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends debootstrap
fi

# The mirror the host itself uses for bookworm, so the check reaches what the host reaches.
mirror=${TSCH_FRESH_MIRROR:-}
if [ -z "$mirror" ]; then
  mirror=$(awk '/^URIs:/ {uri=$2} /^Suites:/ && / bookworm( |$)/ {print uri; exit}' \
             /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
fi
if [ -z "$mirror" ]; then
  mirror=$(awk '$1 == "deb" && $3 == "bookworm" {print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
fi
if [ -z "$mirror" ]; then
  echo "check-fresh: no bookworm source found on this host; set TSCH_FRESH_MIRROR" >&2
  exit 2
fi

root=${1:-$(mktemp -d /var/tmp/tsch-fresh.XXXXXX)}
mounts=()
cleanup() {
  local status=$?
  for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount -l "${mounts[i]}" 2> /dev/null || true; done
  if [ "$status" -eq 0 ] && [ "${TSCH_FRESH_KEEP:-0}" != 1 ]; then
    rm -rf --one-file-system "$root"
  else
    echo "check-fresh: the root stays in $root"
  fi
}
trap cleanup EXIT

if [ "${TSCH_FRESH_REUSE:-0}" = 1 ] && [ -x "$root/bin/bash" ]; then
  echo "check-fresh: reusing the Debian root in $root"
else
  echo "check-fresh: debootstrap --variant=minbase bookworm into $root"
  debootstrap --variant=minbase bookworm "$root" "$mirror" > "$root.debootstrap.log" 2>&1 ||
    { tail -20 "$root.debootstrap.log"; exit 1; }
  # The same Debian suites the host has (updates and security), nothing else.
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    cp /etc/apt/sources.list.d/debian.sources "$root/etc/apt/sources.list.d/"
    rm -f "$root/etc/apt/sources.list"
  fi
fi
cp /etc/resolv.conf "$root/etc/resolv.conf"
# Where the host reaches the package registries through a TLS proxy with its own CA, npm in
# the root needs that CA too: the host's bundle is handed over as NODE_EXTRA_CA_CERTS (the
# root's own packages stay as debootstrap left them).
extra_ca=""
if [ -n "${NODE_EXTRA_CA_CERTS:-}" ] && [ -f "$NODE_EXTRA_CA_CERTS" ]; then
  cp "$NODE_EXTRA_CA_CERTS" "$root/etc/host-extra-ca.crt"
  extra_ca="NODE_EXTRA_CA_CERTS=/etc/host-extra-ca.crt"
fi

for m in proc sys dev dev/pts; do
  mkdir -p "$root/$m"
  mount --bind "/$m" "$root/$m"
  mounts+=("$root/$m")
done

# A clean clone of what is committed: the check sees what a user would check out.
rm -rf "$root/root/tsch"
git -C "$here" rev-parse HEAD > /dev/null
git clone -q --no-hardlinks "$here" "$root/root/tsch"
echo "check-fresh: testing commit $(git -C "$root/root/tsch" rev-parse --short HEAD)"

in_root() {
  chroot "$root" /usr/bin/env -i HOME=/root TERM=xterm LANG=C.UTF-8 \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin $extra_ca \
    /bin/bash -c "cd /root/tsch && $1"
}

echo "check-fresh: README command 1: bash scripts/run.sh"
in_root "bash scripts/run.sh < /dev/null" > "$root.run.log" 2>&1 || { tail -30 "$root.run.log"; exit 1; }
tail -5 "$root.run.log"
echo "check-fresh: README command 2: bash scripts/test.sh"
in_root "bash scripts/test.sh" > "$root.test.log" 2>&1 || { grep -E 'Failed|\*\*\*' "$root.test.log" | tail -20; tail -8 "$root.test.log"; exit 1; }
tail -4 "$root.test.log"
echo "check-fresh: both README commands pass on a bare Debian 12 (minbase)"
