# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0-only
# Sourced: arm64_apt_init DIR makes a private apt configuration in DIR (its own sources, lists,
# cache and an empty dpkg status) for Debian's arm64 packages of the suites the system's sources
# name, and reads its lists; then arm64_apt and arm64_apt_cache ARGS... run apt-get and apt-cache
# with it. The system's dpkg and
# lists stay untouched. Used by scripts/arm64-sysroot.sh and the arm64 VM harness.

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
