/* netguard.h - which network addresses an outgoing webhook may reach.
 *
 * A webhook URL is given by whoever can write to the daemon; without a
 * guard it makes the daemon a proxy into the network it sits in (the
 * loopback daemon itself, a database on 10.x, the cloud metadata service
 * at 169.254.169.254).  Every address is classified here; everything but
 * SRV_ADDR_PUBLIC is refused unless the operator passed
 * --webhook-allow-private.  The check runs on resolved addresses: once
 * when a webhook is created (srv_netguard_host) and again on the address
 * libcurl is about to connect to (webhooks.c), so a name that resolves to
 * something else later (DNS rebinding) is still refused.
 *
 * Pure functions, no state: thread-safe. */
#ifndef PARITY_NETGUARD_H
#define PARITY_NETGUARD_H

#include <stddef.h>
#include <sys/socket.h>

enum srv_addr_class {
	SRV_ADDR_PUBLIC = 0,  /* globally routable: allowed */
	SRV_ADDR_LOOPBACK,    /* 127.0.0.0/8, ::1 */
	SRV_ADDR_PRIVATE,     /* 10/8, 172.16/12, 192.168/16, fc00::/7, fec0::/10 */
	SRV_ADDR_CGNAT,       /* 100.64.0.0/10 (shared address space) */
	SRV_ADDR_LINK_LOCAL,  /* 169.254.0.0/16, fe80::/10 */
	SRV_ADDR_METADATA,    /* cloud metadata: 169.254.169.254, 169.254.170.2, fd00:ec2::254 */
	SRV_ADDR_UNSPECIFIED, /* 0.0.0.0/8, :: */
	SRV_ADDR_MULTICAST,   /* 224.0.0.0/4, ff00::/8 */
	SRV_ADDR_RESERVED,    /* 240/4, broadcast, 192.0.0/24, 198.18/15, ::/96, 100::/64 */
	SRV_ADDR_NOT_INET     /* not an IPv4 or IPv6 socket address */
};

/* Class of an IPv4 or IPv6 socket address (len bytes at sa).  IPv6 forms
 * that carry an IPv4 address (::ffff:a.b.c.d mapped, 64:ff9b::/96 NAT64,
 * 2002::/16 6to4) are classified by the IPv4 address inside. */
enum srv_addr_class srv_addr_classify(const struct sockaddr *sa, size_t len);

/* Class of a numeric address in text ("10.0.0.1", "::ffff:127.0.0.1",
 * "fe80::1"; no brackets, no zone).  0 with *out set, -1 when the text is
 * not a numeric IPv4 or IPv6 address.  Never resolves a name. */
int srv_addr_classify_text(const char *text, enum srv_addr_class *out);

/* "public", "loopback", "private", "carrier-grade NAT", "link-local",
 * "cloud metadata", "unspecified", "multicast", "reserved", "not IP". */
const char *srv_addr_class_name(enum srv_addr_class c);

/* Outcome of srv_netguard_host. */
enum srv_netguard {
	SRV_NETGUARD_OK = 0,    /* every address the name resolves to is public */
	SRV_NETGUARD_REFUSED,   /* one of them is not (why names it) */
	SRV_NETGUARD_UNRESOLVED /* the name does not resolve (why says so) */
};

/* Resolve host (a name or a numeric address; IPv6 without brackets) with
 * getaddrinfo and classify every address; a single internal address is
 * enough to refuse.  why gets a one-line reason ("127.0.0.1 is a loopback
 * address").  Blocks for the duration of the lookup. */
enum srv_netguard srv_netguard_host(const char *host, char *why, size_t why_cap);

#endif
