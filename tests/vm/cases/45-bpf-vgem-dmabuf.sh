#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# parallel-safe: bytes exact; nothing timed
#
# GEM memory outside simgpu: vgem dumb buffers are accounted per client and per device, and a
# vgem buffer exported as dma-buf and imported both by a second vgem client (same object) and
# by a simgpu client (another device's import) counts, to the byte, as total / shared /
# imported in each of the three clients (expected figures from tests/bpf/vgem-share.c).
. tests/bpf/guest-lib.sh
bl_init 45-bpf-vgem-dmabuf
render=$(sed -n 's/.*render_minor=\([0-9]*\).*/\1/p' "$SIMGPU_DBG/device")
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
bl_jq_checks '
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
bl_end
