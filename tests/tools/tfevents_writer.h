/* tfevents_writer.h - a small TensorBoard event-file writer for tests:
 * hand-encoded protocol buffers (Event / Summary / Value / TensorProto,
 * only the fields parity reads plus a plugin metadata field it must skip)
 * in TFRecord framing.  Independent of protobuf-c on purpose, so the
 * parser is tested against bytes it did not produce.  The CRC32C is the
 * matcher's (matcher_crc32c has its own known-answer test).  Header-only:
 * used by the unit tests, the bench and tests/tools/gen_tfevents.c. */
#ifndef PARITY_TFEVENTS_WRITER_H
#define PARITY_TFEVENTS_WRITER_H

#include <stdint.h>
#include <string.h>

#include "buf.h"
#include "tfevents.h"

/* How a scalar is encoded: simple_value, or a tensor summary (DT_FLOAT in
 * float_val or tensor_content, DT_DOUBLE in double_val or tensor_content). */
enum tfw_enc {
	TFW_SIMPLE = 0,
	TFW_FLOAT_VAL,
	TFW_FLOAT_CONTENT,
	TFW_DOUBLE_VAL,
	TFW_DOUBLE_CONTENT
};

static void tfw_varint(struct buf *b, uint64_t v)
{
	while (v >= 0x80) {
		buf_putc(b, (char)(v | 0x80));
		v >>= 7;
	}
	buf_putc(b, (char)v);
}

static void tfw_key(struct buf *b, unsigned field, unsigned wire)
{
	tfw_varint(b, (uint64_t)field << 3 | wire);
}

static void tfw_bytes(struct buf *b, unsigned field, const void *p, size_t n)
{
	tfw_key(b, field, 2);
	tfw_varint(b, n);
	buf_append(b, p, n);
}

static void tfw_le(struct buf *b, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		buf_putc(b, (char)(v >> (8 * i)));
}

/* Frame data as one TFRecord onto out. */
static void tfw_record(struct buf *out, const void *data, size_t n)
{
	unsigned char len[8];
	for (int i = 0; i < 8; i++)
		len[i] = (unsigned char)((uint64_t)n >> (8 * i));
	buf_append(out, len, 8);
	tfw_le(out, matcher_crc32c_mask(matcher_crc32c(0, len, 8)), 4);
	buf_append(out, data, n);
	tfw_le(out, matcher_crc32c_mask(matcher_crc32c(0, data, n)), 4);
}

static void tfw_event_head(struct buf *ev, double wall, long step)
{
	uint64_t w;
	memcpy(&w, &wall, 8);
	tfw_key(ev, 1, 1);
	tfw_le(ev, w, 8);
	if (step) {
		tfw_key(ev, 2, 0);
		tfw_varint(ev, (uint64_t)(int64_t)step);
	}
}

/* The first record every writer puts: file_version "brain.Event:2". */
static void tfw_file_version(struct buf *out, double wall)
{
	struct buf ev = BUF_INIT;
	tfw_event_head(&ev, wall, 0);
	tfw_bytes(&ev, 3, "brain.Event:2", 13);
	tfw_record(out, ev.data, ev.len);
	buf_reset(&ev);
}

/* One Summary.Value for tag holding v in encoding enc, appended to sum. */
static void tfw_value(struct buf *sum, const char *tag, double v, enum tfw_enc enc)
{
	struct buf val = BUF_INIT, t = BUF_INIT, md = BUF_INIT, pd = BUF_INIT;
	float f = (float)v;
	uint32_t fb;
	uint64_t db;
	memcpy(&fb, &f, 4);
	memcpy(&db, &v, 8);
	tfw_bytes(&val, 1, tag, strlen(tag));
	/* SummaryMetadata { plugin_data { plugin_name: "scalars" } }: skipped */
	tfw_bytes(&pd, 1, "scalars", 7);
	tfw_bytes(&md, 1, pd.data, pd.len);
	tfw_bytes(&val, 9, md.data, md.len);
	if (enc == TFW_SIMPLE) {
		tfw_key(&val, 2, 5);
		tfw_le(&val, fb, 4);
	} else {
		int dbl = enc == TFW_DOUBLE_VAL || enc == TFW_DOUBLE_CONTENT;
		tfw_key(&t, 1, 0);
		tfw_varint(&t, dbl ? 2 : 1);
		tfw_bytes(&t, 2, "", 0); /* scalar shape: no dims */
		struct buf pk = BUF_INIT;
		tfw_le(&pk, dbl ? db : fb, dbl ? 8 : 4);
		unsigned field = enc == TFW_FLOAT_VAL ? 5 : enc == TFW_DOUBLE_VAL ? 6 : 4;
		tfw_bytes(&t, field, pk.data, pk.len);
		buf_reset(&pk);
		tfw_bytes(&val, 8, t.data, t.len);
	}
	tfw_bytes(sum, 1, val.data, val.len);
	buf_reset(&val);
	buf_reset(&t);
	buf_reset(&md);
	buf_reset(&pd);
}

/* One event at step holding n values (tags[i], vals[i]) in encoding enc. */
static void tfw_scalars(struct buf *out, double wall, long step, const char *const *tags,
                        const double *vals, size_t n, enum tfw_enc enc)
{
	struct buf ev = BUF_INIT, sum = BUF_INIT;
	for (size_t i = 0; i < n; i++)
		tfw_value(&sum, tags[i], vals[i], enc);
	tfw_event_head(&ev, wall, step);
	tfw_bytes(&ev, 5, sum.data ? sum.data : "", sum.len);
	tfw_record(out, ev.data, ev.len);
	buf_reset(&ev);
	buf_reset(&sum);
}

static void tfw_scalar(struct buf *out, double wall, long step, const char *tag, double v,
                       enum tfw_enc enc)
{
	tfw_scalars(out, wall, step, &tag, &v, 1, enc);
}

#endif
