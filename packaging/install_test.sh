#!/usr/bin/env bash
# Install test of the Debian package. Builds it (packaging/deb.sh), makes a clean Debian 12 root
# with mmdebstrap, installs the .deb there with apt (its dependencies come from the mirror, not
# from this machine), and inside that root runs attnscope-cli on the installed default model and
# starts the GUI with no arguments under Xvfb, taking a screenshot once it shows the default
# model. Nothing of the build tree is visible inside the root; only the .deb is copied in.
# Run as root on Debian 12; needs the Debian mirror, no other network. Not run by CI (slow).
# Usage: packaging/install_test.sh [BUILD_DIR]   (default: build-deb in the repository)
# It also runs the installed CLI on an emulated AVX2-only CPU (qemu-user) and compares its
# predictions with this CPU's.
# Results in BUILD_DIR/install-test/: screenshot.png, icon.png, cli-info.txt, predict-*.txt,
# gui.log, attnscope.log, apt.log, files.txt.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(realpath -m "${1:-$root/build-deb}")"
cd "$root"
work="$build/install-test"
sysroot="$work/root"

packaging/install-deps.sh --install-test
packaging/deb.sh "$build"
deb="$(ls "$build"/attnscope_*_amd64.deb)"
mkdir -p "$work"

# The base root (Debian's essential set, apt, and the tools the test itself uses) is cached as a
# tarball named for its contents, so reruns skip mmdebstrap. Delete it to take newer packages.
# The mirror is a snapshot here, so apt must accept Release files past their Valid-Until.
test_pkgs="xvfb,xauth,x11-utils,imagemagick,librsvg2-bin"
base="$work/bookworm-$(echo "$test_pkgs" | md5sum | cut -c1-8).tar"
if [[ ! -f $base ]]; then
    echo "install_test: creating the Debian 12 root $base (a few minutes)"
    rm -f "$work"/bookworm-*.tar  # roots made for an older package list
    mmdebstrap --variant=apt --format=tar --include="$test_pkgs" \
        --aptopt='Acquire::Check-Valid-Until "false"' bookworm "$base.tmp"
    mv "$base.tmp" "$base"
fi

mounts=()
cleanup() {
    # Any process still running inside the root (the app, Xvfb) is ended by its id.
    local proc
    for proc in /proc/[0-9]*; do
        if [[ "$(readlink "$proc/root" 2>/dev/null)" == "$sysroot" ]]; then
            kill "${proc#/proc/}" 2>/dev/null || true
        fi
    done
    sleep 1
    local i
    for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
        umount "${mounts[i]}" || umount -l "${mounts[i]}" || true
    done
    mounts=()
}
trap cleanup EXIT
trap 'exit 130' INT TERM  # through the EXIT trap, so nothing stays mounted
mount_in_root() {  # TYPE OPTIONS TARGET
    mount -t "$1" -o "$2" "$1" "$sysroot/$3"
    mounts+=("$sysroot/$3")
}

# A fresh root for every run. Never delete while something is mounted inside it.
if grep -q " $sysroot/" /proc/mounts; then
    echo "install_test: $sysroot still has mounts; unmount them first" >&2
    exit 1
fi
rm -rf "$sysroot" && mkdir -p "$sysroot"
tar -C "$sysroot" --numeric-owner -xf "$base"
# /proc and /sys are the kernel's; /dev is a tmpfs of our own with only the usual nodes, so
# nothing done in the root reaches this machine's /dev.
mount_in_root proc nosuid,nodev,noexec proc
mount_in_root sysfs ro,nosuid,nodev,noexec sys
mount_in_root tmpfs mode=755,nosuid dev
for node in null:1:3 zero:1:5 full:1:7 random:1:8 urandom:1:9 tty:5:0; do
    IFS=: read -r name major minor <<<"$node"
    mknod -m 666 "$sysroot/dev/$name" c "$major" "$minor"
done
mkdir -p "$sysroot/dev/pts" && mkdir -m 1777 "$sysroot/dev/shm"
mount -t devpts -o newinstance,ptmxmode=0666 devpts "$sysroot/dev/pts"
mounts+=("$sysroot/dev/pts")
ln -s pts/ptmx "$sysroot/dev/ptmx"
cp /etc/resolv.conf "$sysroot/etc/resolv.conf"

in_root() { chroot "$sysroot" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin \
    LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"; }

status=0
fail() { echo "install_test: FAIL: $*" >&2; status=1; }

echo "install_test: installing $(basename "$deb") with apt"
install -m 644 "$deb" "$sysroot/tmp/"
# No recommended packages: the package's own Depends must be enough.
if ! in_root sh -c "apt-get update -q && apt-get install -y -q --no-install-recommends \
        /tmp/$(basename "$deb")" >"$work/apt.log" 2>&1; then
    tail -20 "$work/apt.log"
    fail "apt could not install the package (see $work/apt.log)"
    exit 1
fi
in_root dpkg -L attnscope >"$work/files.txt"

echo "install_test: attnscope-cli info /usr/share/attnscope/default_model"
if in_root attnscope-cli info /usr/share/attnscope/default_model >"$work/cli-info.txt" 2>&1; then
    cat "$work/cli-info.txt"
else
    cat "$work/cli-info.txt"
    fail "attnscope-cli info failed"
fi

# The installed program on an emulated AVX2 CPU without AVX-512 (qemu-user's Haswell; this
# machine may have AVX-512): the portable build must run there, on its AVX2 kernel, and give the
# same predictions as on this CPU (both kernels give the same bits).
sentence="The keys to the cabinet are on the [MASK]."
model=/usr/share/attnscope/default_model
echo "install_test: attnscope-cli predict on an emulated Haswell CPU (AVX2, no AVX-512)"
in_root attnscope-cli predict "$model" --text "$sentence" >"$work/predict-native.txt" 2>&1 ||
    fail "attnscope-cli predict failed"
if qemu-x86_64 -cpu Haswell -L "$sysroot" "$sysroot/usr/bin/attnscope-cli" predict \
    "$sysroot$model" --text "$sentence" >"$work/predict-haswell.txt" 2>"$work/qemu.log" &&
    cmp -s "$work/predict-native.txt" "$work/predict-haswell.txt"; then
    cat "$work/predict-haswell.txt"
else
    cat "$work/predict-haswell.txt" "$work/qemu.log"
    fail "on an emulated Haswell the predictions differ from this CPU's, or the program failed"
fi

# The installed icon, drawn at 128 px for people to look at (icon.png).
icon=/usr/share/icons/hicolor/scalable/apps/io.github.attnscope.AttnScope.svg
if in_root rsvg-convert -w 128 -h 128 -o /tmp/icon.png "$icon"; then
    cp "$sysroot/tmp/icon.png" "$work/icon.png"
else
    fail "the installed icon $icon cannot be drawn"
fi

echo "install_test: starting attnscope under Xvfb"
cp packaging/install_test_gui.sh "$sysroot/tmp/gui.sh"
rm -f "$work/screenshot.png"
if in_root timeout 180 xvfb-run -a -s "-screen 0 1280x800x24" sh /tmp/gui.sh \
    >"$work/gui.log" 2>&1; then
    cat "$work/gui.log"
    cp "$sysroot/tmp/screenshot.png" "$work/screenshot.png"
else
    cat "$work/gui.log"
    fail "the GUI did not show the default model"
fi
cp "$sysroot/tmp/attnscope.log" "$work/attnscope.log" 2>/dev/null || true

cleanup
if ((status == 0)); then
    # The root is kept after a failure, for a look inside; a pass needs no 700 MB of it.
    grep -q " $sysroot/" /proc/mounts || rm -rf "$sysroot"
    echo "install_test: PASS (screenshot: $work/screenshot.png)"
else
    echo "install_test: FAIL (logs in $work)"
fi
exit "$status"
