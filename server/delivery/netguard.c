/* netguard.c - address classification for outgoing webhooks (see
 * delivery.h).  Ranges: RFC 6890 special-purpose registries (IPv4 and
 * IPv6), RFC 1918 private, RFC 6598 shared (CGNAT), RFC 4193 unique local,
 * RFC 3927 / 4291 link-local, RFC 6052 NAT64 and RFC 3056 6to4 (which
 * embed an IPv4 address), and the metadata services of the large clouds. */

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "delivery.h"

/* v4 = the address in host byte order. */
static enum srv_addr_class classify_v4(uint32_t v4)
{
	unsigned a = v4 >> 24, b = (v4 >> 16) & 0xff, c = (v4 >> 8) & 0xff;
	if (v4 == 0xa9fea9feu /* 169.254.169.254: AWS, GCP, Azure, OpenStack */ ||
	    v4 == 0xa9feaa02u /* 169.254.170.2: AWS ECS task metadata */)
		return SRV_ADDR_METADATA;
	if (a == 0)
		return SRV_ADDR_UNSPECIFIED; /* "this network"; 0.0.0.0 reaches the host */
	if (a == 127)
		return SRV_ADDR_LOOPBACK;
	if (a == 10 || (a == 172 && (b & 0xf0) == 16) || (a == 192 && b == 168))
		return SRV_ADDR_PRIVATE;
	if (a == 100 && (b & 0xc0) == 64)
		return SRV_ADDR_CGNAT; /* also Alibaba's metadata 100.100.100.200 */
	if (a == 169 && b == 254)
		return SRV_ADDR_LINK_LOCAL;
	if (a >= 224 && a <= 239)
		return SRV_ADDR_MULTICAST;
	if (a >= 240 /* reserved and 255.255.255.255 */ ||
	    (a == 192 && b == 0 && c == 0) /* IETF protocol assignments */ ||
	    (a == 198 && (b & 0xfe) == 18) /* benchmarking */)
		return SRV_ADDR_RESERVED;
	return SRV_ADDR_PUBLIC;
}

static uint32_t v4_at(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int all_zero(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

static enum srv_addr_class classify_v6(const unsigned char *a)
{
	static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
	static const unsigned char nat64[12] = {0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0};
	static const unsigned char ec2_metadata[16] = {0xfd, 0, 0x0e, 0xc2, 0, 0, 0,    0,
	                                               0,    0, 0,    0,    0, 0, 0x02, 0x54};
	if (!memcmp(a, mapped, 12) || !memcmp(a, nat64, 12))
		return classify_v4(v4_at(a + 12));
	if (a[0] == 0x20 && a[1] == 0x02) /* 6to4: 2002:AABB:CCDD::/48 */
		return classify_v4(v4_at(a + 2));
	if (all_zero(a, 15))
		return a[15] == 1   ? SRV_ADDR_LOOPBACK
		       : a[15] == 0 ? SRV_ADDR_UNSPECIFIED
		                    : SRV_ADDR_RESERVED;
	if (all_zero(a, 12))
		return SRV_ADDR_RESERVED; /* IPv4-compatible ::a.b.c.d (deprecated) */
	if (!memcmp(a, ec2_metadata, 16))
		return SRV_ADDR_METADATA;
	if ((a[0] & 0xfe) == 0xfc)
		return SRV_ADDR_PRIVATE; /* unique local fc00::/7 */
	if (a[0] == 0xfe && (a[1] & 0xc0) == 0x80)
		return SRV_ADDR_LINK_LOCAL; /* fe80::/10 */
	if (a[0] == 0xfe && (a[1] & 0xc0) == 0xc0)
		return SRV_ADDR_PRIVATE; /* site-local fec0::/10 (deprecated) */
	if (a[0] == 0xff)
		return SRV_ADDR_MULTICAST;
	if (a[0] == 0x01 && a[1] == 0 && all_zero(a + 2, 6))
		return SRV_ADDR_RESERVED; /* discard-only 100::/64 */
	if (a[0] == 0 && a[1] == 0x64 && a[2] == 0xff && a[3] == 0x9b && a[4] == 0 && a[5] == 1)
		return SRV_ADDR_PRIVATE; /* local-use NAT64 64:ff9b:1::/48 */
	return SRV_ADDR_PUBLIC;
}

enum srv_addr_class srv_addr_classify(const struct sockaddr *sa, size_t len)
{
	if (!sa)
		return SRV_ADDR_NOT_INET;
	if (sa->sa_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)sa;
		return classify_v4(ntohl(s4->sin_addr.s_addr));
	}
	if (sa->sa_family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)sa;
		return classify_v6(s6->sin6_addr.s6_addr);
	}
	return SRV_ADDR_NOT_INET;
}

int srv_addr_classify_text(const char *text, enum srv_addr_class *out)
{
	struct in_addr a4;
	struct in6_addr a6;
	if (inet_pton(AF_INET, text, &a4) == 1) {
		*out = classify_v4(ntohl(a4.s_addr));
		return 0;
	}
	if (inet_pton(AF_INET6, text, &a6) == 1) {
		*out = classify_v6(a6.s6_addr);
		return 0;
	}
	return -1;
}

const char *srv_addr_class_name(enum srv_addr_class c)
{
	switch (c) {
	case SRV_ADDR_PUBLIC: return "public";
	case SRV_ADDR_LOOPBACK: return "loopback";
	case SRV_ADDR_PRIVATE: return "private";
	case SRV_ADDR_CGNAT: return "carrier-grade NAT";
	case SRV_ADDR_LINK_LOCAL: return "link-local";
	case SRV_ADDR_METADATA: return "cloud metadata";
	case SRV_ADDR_UNSPECIFIED: return "unspecified";
	case SRV_ADDR_MULTICAST: return "multicast";
	case SRV_ADDR_RESERVED: return "reserved";
	case SRV_ADDR_NOT_INET: break;
	}
	return "not IP";
}

enum srv_netguard srv_netguard_host(const char *host, char *why, size_t why_cap)
{
	struct addrinfo hints, *res = NULL;
	if (!host || !*host) {
		snprintf(why, why_cap, "the URL names no host");
		return SRV_NETGUARD_UNRESOLVED;
	}
	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	int rc = getaddrinfo(host, NULL, &hints, &res);
	if (rc != 0 || !res) {
		snprintf(why, why_cap, "host '%.200s' does not resolve: %s", host,
		         rc ? gai_strerror(rc) : "no address");
		if (res)
			freeaddrinfo(res);
		return SRV_NETGUARD_UNRESOLVED;
	}
	enum srv_netguard out = SRV_NETGUARD_OK;
	for (const struct addrinfo *ai = res; ai; ai = ai->ai_next) {
		enum srv_addr_class c = srv_addr_classify(ai->ai_addr, ai->ai_addrlen);
		if (c == SRV_ADDR_PUBLIC)
			continue;
		char ip[INET6_ADDRSTRLEN] = "?";
		if (ai->ai_family == AF_INET)
			inet_ntop(AF_INET, &((const struct sockaddr_in *)ai->ai_addr)->sin_addr, ip,
			          sizeof ip);
		else if (ai->ai_family == AF_INET6)
			inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)ai->ai_addr)->sin6_addr,
			          ip, sizeof ip);
		snprintf(why, why_cap, "host '%.200s' resolves to %s, a %s address", host, ip,
		         srv_addr_class_name(c));
		out = SRV_NETGUARD_REFUSED;
		break;
	}
	freeaddrinfo(res);
	return out;
}
