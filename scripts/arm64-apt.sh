# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0-only
# Sourced: arm64_apt_init DIR makes a private apt configuration in DIR (its own sources, lists,
# cache and an empty dpkg status) for Debian's arm64 packages of the suites the system's sources
# name, and reads its lists; then arm64_apt and arm64_apt_cache ARGS... run apt-get and apt-cache
# with it. The system's dpkg and
# lists stay untouched. arm64_apt_unpack and arm64_apt_done make a tree of unpacked packages,
# in place only once complete. Used by scripts/arm64-sysroot.sh and tests/vm/arm64-root.sh.

# The system's Debian sources as "URI|suites|components": deb822 (Debian 12's default) or
# one-line entries.
arm64_apt_sources() {
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] && awk '
			/^URIs:/ { u = $2 } /^Suites:/ { $1 = ""; s = $0 } /^Components:/ { $1 = ""; c = $0 }
			/^$/ { if (u != "" && u ~ /debian/) print u "|" s "|" c; u = "" }
			END { if (u != "" && u ~ /debian/) print u "|" s "|" c }' "$f"
	done
	[ -f /etc/apt/sources.list ] && awk '$1 == "deb" && $2 !~ /^\[/ && $2 ~ /debian/ {
		c = ""; for (i = 4; i <= NF; i++) c = c " " $i; print $2 "|" $3 "|" c }' \
		/etc/apt/sources.list
	return 0
}

arm64_apt() {
	arm64_apt_tool apt-get -qq "$@"
}

arm64_apt_cache() {
	arm64_apt_tool apt-cache "$@"
}

arm64_apt_tool() {
	_tool=$1
	shift
	"$_tool" -o Dir::Etc::sourcelist="$ARM64_APT/sources.list" \
		-o Dir::Etc::sourceparts="$ARM64_APT/parts" -o Dir::State::Lists="$ARM64_APT/lists" \
		-o Dir::Cache="$ARM64_APT/cache" -o Dir::State::status="$ARM64_APT/status" \
		-o APT::Architecture=arm64 -o APT::Architectures=arm64 \
		-o APT::Sandbox::User=root "$@"
}

arm64_apt_init() {
	ARM64_APT=$(realpath -m "$1")
	mkdir -p "$ARM64_APT/lists/partial" "$ARM64_APT/cache/archives/partial" "$ARM64_APT/parts"
	: >"$ARM64_APT/status"
	arm64_apt_sources | while IFS='|' read -r uri suites comps; do
		for s in $suites; do
			echo "deb [arch=arm64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]" \
				"$uri $s$comps"
		done
	done >"$ARM64_APT/sources.list"
	[ -s "$ARM64_APT/sources.list" ] ||
		{ echo "arm64-apt: no Debian source in /etc/apt" >&2; return 1; }
	arm64_apt update
}

# arm64_apt_unpack TMP DEPS PKG...: downloads PKG... (with their dependencies when DEPS is
# "deps", else exactly those) through a private configuration in TMP/apt and unpacks each with
# dpkg-deb into TMP/root, a linux-headers package into TMP/headers. Prints the packages' count.
# TMP is made afresh; the configuration and the .debs are removed after.
arm64_apt_unpack() {
	_tmp=$1
	_deps=$2
	shift 2
	rm -rf "$_tmp"
	mkdir -p "$_tmp/debs" "$_tmp/root"
	arm64_apt_init "$_tmp/apt"
	if [ "$_deps" = deps ]; then
		arm64_apt install --download-only -y --no-install-recommends \
			-o Dir::Cache::archives="$_tmp/debs" "$@"
	else
		(cd "$_tmp/debs" && arm64_apt download "$@")
	fi
	for _d in "$_tmp"/debs/*.deb; do
		case ${_d##*/} in
		linux-headers-*) dpkg-deb -x "$_d" "$_tmp/headers" ;;
		*) dpkg-deb -x "$_d" "$_tmp/root" ;;
		esac
	done
	find "$_tmp/debs" -name '*.deb' | wc -l
	rm -rf "$_tmp/apt" "$_tmp/debs"
}

# arm64_apt_done TREE DIR STAMP: marks TREE complete with STAMP and puts it in DIR's place whole.
# A reader checks DIR/.complete against its own stamp: a tree cut short is never taken.
arm64_apt_done() {
	echo "$3" >"$1/.complete"
	rm -rf "$2"
	mv -T "$1" "$2"
}
