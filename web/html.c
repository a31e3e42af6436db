/* html.c - the HTML writer: web_printf (a printf whose string verbs
 * escape), the escaper, URL query encoding, safe SVG numbers and the
 * colour-scale quantiser.
 *
 * web_printf parses the format itself and hands each numeric conversion
 * to snprintf with a rebuilt single-conversion format, so the compiler's
 * format checking of callers stays meaningful and no string argument can
 * ever be copied unescaped.  It knows the C99 conversions it needs and
 * refuses the rest (%n, %p, wide strings). */
#include "web.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "match.h"

/* Length of the valid UTF-8 sequence at s (n bytes left), 0 if invalid. */
const char *web_utf8(struct buf *scratch, const char *s)
{
	if (!s)
		return NULL;
	size_t n = strlen(s);
	if (buf_utf8_valid(s, n) == n)
		return s;
	buf_clear(scratch);
	return buf_append_utf8(scratch, s, n) < 0 ? NULL : scratch->data;
}

int web_escape(struct buf *out, const char *s, size_t n)
{
	/* 1 for the five bytes that need an entity */
	static const unsigned char special[256] = {
	        ['&'] = 1, ['<'] = 1, ['>'] = 1, ['"'] = 1, ['\''] = 1,
	};
	size_t i, run = 0;
	int bad = 0;

	/* room for the text as is: most values need no entity at all */
	if (buf_reserve(out, n) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		const char *ent;

		if (!special[(unsigned char)s[i]])
			continue;
		switch (s[i]) {
		case '&': ent = "&amp;"; break;
		case '<': ent = "&lt;"; break;
		case '>': ent = "&gt;"; break;
		case '"': ent = "&quot;"; break;
		default: ent = "&#39;"; break;
		}
		if (i > run)
			bad |= buf_add(out, s + run, i - run);
		bad |= buf_add(out, ent, strlen(ent));
		run = i + 1;
	}
	if (n > run)
		bad |= buf_add(out, s + run, n - run);
	return bad ? -1 : 0;
}

int web_urlenc(struct buf *out, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	int bad = 0;

	if (!s)
		return 0;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		    c == '-' || c == '_' || c == '.' || c == '~' || c == ',') {
			bad |= buf_putc(out, (char)c);
		} else {
			char e[3] = {'%', hex[c >> 4], hex[c & 15]};

			bad |= buf_append(out, e, 3);
		}
	}
	return bad ? -1 : 0;
}

int web_num(struct buf *out, double v, int prec)
{
	if (!isfinite(v))
		return buf_putc(out, '0') < 0 ? -1 : 1;
	if (v == 0)
		v = 0; /* no "-0" */
	return buf_printf(out, "%.*g", prec, v) < 0 ? -1 : 0;
}

int web_tint_level(double rd)
{
	double t;
	int lvl;

	if (!(rd >= 0))
		return 0;
	t = matcher_colour_intensity(rd);
	if (!(t > 0))
		return 0;
	lvl = (int)ceil(t * 10.0 - 1e-9);
	if (lvl < 1)
		lvl = 1;
	if (lvl > 10)
		lvl = 10;
	return lvl;
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"

/* One numeric conversion through snprintf into out. */
static int put_conv(struct buf *out, const char *spec, int nstar, const int *stars, const char *len,
                    char conv, va_list *ap)
{
	char tmp[512];
	int n = -1;
	int w = nstar > 0 ? stars[0] : 0, p = nstar > 1 ? stars[1] : 0;

#define EMIT(T)                                                                                    \
	do {                                                                                       \
		T v_ = va_arg(*ap, T);                                                             \
		n = nstar == 0   ? snprintf(tmp, sizeof tmp, spec, v_)                             \
		    : nstar == 1 ? snprintf(tmp, sizeof tmp, spec, w, v_)                          \
		                 : snprintf(tmp, sizeof tmp, spec, w, p, v_);                      \
	} while (0)

	if (strchr("diouxX", conv)) {
		int sgn = conv == 'd' || conv == 'i';

		if (!strcmp(len, "ll")) {
			if (sgn)
				EMIT(long long);
			else
				EMIT(unsigned long long);
		} else if (!strcmp(len, "l")) {
			if (sgn)
				EMIT(long);
			else
				EMIT(unsigned long);
		} else if (!strcmp(len, "z")) {
			if (sgn)
				EMIT(ptrdiff_t);
			else
				EMIT(size_t);
		} else if (!strcmp(len, "j")) {
			if (sgn)
				EMIT(long long);
			else
				EMIT(unsigned long long);
		} else if (!strcmp(len, "t")) {
			EMIT(ptrdiff_t);
		} else if (!len[0] || !strcmp(len, "h") || !strcmp(len, "hh")) {
			/* short and char promote to int */
			if (sgn)
				EMIT(int);
			else
				EMIT(unsigned);
		} else {
			return -1;
		}
	} else if (strchr("eEfFgGaA", conv)) {
		if (!strcmp(len, "L"))
			EMIT(long double);
		else if (!len[0] || !strcmp(len, "l"))
			EMIT(double);
		else
			return -1;
	} else {
		return -1;
	}
#undef EMIT
	if (n < 0 || (size_t)n >= sizeof tmp)
		return -1;
	return buf_append(out, tmp, (size_t)n);
}

#pragma GCC diagnostic pop

/* A plain decimal integer conversion: len "", "l", "ll" or "z"; sgn for
 * %d.  0 or -1 (OOM). */
static int put_int(struct buf *out, const char *len, int sgn, va_list *ap)
{
	char tmp[24], *e = tmp + sizeof tmp, *q = e;
	unsigned long long u;
	int neg = 0;

	if (sgn) {
		long long v = !len[0]              ? va_arg(*ap, int)
		              : !strcmp(len, "l")  ? va_arg(*ap, long)
		              : !strcmp(len, "ll") ? va_arg(*ap, long long)
		                                   : (long long)va_arg(*ap, ptrdiff_t);
		neg = v < 0;
		u = neg ? 0ull - (unsigned long long)v : (unsigned long long)v;
	} else {
		u = !len[0]              ? va_arg(*ap, unsigned)
		    : !strcmp(len, "l")  ? va_arg(*ap, unsigned long)
		    : !strcmp(len, "ll") ? va_arg(*ap, unsigned long long)
		                         : va_arg(*ap, size_t);
	}
	do {
		*--q = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (neg)
		*--q = '-';
	return buf_append(out, q, (size_t)(e - q));
}

int web_vprintf(struct buf *out, const char *fmt, va_list ap0)
{
	va_list ap;
	const char *p = fmt;
	int rc = -1;

	va_copy(ap, ap0);
	if (buf_reserve(out, strlen(fmt)) < 0)
		goto done;
	while (*p) {
		const char *lit = p;
		char spec[64], len[3] = "";
		size_t sl = 0;
		int stars[2], nstar = 0, prec = -1, has_prec = 0;

		while (*p && *p != '%')
			p++;
		if (p > lit && buf_append(out, lit, (size_t)(p - lit)) < 0)
			goto done;
		if (!*p)
			break;
		p++; /* '%' */
		if (*p == '%') {
			if (buf_putc(out, '%') < 0)
				goto done;
			p++;
			continue;
		}
		spec[sl++] = '%';
		while (*p && strchr("-+ #0", *p) && sl < 10)
			spec[sl++] = *p++;
		if (*p == '*') {
			stars[nstar++] = va_arg(ap, int);
			spec[sl++] = *p++;
		} else {
			while (*p >= '0' && *p <= '9' && sl < 20)
				spec[sl++] = *p++;
		}
		if (*p == '.') {
			has_prec = 1;
			spec[sl++] = *p++;
			if (*p == '*') {
				stars[nstar++] = va_arg(ap, int);
				prec = stars[nstar - 1];
				spec[sl++] = *p++;
			} else {
				prec = 0;
				while (*p >= '0' && *p <= '9' && sl < 40) {
					prec = prec * 10 + (*p - '0');
					spec[sl++] = *p++;
				}
			}
		}
		if ((p[0] == 'h' && p[1] == 'h') || (p[0] == 'l' && p[1] == 'l')) {
			len[0] = p[0];
			len[1] = p[1];
			p += 2;
		} else if (*p && strchr("hlzjtL", *p)) {
			len[0] = *p++;
		}
		if (!*p || sl + 4 >= sizeof spec)
			goto done;
		if (*p == 's') {
			const char *s = va_arg(ap, const char *);
			size_t n;

			if (len[0])
				goto done; /* no wide strings */
			if (!s)
				s = "";
			if (has_prec && prec >= 0)
				n = strnlen(s, (size_t)prec);
			else
				n = strlen(s);
			if (web_escape(out, s, n) < 0)
				goto done;
			p++;
			continue;
		}
		if (*p == 'c') {
			char c = (char)va_arg(ap, int);

			if (web_escape(out, &c, 1) < 0)
				goto done;
			p++;
			continue;
		}
		if (sl == 1 && (*p == 'd' || *p == 'u') && len[0] != 'h' && len[0] != 'j' &&
		    len[0] != 't' && len[0] != 'L') {
			/* plain %d %ld %lld %zu ... (row indexes, counts): no
			 * flags, width or precision, so no snprintf needed */
			if (put_int(out, len, *p == 'd', &ap) < 0)
				goto done;
			p++;
			continue;
		}
		memcpy(spec + sl, len, strlen(len));
		sl += strlen(len);
		spec[sl++] = *p;
		spec[sl] = 0;
		if (put_conv(out, spec, nstar, stars, len, *p, &ap) < 0)
			goto done;
		p++;
	}
	rc = 0;
done:
	va_end(ap);
	return rc;
}

int web_printf(struct buf *out, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = web_vprintf(out, fmt, ap);
	va_end(ap);
	return rc;
}
