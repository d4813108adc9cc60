/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The metrics view: the series accumulator (series.h) in the Prometheus text exposition format
 * 0.0.4 or in OpenMetrics 1.0.0, as drmtop serve answers a scrape of /metrics.
 */
#ifndef DRMTOP_PROMETHEUS_H
#define DRMTOP_PROMETHEUS_H

#include <stdint.h>
#include <stdio.h>

#include "drmtop/series.h"

enum drmtop_prom_format {
	DRMTOP_PROM_TEXT,		/* text/plain; version=0.0.4 */
	DRMTOP_PROM_OPENMETRICS,	/* application/openmetrics-text; version=1.0.0 */
};

/* The format a scraper's Accept header asks for (NULL or nothing usable: text). */
enum drmtop_prom_format drmtop_prom_negotiate(const char *accept);
/* The Content-Type of a format, charset included. */
const char *drmtop_prom_content_type(enum drmtop_prom_format fmt);

/* Writes @s as a label value: \ " and newline escaped, invalid UTF-8 replaced by U+FFFD. */
void drmtop_prom_label_value(FILE *out, const char *s);

/* What the server knows of itself, for the health metrics. */
struct drmtop_prom_info {
	const char *version;
	uint64_t start_ns;		/* CLOCK_MONOTONIC when the scrape began */
	uint64_t scrapes;		/* this one included */
	unsigned int connections;	/* open now */
	uint64_t rejected;		/* connections turned away at the limit (all busy) */
	uint64_t evicted;		/* idle or slow connections closed for a new one */
	uint64_t timeouts;		/* connections closed for being too slow */
	uint64_t bad_requests;		/* malformed or oversized requests */
};

/* The whole exposition. 0, or -1 when @out failed (errno set). */
int drmtop_prom_write(FILE *out, const struct drmtop_series *s, enum drmtop_prom_format fmt,
		      const struct drmtop_prom_info *info);

#endif /* DRMTOP_PROMETHEUS_H */
