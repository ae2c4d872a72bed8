#!/usr/bin/env bash
# Prints the path of a Node.js <major> binary (from .ci/node-lts.sh) on which the native
# uWebSockets.js core loads. Its binaries for Node 22 and 24 need glibc >= 2.38:
#   - on a machine whose glibc is already >= 2.38, that is the plain binary;
#   - on an older one (Debian 12 has 2.36), a copy of it runs on the glibc of a Debian 13 root:
#     the root is made once by debootstrap from Debian's registry (minbase, ~25 s, ~214 MB, reused
#     while present) and the copy's ELF interpreter and library path are set to the root's
#     (patchelf), so the process, and every child it starts from process.execPath (vitest's
#     workers, the service, the bench's servers), loads the root's C library. Programs it starts
#     from other binaries (anvil, nats-server) keep the host's.
#   bash .ci/node-native.sh 22   →   /tmp/chain-indexer-glibc-root/node22/bin/node
# Needs root for debootstrap when the root is absent, and debootstrap and patchelf (installed from
# Debian when missing). GLIBC_ROOT_CACHE moves the cache; GLIBC_ROOT_SUITE the suite (trixie).
set -euo pipefail
major="${1:?usage: node-native.sh <major>}"
here="$(cd "$(dirname "$0")" && pwd)"
src="$(bash "$here/node-lts.sh" "$major")"

glibc_at_least() { # <major.minor> of the C library this machine runs
  local v
  v="$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}')"
  [ -n "$v" ] && printf '%s\n%s\n' "$1" "$v" | sort -V -C
}
if glibc_at_least 2.38; then
  echo "$src"
  exit 0
fi

cache="${GLIBC_ROOT_CACHE:-${TMPDIR:-/tmp}/chain-indexer-glibc-root}"
suite="${GLIBC_ROOT_SUITE:-trixie}"
root="$cache/$suite"
loader="$root/lib64/ld-linux-x86-64.so.2"
need=()
command -v debootstrap >/dev/null 2>&1 || [ -x /usr/sbin/debootstrap ] || need+=(debootstrap)
command -v patchelf >/dev/null 2>&1 || need+=(patchelf)
if [ "${#need[@]}" -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "node-native: installing ${need[*]} from Debian" >&2
  { $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}"; } >&2
fi
export PATH="$PATH:/usr/sbin:/sbin"

if [ ! -x "$loader" ] || [ ! -f "$root/.complete" ]; then
  echo "node-native: making a Debian $suite root in $root (debootstrap, once)" >&2
  rm -rf "$root" "$root.partial" && mkdir -p "$cache"
  mirror="${GLIBC_ROOT_MIRROR:-http://deb.debian.org/debian}"
  debootstrap --variant=minbase "$suite" "$root.partial" "$mirror" >"$cache/debootstrap.log" 2>&1 \
    || { tail -20 "$cache/debootstrap.log" >&2; echo "node-native: debootstrap failed" >&2; exit 1; }
  mv "$root.partial" "$root" && touch "$root/.complete"
fi

out="$cache/node$major/bin/node"
# Redone when the source binary changed (a newer release of the line was installed).
if [ ! -x "$out" ] || [ "$("$out" -v 2>/dev/null)" != "$("$src" -v)" ]; then
  mkdir -p "$(dirname "$out")"
  cp "$src" "$out.tmp"
  patchelf --set-interpreter "$loader" \
    --set-rpath "$root/lib/x86_64-linux-gnu:$root/usr/lib/x86_64-linux-gnu" "$out.tmp"
  mv "$out.tmp" "$out"
fi
v="$("$out" -v)"
libc="$("$out" -p 'process.report.getReport().header.glibcVersionRuntime')"
if ! printf '2.38\n%s\n' "$libc" | sort -V -C; then
  echo "node-native: $out runs on glibc $libc, not >= 2.38" >&2
  exit 1
fi
case "$v" in
  "v$major".*) echo "$out" ;;
  *) echo "node-native: $out is $v, not Node $major" >&2; exit 1 ;;
esac
