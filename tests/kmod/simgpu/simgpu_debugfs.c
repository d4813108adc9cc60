// SPDX-License-Identifier: GPL-2.0-only
/*
 * Ground truth for the tests, in /sys/kernel/debug/simgpu/ (a fixed path: DRM's own debugfs
 * directories are numbered by minor, and vgem may hold the first ones). The format is described
 * in README.md; every line is "<kind> key=value ...", values never contain spaces.
 *
 * Checked on 6.1.0-56-amd64, 6.12.117+deb12-amd64 and 7.2.13+deb14-amd64.
 */
#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <drm/drm_file.h>

#include "simgpu_drv.h"

static void simgpu_print_client(struct seq_file *m, struct simgpu_client *client, ktime_t now)
{
	struct simgpu_mem_stats mem = {};
	struct simgpu_file *sfile;
	char comm[TASK_COMM_LEN];
	enum simgpu_engine e;
	unsigned int i;

	/* Under clients_lock: the file cannot be freed (postclose takes the lock first). */
	if (client->file)
		simgpu_client_mem_stats(client->file, &mem);
	strscpy(comm, client->comm, sizeof(comm));
	for (i = 0; comm[i]; i++)
		if (!isgraph(comm[i]) || comm[i] == '=')
			comm[i] = '_';

	seq_printf(m, "client id=%llu kind=%s state=%s pid=%d tgid=%d comm=%s",
		   client->id, client->kernel ? "kernel" : "user",
		   client->closed ? "closed" : "open", client->pid, client->tgid, comm);
	seq_printf(m, " bo_count=%lld bo_bytes=%lld shared_bytes=%llu resident_bytes=%llu active_bytes=%llu",
		   (long long)atomic64_read(&client->bo_count),
		   (long long)atomic64_read(&client->bo_bytes), mem.shared, mem.resident,
		   mem.active);
	for (e = 0; e < SIMGPU_ENGINE_COUNT; e++) {
		struct simgpu_engine_stats st;
		const char *n = simgpu_engine_names[e];

		simgpu_client_engine_snapshot(client, e, now, &st);
		seq_printf(m, " %s_busy_ns=%llu %s_submitted=%llu %s_completed=%llu %s_cancelled=%llu",
			   n, st.busy_ns, n, st.submitted, n, st.completed, n, st.cancelled);
	}
	/* The file's own schedulers (personality fw): their names are the tracepoints' ring=. */
	sfile = client->file ? client->file->driver_priv : NULL;
	for (e = 0; sfile && e < SIMGPU_ENGINE_COUNT; e++)
		if (sfile->queue[e].ready)
			seq_printf(m, "%s%s", e ? "," : " queues=", sfile->queue[e].name);
	seq_putc(m, '\n');
}

static int simgpu_clients_show(struct seq_file *m, void *unused)
{
	struct simgpu_device *sdev = m->private;
	struct simgpu_client *client;
	ktime_t now = ktime_get();

	seq_puts(m, "# simgpu clients v1\n");
	mutex_lock(&sdev->clients_lock);
	simgpu_print_client(m, sdev->kclient, now);
	list_for_each_entry(client, &sdev->clients, node)
		simgpu_print_client(m, client, now);
	list_for_each_entry(client, &sdev->closed_clients, node)
		simgpu_print_client(m, client, now);
	seq_printf(m, "closed_dropped count=%llu\n", sdev->closed_dropped);
	mutex_unlock(&sdev->clients_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(simgpu_clients);

static int simgpu_engines_show(struct seq_file *m, void *unused)
{
	struct simgpu_device *sdev = m->private;
	ktime_t now = ktime_get();
	enum simgpu_engine e;

	seq_puts(m, "# simgpu engines v1\n");
	for (e = 0; e < SIMGPU_ENGINE_COUNT; e++) {
		struct simgpu_hw_engine *eng = &sdev->engines[e];
		struct simgpu_engine_stats st;
		unsigned long flags;
		unsigned int i, on_lanes = 0;
		u64 busy, kernel_submitted, lag_total, lag_max;
		struct simgpu_job *job;

		spin_lock_irqsave(&eng->lock, flags);
		st = eng->total;
		kernel_submitted = eng->total_submitted_kernel;
		lag_total = eng->irq_lag_total_ns;
		lag_max = eng->irq_lag_max_ns;
		busy = simgpu_engine_busy_locked(eng, NULL, now);
		for (i = 0; i < eng->capacity; i++)
			list_for_each_entry(job, &eng->lanes[i].jobs, lane_node)
				on_lanes++;
		spin_unlock_irqrestore(&eng->lock, flags);
		seq_printf(m, "engine name=%s queue_depth=%u capacity=%u busy_ns=%llu submitted=%llu completed=%llu cancelled=%llu kernel_submitted=%llu on_hardware=%u irq_lag_total_ns=%llu irq_lag_max_ns=%llu ring=%s fdinfo_name=%s\n",
			   eng->name, eng->queue_depth, eng->capacity, busy, st.submitted,
			   st.completed, st.cancelled, kernel_submitted, on_lanes, lag_total,
			   lag_max, simgpu_pers->ring_names[e], simgpu_pers->fdinfo_names[e]);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(simgpu_engines);

static int simgpu_device_show(struct seq_file *m, void *unused)
{
	struct simgpu_device *sdev = m->private;
	int accel = -1;

	/* an accelerator (personality rocket) has an accel node only: render_minor=-1 */
#if SIMGPU_HAVE_ACCEL
	if (sdev->drm.accel)
		accel = sdev->drm.accel->index;
#endif
	seq_puts(m, "# simgpu device v1\n");
	seq_printf(m, "device render_minor=%d primary_minor=%d bo_alive=%lld bo_alive_bytes=%lld fdinfo_scale_pct=%u clear_jobs=%d prime_import_maps=%d personality=%s driver=%s kernel_job_id=%llu accel_minor=%d\n",
		   sdev->drm.render ? sdev->drm.render->index : -1,
		   sdev->drm.primary ? sdev->drm.primary->index : -1,
		   (long long)atomic64_read(&sdev->bo_alive),
		   (long long)atomic64_read(&sdev->bo_alive_bytes),
		   READ_ONCE(simgpu_fdinfo_scale_pct), READ_ONCE(simgpu_clear_jobs),
		   !SIMGPU_SHMEM_IMPORT_NO_MAP, simgpu_pers->name, simgpu_pers->driver_name,
		   simgpu_pers->kernel_job_id, accel);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(simgpu_device);

void simgpu_debugfs_init(struct simgpu_device *sdev)
{
	char name[32];

	/* debugfs failures only cost the tests their ground truth; the device still works. */
	if (sdev->index)
		snprintf(name, sizeof(name), "%s%u", SIMGPU_DRIVER_NAME, sdev->index);
	else
		snprintf(name, sizeof(name), "%s", SIMGPU_DRIVER_NAME);
	sdev->debugfs = debugfs_create_dir(name, NULL);
	debugfs_create_file("clients", 0444, sdev->debugfs, sdev, &simgpu_clients_fops);
	debugfs_create_file("engines", 0444, sdev->debugfs, sdev, &simgpu_engines_fops);
	debugfs_create_file("device", 0444, sdev->debugfs, sdev, &simgpu_device_fops);
}

void simgpu_debugfs_fini(struct simgpu_device *sdev)
{
	debugfs_remove_recursive(sdev->debugfs);
	sdev->debugfs = NULL;
}
