// SPDX-License-Identifier: GPL-2.0-only
#include "units.h"

#include <string.h>
#include <time.h>

int64_t wl_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t wl_realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Digits only: strtoull would take signs, spaces and hex, none of which a scenario means. */
static bool parse_digits(const char *s, const char **end, uint64_t *v)
{
	const char *p = s;
	uint64_t n = 0;

	if (*p < '0' || *p > '9')
		return false;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (n > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return false;
		n = n * 10 + (uint64_t)(*p - '0');
	}
	*end = p;
	*v = n;
	return true;
}

static bool mul_checked(uint64_t a, uint64_t b, uint64_t *out)
{
	if (b && a > UINT64_MAX / b)
		return false;
	*out = a * b;
	return true;
}

bool wl_parse_duration(const char *s, uint64_t *ns)
{
	static const struct {
		const char *suffix;
		uint64_t mul;
	} units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 },
		{ "m", 60ULL * 1000000000 },
	};
	const char *end;
	uint64_t v;

	if (!parse_digits(s, &end, &v))
		return false;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].suffix))
			return mul_checked(v, units[i].mul, ns);
	return false;
}

bool wl_parse_size(const char *s, uint64_t *bytes)
{
	static const struct {
		const char *suffix;
		uint64_t mul;
	} units[] = {
		{ "", 1 }, { "K", 1ULL << 10 }, { "KiB", 1ULL << 10 }, { "M", 1ULL << 20 },
		{ "MiB", 1ULL << 20 }, { "G", 1ULL << 30 }, { "GiB", 1ULL << 30 },
	};
	const char *end;
	uint64_t v;

	if (!parse_digits(s, &end, &v))
		return false;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].suffix))
			return mul_checked(v, units[i].mul, bytes);
	return false;
}

bool wl_parse_uint(const char *s, unsigned int min, unsigned int max, unsigned int *out)
{
	const char *end;
	uint64_t v;

	if (!parse_digits(s, &end, &v) || *end || v < min || v > max)
		return false;
	*out = (unsigned int)v;
	return true;
}
