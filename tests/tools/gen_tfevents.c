/* gen_tfevents.c - write a TensorBoard event file (and optionally the same
 * values as a golden loss file) for the integration tests, the bench and
 * the fuzz corpus, through tests/tools/tfevents_writer.h.
 *
 *   gen_tfevents OUT [--steps N] [--enc simple|float_val|content|double]
 *                [--ulp STEP] [--golden FILE] [--truncate BYTES]
 *                [--flip-crc RECORD] [--bad-utf8-tag]
 * Steps 1..N, each one event per tag (loss_metrics/global_avg_loss,
 * grad_norm, lr) as add_scalar writes them; loss(s) = 10/(1+0.37 s) +
 * 0.001 (s mod 7) in float32.  --ulp moves step STEP's loss up by one
 * float32 ulp.  --golden writes `step loss` lines with the shortest text
 * of the float32 value read as a double (what Python's repr prints for
 * loss.item()).  --truncate drops the last BYTES bytes; --flip-crc flips
 * a bit of the data CRC of record RECORD (0-based, 0 = file_version) and
 * prints that record's byte offset; --bad-utf8-tag names grad_norm
 * "grad\xff\xfenorm" (two bytes that are not UTF-8). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tfevents_writer.h"

static float loss_at(long s)
{
	return 10.0f / (1.0f + (float)s * 0.37f) + 0.001f * (float)(s % 7);
}

int main(int argc, char **argv)
{
	long steps = 10, ulp = -1, flip = -1;
	int bad_utf8 = 0;
	size_t truncate = 0;
	const char *out = NULL, *golden = NULL, *enc_name = "simple";
	for (int i = 1; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(argv[i], "--steps") && v)
			steps = atol(v), i++;
		else if (!strcmp(argv[i], "--ulp") && v)
			ulp = atol(v), i++;
		else if (!strcmp(argv[i], "--golden") && v)
			golden = v, i++;
		else if (!strcmp(argv[i], "--truncate") && v)
			truncate = (size_t)atol(v), i++;
		else if (!strcmp(argv[i], "--flip-crc") && v)
			flip = atol(v), i++;
		else if (!strcmp(argv[i], "--bad-utf8-tag"))
			bad_utf8 = 1;
		else if (!strcmp(argv[i], "--enc") && v)
			enc_name = v, i++;
		else if (argv[i][0] != '-' && !out)
			out = argv[i];
		else {
			fprintf(stderr, "usage: gen_tfevents OUT [options]\n");
			return 2;
		}
	}
	enum tfw_enc enc = !strcmp(enc_name, "float_val") ? TFW_FLOAT_VAL
	                   : !strcmp(enc_name, "content") ? TFW_FLOAT_CONTENT
	                   : !strcmp(enc_name, "double")  ? TFW_DOUBLE_VAL
	                                                  : TFW_SIMPLE;
	if (!out)
		return 2;
	struct buf f = BUF_INIT, g = BUF_INIT;
	size_t flip_off = 0;
	long rec = 0;
	tfw_file_version(&f, 1700000000.0);
	buf_puts(&g, "# golden losses written by tests/tools/gen_tfevents\n");
	for (long s = 1; s <= steps; s++) {
		float l = loss_at(s);
		if (s == ulp)
			l = nextafterf(l, INFINITY);
		double ld = enc == TFW_DOUBLE_VAL ? (double)l + 1e-12 : (double)l;
		size_t before = f.len;
		tfw_scalar(&f, 1700000000.0 + (double)s, s, "loss_metrics/global_avg_loss", ld,
		           enc);
		if (++rec == flip)
			flip_off = before;
		tfw_scalar(&f, 1700000000.0 + (double)s, s,
		           bad_utf8 ? "grad\xff\xfenorm" : "grad_norm", 1.5 + (double)s / 8, enc);
		if (++rec == flip)
			flip_off = f.len;
		tfw_scalar(&f, 1700000000.0 + (double)s, s, "lr", 8e-5, enc);
		if (++rec == flip)
			flip_off = f.len;
		char t[40];
		matcher_format_binary(ld, 0, t, sizeof t);
		buf_printf(&g, "%ld %s\n", s, t);
	}
	if (flip >= 0) {
		/* the record starting at flip_off: flip a bit of its data CRC */
		uint64_t len = 0;
		for (int i = 7; i >= 0; i--)
			len = len << 8 | (unsigned char)f.data[flip_off + (size_t)i];
		f.data[flip_off + 12 + len] ^= 0x01;
		printf("%zu\n", flip_off);
	}
	FILE *fp = fopen(out, "wb");
	if (!fp || fwrite(f.data, 1, f.len - (truncate < f.len ? truncate : 0), fp) == 0 ||
	    fclose(fp))
		return 1;
	if (golden) {
		fp = fopen(golden, "wb");
		if (!fp || fwrite(g.data, 1, g.len, fp) != g.len || fclose(fp))
			return 1;
	}
	buf_reset(&f);
	buf_reset(&g);
	return 0;
}
