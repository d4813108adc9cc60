// SPDX-License-Identifier: GPL-2.0-only
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "drmtop/json_writer.h"

struct capture {
	char *buf;
	size_t len;
	FILE *f;
	struct json_writer w;
};

static void cap_open(struct capture *c)
{
	c->buf = NULL;
	c->len = 0;
	c->f = open_memstream(&c->buf, &c->len);
	assert_non_null(c->f);
	jw_init(&c->w, c->f);
}

static const char *cap_close(struct capture *c)
{
	fclose(c->f);
	return c->buf;
}

static void test_nesting_and_scalars(void **state)
{
	struct capture c;

	(void)state;
	cap_open(&c);
	jw_object_begin(&c.w);
	jw_key(&c.w, "a");
	jw_u64(&c.w, UINT64_MAX);
	jw_key(&c.w, "b");
	jw_array_begin(&c.w);
	jw_i64(&c.w, INT64_MIN);
	jw_bool(&c.w, true);
	jw_null(&c.w);
	jw_double(&c.w, 12.3456, 2);
	jw_object_begin(&c.w);
	jw_object_end(&c.w);
	jw_array_end(&c.w);
	jw_key(&c.w, "c");
	jw_array_begin(&c.w);
	jw_array_end(&c.w);
	jw_object_end(&c.w);
	assert_int_equal(jw_finish_line(&c.w), 0);
	assert_string_equal(cap_close(&c),
			    "{\"a\":18446744073709551615,"
			    "\"b\":[-9223372036854775808,true,null,12.35,{}],"
			    "\"c\":[]}\n");
	free(c.buf);
}

static void test_escapes_control_characters(void **state)
{
	struct capture c;
	const char raw[] = "q\"b\\n\nt\tr\rx\x01\x1f\x7f" "e";

	(void)state;
	cap_open(&c);
	jw_string_len(&c.w, raw, sizeof(raw) - 1);
	assert_int_equal(jw_finish_line(&c.w), 0);
	assert_string_equal(cap_close(&c),
			    "\"q\\\"b\\\\n\\nt\\tr\\rx\\u0001\\u001f\\u007fe\"\n");
	free(c.buf);
}

static void test_utf8_kept_invalid_replaced(void **state)
{
	struct capture c;
	/* é and € (valid), lone continuation, overlong '/', truncated 3-byte sequence */
	const char raw[] = "\xc3\xa9\xe2\x82\xac\x80\xc0\xaf\xe2\x82";

	(void)state;
	cap_open(&c);
	jw_string_len(&c.w, raw, sizeof(raw) - 1);
	assert_int_equal(jw_finish_line(&c.w), 0);
	assert_string_equal(cap_close(&c),
			    "\"\xc3\xa9\xe2\x82\xac\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\"\n");
	free(c.buf);
}

static void test_embedded_nul_is_escaped(void **state)
{
	struct capture c;

	(void)state;
	cap_open(&c);
	jw_string_len(&c.w, "a\0b", 3);
	assert_int_equal(jw_finish_line(&c.w), 0);
	assert_string_equal(cap_close(&c), "\"a\\u0000b\"\n");
	free(c.buf);
}

static void test_non_finite_is_null_and_misuse_detected(void **state)
{
	struct capture c;

	(void)state;
	cap_open(&c);
	jw_array_begin(&c.w);
	jw_double(&c.w, NAN, 1);
	jw_double(&c.w, INFINITY, 1);
	jw_array_end(&c.w);
	assert_int_equal(jw_finish_line(&c.w), 0);
	/* An unclosed object is reported, not silently emitted as valid. */
	jw_object_begin(&c.w);
	jw_key(&c.w, "k");
	assert_int_equal(jw_finish_line(&c.w), -1);
	/* Closing more than was opened is reported too. */
	jw_array_end(&c.w);
	assert_int_equal(jw_finish_line(&c.w), -1);
	assert_string_equal(cap_close(&c), "[null,null]\n{\"k\":\n\n");
	free(c.buf);
}

/*
 * Every call sequence that would not make one JSON value is reported (fuzz_json_writer found
 * these written as "valid" lines): nothing, two top-level values, a key in an array, an object
 * member without a key, a bracket closing the other kind of container.
 */
static void test_invalid_sequences_reported(void **state)
{
	struct capture c;

	(void)state;
	cap_open(&c);
	assert_int_equal(jw_finish_line(&c.w), -1);
	jw_u64(&c.w, 1);
	jw_u64(&c.w, 2);
	assert_int_equal(jw_finish_line(&c.w), -1);
	jw_array_begin(&c.w);
	jw_kv_u64(&c.w, "k", 1);
	jw_array_end(&c.w);
	assert_int_equal(jw_finish_line(&c.w), -1);
	jw_object_begin(&c.w);
	jw_null(&c.w);
	jw_object_end(&c.w);
	assert_int_equal(jw_finish_line(&c.w), -1);
	jw_object_begin(&c.w);
	jw_array_end(&c.w);
	assert_int_equal(jw_finish_line(&c.w), -1);
	jw_array_begin(&c.w);
	jw_object_end(&c.w);
	assert_int_equal(jw_finish_line(&c.w), -1);
	/* and the writer is usable again after each */
	jw_object_begin(&c.w);
	jw_kv_u64(&c.w, "k", 1);
	jw_object_end(&c.w);
	assert_int_equal(jw_finish_line(&c.w), 0);
	cap_close(&c);
	free(c.buf);
}

static void test_key_value_helpers(void **state)
{
	struct capture c;

	(void)state;
	cap_open(&c);
	jw_object_begin(&c.w);
	jw_kv_string(&c.w, "s", "x\"y");
	jw_kv_u64(&c.w, "u", 7);
	jw_kv_i64(&c.w, "i", -7);
	jw_kv_bool(&c.w, "b", false);
	jw_kv_double(&c.w, "d", 0.125, 3);
	jw_kv_u64_or_null(&c.w, "un", false, 9);
	jw_kv_u64_or_null(&c.w, "uv", true, 9);
	jw_kv_double_or_null(&c.w, "dn", false, 1.5, 1);
	jw_kv_double_or_null(&c.w, "dv", true, 1.5, 1);
	jw_kv_string(&c.w, "sn", NULL);
	jw_object_end(&c.w);
	assert_int_equal(jw_finish_line(&c.w), 0);
	assert_string_equal(cap_close(&c),
			    "{\"s\":\"x\\\"y\",\"u\":7,\"i\":-7,\"b\":false,\"d\":0.125,"
			    "\"un\":null,\"uv\":9,\"dn\":null,\"dv\":1.5,\"sn\":null}\n");
	free(c.buf);
}

/*
 * A line longer than the writer's buffer, in pieces that straddle its end, one piece longer
 * than the buffer and a number too long for jw_double's own buffer: every byte in order.
 */
static void test_line_longer_than_the_buffer(void **state)
{
	size_t big_len = JSON_WRITER_BUF * 3 + 5, i, n = 0;
	char *big = malloc(big_len + 1), *want = malloc(JSON_WRITER_BUF * 8);
	char num[400];
	struct capture c;

	(void)state;
	assert_non_null(big);
	assert_non_null(want);
	memset(big, 'b', big_len);
	big[big_len] = '\0';
	cap_open(&c);
	jw_array_begin(&c.w);
	want[n++] = '[';
	for (i = 0; i < 300; i++) {
		jw_string(&c.w, "tab\there");
		n += (size_t)sprintf(want + n, "%s\"tab\\there\"", i ? "," : "");
	}
	jw_string(&c.w, big);
	n += (size_t)sprintf(want + n, ",\"%s\"", big);
	jw_double(&c.w, 1e300, 2);
	snprintf(num, sizeof(num), "%.2f", 1e300);
	n += (size_t)sprintf(want + n, ",%s", num);
	jw_u64(&c.w, 42);
	jw_array_end(&c.w);
	sprintf(want + n, ",42]\n");
	assert_int_equal(jw_finish_line(&c.w), 0);
	assert_string_equal(cap_close(&c), want);
	free(c.buf);
	free(big);
	free(want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nesting_and_scalars),
		cmocka_unit_test(test_escapes_control_characters),
		cmocka_unit_test(test_utf8_kept_invalid_replaced),
		cmocka_unit_test(test_embedded_nul_is_escaped),
		cmocka_unit_test(test_non_finite_is_null_and_misuse_detected),
		cmocka_unit_test(test_key_value_helpers),
		cmocka_unit_test(test_invalid_sequences_reported),
		cmocka_unit_test(test_line_longer_than_the_buffer),
	};

	return cmocka_run_group_tests_name("json_writer", tests, NULL, NULL);
}
