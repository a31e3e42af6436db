/* crypto.c - the keyed-hash primitives the CI features share (token
 * digests, webhook signatures) and token generation, on OpenSSL's
 * libcrypto and getrandom(2).  Thread-safe: no state of its own. */
#include <errno.h>
#include <string.h>
#include <sys/random.h>

#include "base.h"
#include "crypto_lib.h"

static void to_hex(const unsigned char *md, size_t n, char *hex)
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		hex[2 * i] = digits[md[i] >> 4];
		hex[2 * i + 1] = digits[md[i] & 15];
	}
	hex[2 * n] = 0;
}

int srv_sha256_hex(const void *data, size_t len, char hex[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int md_len = 0;
	int rc = -1;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	if (!ctx)
		goto done;
	if (EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1 ||
	    EVP_DigestUpdate(ctx, data, len) != 1 || EVP_DigestFinal_ex(ctx, md, &md_len) != 1 ||
	    md_len != 32)
		goto done;
	to_hex(md, 32, hex);
	rc = 0;
done:
	EVP_MD_CTX_free(ctx);
	return rc;
}

int srv_hmac_sha256_hex(const void *key, size_t key_len, const void *data, size_t len, char hex[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int md_len = 0;
	/* one-shot HMAC() is not deprecated in OpenSSL 3 (engineering notes §4);
	 * a NULL key pointer is refused by some versions: pass "" instead */
	if (!HMAC(EVP_sha256(), key_len ? key : "", (int)key_len, data, len, md, &md_len) ||
	    md_len != 32)
		return -1;
	to_hex(md, 32, hex);
	return 0;
}

int srv_token_generate(char *out, size_t cap)
{
	static const char b64url[] =
	        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
	unsigned char raw[33];
	size_t got = 0;
	if (cap <= SRV_TOKEN_LEN)
		return -1;
	while (got < 32) {
		ssize_t n = getrandom(raw + got, 32 - got, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		got += (size_t)n;
	}
	raw[32] = 0;
	size_t o = strlen(SRV_TOKEN_PREFIX);
	memcpy(out, SRV_TOKEN_PREFIX, o);
	/* 32 bytes = 256 bits -> 43 base64url digits (the last carries 4 bits) */
	for (size_t bit = 0; bit < 256; bit += 6) {
		size_t byte = bit / 8, shift = bit % 8;
		unsigned v = ((unsigned)raw[byte] << 8 | raw[byte + 1]) >> (10 - shift);
		out[o++] = b64url[v & 63];
	}
	out[o] = 0;
	OPENSSL_cleanse(raw, sizeof raw);
	return o == SRV_TOKEN_LEN ? 0 : -1;
}
