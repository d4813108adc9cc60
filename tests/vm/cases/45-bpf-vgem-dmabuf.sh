#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# parallel-safe: bytes exact; nothing timed
#
# GEM memory outside simgpu: vgem dumb buffers are accounted per client and per device, and a
# vgem buffer exported as dma-buf and imported both by a second vgem client (same object) and
# by a simgpu client (another device's import) counts, to the byte, as total / shared /
# imported in each of the three clients (expected figures from tests/bpf/vgem-share.c). A second
# run skips, on purpose, the exit of every PRIME import (bpfdump --drop-import-exit 1), as 7.x
# may: the thread's import mark stays set, and the buffer that thread makes next in the same
# client (vgem-share's fourth) must still not count as imported.
. tests/bpf/guest-lib.sh
render=$(sed -n 's/.*render_minor=\([0-9]*\).*/\1/p' "$SIMGPU_DBG/device")

# one_run NAME [JQ-CHECKS]: vgem-share under the tracer (with $BL_BPFDUMP_ARGS), the checks
# below and JQ-CHECKS.
one_run() {
	bl_init "$1"
	bl_start_bpf || bl_end
	build/tests/vgem-share "/dev/dri/renderD$render" "$BL/expect.json" >"$BL/vgem.out" 2>&1 &
	vp=$!
	if ! bl_wait_file "$BL/expect.json" 30; then
		fail "$bl_name-vgem-share" "no expectations: $(cat "$BL/vgem.out")"
		kill $vp
		bl_end
	fi
	bl_truth
	touch "$BL/bpf.stop"
	wait "$bl_bpf_pid"
	bl_bpf_pid=
	kill -TERM $vp
	wait $vp
	cp "$BL/expect.json" "$BL/wl.ready"	# handed to the checks as $ready
	bl_jq_checks "${2:+$2,}"'
		$ready[0] as $x |
		($x.files[] | . as $f | bpf_client_by_file(bpf_file($x.pid; $f.fd)) as $c |
			check("fd-\($f.fd)-client"; $c != null;
				"no BPF client for pid \($x.pid) fd \($f.fd)"),
			if $c == null then empty else
				check("fd-\($f.fd)-mem-total"; $c.mem_total == $f.total;
					"bpf \($c.mem_total), expected \($f.total)"),
				check("fd-\($f.fd)-mem-shared"; $c.mem_shared == $f.shared;
					"bpf \($c.mem_shared), expected \($f.shared)"),
				check("fd-\($f.fd)-mem-imported"; $c.mem_imported == $f.imported;
					"bpf \($c.mem_imported), expected \($f.imported)")
			end),
		([b.devices[] | select(.driver == "vgem")][0]) as $v |
		check("vgem-device-objects"; $v.gem_objects == $x.vgem_objects;
			"bpf \($v.gem_objects), expected \($x.vgem_objects)"),
		check("vgem-device-bytes"; $v.gem_bytes == $x.vgem_bytes;
			"bpf \($v.gem_bytes), expected \($x.vgem_bytes)"),
		counter_checks'
}

one_run 45-bpf-vgem-dmabuf
BL_BPFDUMP_ARGS="--drop-import-exit 1" one_run 45-bpf-vgem-dmabuf-dropped-import-exit \
	'check("import-exits-dropped"; dropped("import_exit") == 2; "\(b.test_dropped)")'
bl_end
