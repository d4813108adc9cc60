# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
#
# What every guest case shares (sourced by POSIX sh cases, tests/vm/README.md): one line per
# check, "PASS <check>" or "FAIL <check>: <reason>", and the number of failures in case_fails,
# so a case ends with: [ "$case_fails" -eq 0 ]

case_fails=0

pass() {
	echo "PASS $1"
}

fail() {
	echo "FAIL $1: $2"
	case_fails=$((case_fails + 1))
}
