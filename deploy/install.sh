#!/usr/bin/env bash
# install.sh - build parity and install it as a systemd service.
#
# Steps (each skipped when already done, so running it again is safe and
# is how you upgrade):
#   1. build the `parity` binary with cmake (Release) in BUILD_DIR, unless
#      --binary gives a prebuilt one;
#   2. install it as PREFIX/bin/parity (default /usr/local/bin/parity),
#      replacing it only when it differs;
#   3. create the `parity` system user and group (no login, no home);
#   4. install the unit as /etc/systemd/system/parity.service with
#      ExecStart pointing at PREFIX/bin/parity, and this README as
#      PREFIX/share/doc/parity/deploy-README.md;
#   5. install /etc/parity/parity.env from deploy/parity.env only if it
#      does not exist (your edits are never overwritten);
#   6. `systemctl daemon-reload` when systemd runs; with --enable also
#      `systemctl enable parity` and restart it when anything changed.
# State (/var/lib/parity) is created by systemd (StateDirectory=) on start.
#
# Usage: deploy/install.sh [options]
#   --prefix DIR     install prefix (default /usr/local)
#   --destdir DIR    stage everything under DIR (packaging, tests): no user
#                    is created and systemctl is not called
#   --build-dir DIR  cmake build directory (default <src>/build-release)
#   --binary FILE    install this binary instead of building
#   --enable         enable the service and (re)start it
#   --dry-run        print what would be done, change nothing
#   -h, --help       this text
# Needs root unless --dry-run or --destdir.  Exit 0 on success, 1 on a
# failed step, 2 on bad usage.
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
prefix=/usr/local
destdir=
build_dir=$src/build-release
binary=
enable=0
dry_run=0
service_user=parity
unit_dir=/etc/systemd/system
conf_dir=/etc/parity
state_dir=/var/lib/parity

usage() {
	sed -n '/^# Usage:/,/^# failed step/s/^# \{0,1\}//p' "$0"
}

die() {
	echo "install.sh: $*" >&2
	exit 1
}

while [ $# -gt 0 ]; do
	case $1 in
	--prefix) prefix=${2:?--prefix needs a directory}; shift 2 ;;
	--prefix=*) prefix=${1#*=}; shift ;;
	--destdir) destdir=${2:?--destdir needs a directory}; shift 2 ;;
	--destdir=*) destdir=${1#*=}; shift ;;
	--build-dir) build_dir=${2:?--build-dir needs a directory}; shift 2 ;;
	--build-dir=*) build_dir=${1#*=}; shift ;;
	--binary) binary=${2:?--binary needs a file}; shift 2 ;;
	--binary=*) binary=${1#*=}; shift ;;
	--enable) enable=1; shift ;;
	--dry-run) dry_run=1; shift ;;
	-h | --help) usage; exit 0 ;;
	*) echo "install.sh: unknown option '$1'" >&2; usage >&2; exit 2 ;;
	esac
done

case $prefix in
/*) ;;
*) echo "install.sh: --prefix must be an absolute path" >&2; exit 2 ;;
esac
prefix=${prefix%/}
[ -n "$prefix" ] || prefix=/
destdir=${destdir%/}
changed=0

# run CMD...: print it, and run it unless --dry-run.
run() {
	printf '+'
	printf ' %q' "$@"
	printf '\n'
	[ $dry_run -eq 1 ] || "$@"
}

note() {
	echo "install.sh: $*"
}

if [ $dry_run -eq 0 ] && [ -z "$destdir" ] && [ "$(id -u)" -ne 0 ]; then
	die "must run as root (or use --dry-run / --destdir)"
fi

# 1. build
if [ -z "$binary" ]; then
	run cmake -S "$src" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release
	run cmake --build "$build_dir" -j "$(nproc 2>/dev/null || echo 2)" --target parity
	binary=$build_dir/parity
fi
if [ $dry_run -eq 0 ]; then
	[ -x "$binary" ] || die "no executable at $binary"
	"$binary" --help >/dev/null || die "$binary does not run"
fi

# install_file MODE SRC DST: install when DST is missing or differs.
install_file() {
	local mode=$1 from=$2 to=$3
	if [ -f "$to" ] && cmp -s "$from" "$to"; then
		note "$to unchanged"
		return 0
	fi
	run install -D -m "$mode" "$from" "$to"
	changed=1
}

# 2. binary
install_file 0755 "$binary" "$destdir$prefix/bin/parity"

# 3. user and group
if [ -n "$destdir" ]; then
	note "--destdir: not creating user '$service_user'"
elif getent passwd "$service_user" >/dev/null; then
	note "user '$service_user' exists"
else
	nologin=/usr/sbin/nologin
	[ -x $nologin ] || nologin=/bin/false
	run useradd --system --user-group --home-dir "$state_dir" --no-create-home \
		--shell "$nologin" --comment "parity daemon" "$service_user"
fi

# 4. unit (ExecStart and Documentation point into the prefix) and docs
unit_tmp=$(mktemp)
trap 'rm -f "$unit_tmp"' EXIT
sed -e "s#^ExecStart=/usr/local/bin/parity #ExecStart=$prefix/bin/parity #" \
	-e "s#^Documentation=file:/usr/local/#Documentation=file:$prefix/#" \
	"$src/deploy/parity.service" >"$unit_tmp"
install_file 0644 "$unit_tmp" "$destdir$unit_dir/parity.service"
install_file 0644 "$src/deploy/README.md" "$destdir$prefix/share/doc/parity/deploy-README.md"

# 5. environment file: only when absent
env_file=$destdir$conf_dir/parity.env
if [ -e "$env_file" ]; then
	note "$env_file exists, left as is (compare with deploy/parity.env)"
else
	run install -d -m 0755 "$destdir$conf_dir"
	run install -m 0640 "$src/deploy/parity.env" "$env_file"
	if [ -z "$destdir" ]; then
		run chgrp "$service_user" "$env_file"
	fi
	changed=1
fi

# 6. systemd
if [ -n "$destdir" ]; then
	note "--destdir: not calling systemctl"
elif [ -d /run/systemd/system ]; then
	run systemctl daemon-reload
	if [ $enable -eq 1 ]; then
		run systemctl enable parity.service
		if [ $changed -eq 1 ] || ! systemctl is-active --quiet parity.service; then
			run systemctl restart parity.service
		fi
	fi
else
	note "systemd is not running here: unit installed but not loaded"
fi

if [ $dry_run -eq 1 ]; then
	note "dry run: nothing was changed"
elif [ $changed -eq 0 ]; then
	note "everything already up to date"
else
	note "installed; edit $conf_dir/parity.env, then: systemctl enable --now parity"
fi
