// SPDX-License-Identifier: GPL-2.0-only
/* Strict JSON validation for the fuzz targets; see json_check.h. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json_check.h"

/* Deeper than the writer can go (JSON_WRITER_MAX_DEPTH), shallow enough for the stack. */
#define MAX_DEPTH 64

struct parser {
	const unsigned char *s;
	size_t n, i;
	bool unique_names;
	const char *why;
};

static int fail(struct parser *p, const char *why)
{
	if (!p->why)
		p->why = why;
	return -1;
}

/* Unicode 15, table 3-7: the well-formed byte sequences. */
size_t utf8_wellformed(const unsigned char *s, size_t n)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return 0;
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (n < len)
		return 0;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

static void skip_ws(struct parser *p)
{
	while (p->i < p->n && (p->s[p->i] == ' ' || p->s[p->i] == '\t' || p->s[p->i] == '\n' ||
			       p->s[p->i] == '\r'))
		p->i++;
}

static int hex4(struct parser *p, uint32_t *v)
{
	size_t k;

	*v = 0;
	if (p->n - p->i < 4)
		return fail(p, "short \\u escape");
	for (k = 0; k < 4; k++) {
		unsigned char c = p->s[p->i++];

		*v <<= 4;
		if (c >= '0' && c <= '9')
			*v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			*v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			*v |= c - 'A' + 10;
		else
			return fail(p, "bad hex digit in \\u escape");
	}
	return 0;
}

static void put_utf8(char *out, size_t *o, uint32_t cp)
{
	if (cp < 0x80) {
		out[(*o)++] = (char)cp;
	} else if (cp < 0x800) {
		out[(*o)++] = (char)(0xc0 | (cp >> 6));
		out[(*o)++] = (char)(0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		out[(*o)++] = (char)(0xe0 | (cp >> 12));
		out[(*o)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[(*o)++] = (char)(0x80 | (cp & 0x3f));
	} else {
		out[(*o)++] = (char)(0xf0 | (cp >> 18));
		out[(*o)++] = (char)(0x80 | ((cp >> 12) & 0x3f));
		out[(*o)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[(*o)++] = (char)(0x80 | (cp & 0x3f));
	}
}

/*
 * A string literal at p->i; decoded into @out (room for as many bytes as the literal has: no
 * escape decodes longer than it is written) when @out is non-NULL.
 */
static int string(struct parser *p, char *out, size_t *out_len)
{
	size_t o = 0, len;
	uint32_t cp, lo;

	if (p->i >= p->n || p->s[p->i] != '"')
		return fail(p, "expected a string");
	p->i++;
	for (;;) {
		unsigned char c;

		if (p->i >= p->n)
			return fail(p, "unterminated string");
		c = p->s[p->i];
		if (c == '"') {
			p->i++;
			break;
		}
		if (c < 0x20)
			return fail(p, "raw control character in string");
		if (c != '\\') {
			len = utf8_wellformed(p->s + p->i, p->n - p->i);
			if (!len)
				return fail(p, "ill-formed UTF-8 in string");
			if (out)
				memcpy(out + o, p->s + p->i, len);
			o += len;
			p->i += len;
			continue;
		}
		if (++p->i >= p->n)
			return fail(p, "unterminated escape");
		c = p->s[p->i++];
		switch (c) {
		case '"':
		case '\\':
		case '/':
			cp = c;
			break;
		case 'b':
			cp = '\b';
			break;
		case 'f':
			cp = '\f';
			break;
		case 'n':
			cp = '\n';
			break;
		case 'r':
			cp = '\r';
			break;
		case 't':
			cp = '\t';
			break;
		case 'u':
			if (hex4(p, &cp))
				return -1;
			if (cp >= 0xdc00 && cp <= 0xdfff)
				return fail(p, "lone low surrogate");
			if (cp >= 0xd800 && cp <= 0xdbff) {
				if (p->n - p->i < 6 || p->s[p->i] != '\\' || p->s[p->i + 1] != 'u')
					return fail(p, "lone high surrogate");
				p->i += 2;
				if (hex4(p, &lo))
					return -1;
				if (lo < 0xdc00 || lo > 0xdfff)
					return fail(p, "high surrogate without low surrogate");
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			}
			break;
		default:
			return fail(p, "unknown escape");
		}
		if (out) {
			put_utf8(out, &o, cp);
		} else {
			char tmp[4];
			size_t t = 0;

			put_utf8(tmp, &t, cp);
			o += t;
		}
	}
	if (out_len)
		*out_len = o;
	return 0;
}

static bool digit(struct parser *p)
{
	return p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9';
}

static int number(struct parser *p)
{
	if (p->i < p->n && p->s[p->i] == '-')
		p->i++;
	if (!digit(p))
		return fail(p, "expected a digit");
	if (p->s[p->i] == '0')
		p->i++;
	else
		while (digit(p))
			p->i++;
	if (p->i < p->n && p->s[p->i] == '.') {
		p->i++;
		if (!digit(p))
			return fail(p, "expected a digit after '.'");
		while (digit(p))
			p->i++;
	}
	if (p->i < p->n && (p->s[p->i] == 'e' || p->s[p->i] == 'E')) {
		p->i++;
		if (p->i < p->n && (p->s[p->i] == '+' || p->s[p->i] == '-'))
			p->i++;
		if (!digit(p))
			return fail(p, "expected an exponent");
		while (digit(p))
			p->i++;
	}
	return 0;
}

static int literal(struct parser *p, const char *word)
{
	size_t n = strlen(word);

	if (p->n - p->i < n || memcmp(p->s + p->i, word, n))
		return fail(p, "unknown literal");
	p->i += n;
	return 0;
}

struct name {
	char *s;
	size_t len;
};

static int value(struct parser *p, int depth);

static int object(struct parser *p, int depth)
{
	struct name *names = NULL;
	size_t nr = 0, k, start, len;
	int ret = -1;

	p->i++;
	skip_ws(p);
	if (p->i < p->n && p->s[p->i] == '}') {
		p->i++;
		return 0;
	}
	for (;;) {
		struct name *nn;
		char *key;

		skip_ws(p);
		start = p->i;
		if (string(p, NULL, NULL))
			goto out;
		key = malloc(p->i - start);
		nn = realloc(names, (nr + 1) * sizeof(*names));
		if (!key || !nn) {
			free(key);
			if (nn)
				names = nn;
			fail(p, "out of memory");
			goto out;
		}
		names = nn;
		p->i = start;
		string(p, key, &len);
		for (k = 0; k < nr && p->unique_names; k++) {
			if (names[k].len == len && !memcmp(names[k].s, key, len)) {
				free(key);
				fail(p, "duplicate name in object");
				goto out;
			}
		}
		names[nr].s = key;
		names[nr++].len = len;
		skip_ws(p);
		if (p->i >= p->n || p->s[p->i] != ':') {
			fail(p, "expected ':'");
			goto out;
		}
		p->i++;
		if (value(p, depth + 1))
			goto out;
		skip_ws(p);
		if (p->i < p->n && p->s[p->i] == ',') {
			p->i++;
			continue;
		}
		if (p->i < p->n && p->s[p->i] == '}') {
			p->i++;
			ret = 0;
			goto out;
		}
		fail(p, "expected ',' or '}'");
		goto out;
	}
out:
	for (k = 0; k < nr; k++)
		free(names[k].s);
	free(names);
	return ret;
}

static int array(struct parser *p, int depth)
{
	p->i++;
	skip_ws(p);
	if (p->i < p->n && p->s[p->i] == ']') {
		p->i++;
		return 0;
	}
	for (;;) {
		if (value(p, depth + 1))
			return -1;
		skip_ws(p);
		if (p->i < p->n && p->s[p->i] == ',') {
			p->i++;
			continue;
		}
		if (p->i < p->n && p->s[p->i] == ']') {
			p->i++;
			return 0;
		}
		return fail(p, "expected ',' or ']'");
	}
}

static int value(struct parser *p, int depth)
{
	if (depth > MAX_DEPTH)
		return fail(p, "nested too deep");
	skip_ws(p);
	if (p->i >= p->n)
		return fail(p, "expected a value");
	switch (p->s[p->i]) {
	case '{':
		return object(p, depth);
	case '[':
		return array(p, depth);
	case '"':
		return string(p, NULL, NULL);
	case 't':
		return literal(p, "true");
	case 'f':
		return literal(p, "false");
	case 'n':
		return literal(p, "null");
	default:
		return number(p);
	}
}

int json_check(const char *buf, size_t len, bool unique_names, const char **why, size_t *at)
{
	struct parser p = {
		.s = (const unsigned char *)buf, .n = len, .unique_names = unique_names,
	};
	int ret = value(&p, 0);

	if (!ret) {
		skip_ws(&p);
		if (p.i != p.n)
			ret = fail(&p, "trailing bytes after the value");
	}
	if (ret) {
		if (why)
			*why = p.why;
		if (at)
			*at = p.i;
	}
	return ret;
}

int json_decode_string(const char *buf, size_t len, char *out, size_t *out_len)
{
	struct parser p = { .s = (const unsigned char *)buf, .n = len };

	if (string(&p, out, out_len) || p.i != len)
		return -1;
	return 0;
}
