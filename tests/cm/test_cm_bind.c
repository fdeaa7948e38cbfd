/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdma_bind_addr()'s port space as Linux's rdma_cm keeps it: tgt's iSER
 * portals (an IPv4 and an IPv6 wildcard on one port, both AF-only) bind
 * and listen side by side; a wildcard takes a port from every address of
 * its family (and of both, for an IPv6 id that is not AF-only); one
 * address takes it from itself only; REUSEADDR on both ids shares it; the
 * options take an int and the states Linux takes them in.
 */
#include <errno.h>
#include <string.h>

#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <rdma/rdma_cma.h>

#include "rxd/rxd.h"
#include "rxd/rxd_ring_pair.h"
#include "rxd_test_eal.h"

#define PORT 3260

static struct rdma_event_channel *ch;

static void
start(void)
{
	uint16_t a, b;

	cr_assert_geq(rxd_test_eal("-l 0-1 -m 256 --no-shconf"), 0);
	cr_assert_eq(rxd_port_ring_pair("bA", "bB", 0, &a, &b), 0);
	cr_assert_eq(rxd_test_rxd("--ip 0:10.0.0.1/24 --ip 0:fd00::1/64 "
		"--ip 1:10.0.0.2/24"), 0, "%s", rxd_last_error());
	ch = rdma_create_event_channel();
	cr_assert_not_null(ch);
}

static void
stop(void)
{
	rdma_destroy_event_channel(ch);
	rxd_stop();
}

TestSuite(cm_bind, .init = start, .fini = stop, .timeout = 60);

/* An id; afonly -1 leaves the option alone. */
static struct rdma_cm_id *
id_new(int afonly, int reuse)
{
	struct rdma_cm_id *id;

	cr_assert_eq(rdma_create_id(ch, &id, NULL, RDMA_PS_TCP), 0);
	if (afonly >= 0)
		cr_assert_eq(rdma_set_option(id, RDMA_OPTION_ID,
			RDMA_OPTION_ID_AFONLY, &afonly, sizeof(afonly)), 0);
	if (reuse)
		cr_assert_eq(rdma_set_option(id, RDMA_OPTION_ID,
			RDMA_OPTION_ID_REUSEADDR, &reuse, sizeof(reuse)), 0);
	return id;
}

/* rdma_bind_addr() to ADDR (IPv4 or IPv6 text) at PORT: 0 or errno. */
static int
bind_to(struct rdma_cm_id *id, const char *addr)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

	if (inet_pton(AF_INET, addr, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons(PORT);
	} else {
		cr_assert_eq(inet_pton(AF_INET6, addr, &s6->sin6_addr), 1);
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(PORT);
	}
	errno = 0;
	return rdma_bind_addr(id, (struct sockaddr *)&ss) == 0 ? 0 : errno;
}

Test(cm_bind, tgt_portals_both_families_afonly)
{
	struct rdma_cm_id *v4 = id_new(1, 0), *v6 = id_new(1, 0);

	cr_assert_eq(bind_to(v4, "0.0.0.0"), 0);
	cr_assert_eq(rdma_listen(v4, 0), 0);
	cr_assert_eq(bind_to(v6, "::"), 0, "the IPv6 wildcard beside the "
		     "IPv4 one, both AF-only: %s", strerror(errno));
	cr_assert_eq(rdma_listen(v6, 0), 0);
	rdma_destroy_id(v6);
	rdma_destroy_id(v4);
}

Test(cm_bind, ipv6_wildcard_not_afonly_takes_ipv4_too)
{
	struct rdma_cm_id *v4 = id_new(-1, 0), *v6 = id_new(-1, 0);

	cr_assert_eq(bind_to(v4, "0.0.0.0"), 0);
	cr_assert_eq(bind_to(v6, "::"), EADDRNOTAVAIL);
	rdma_destroy_id(v4);
	cr_assert_eq(bind_to(v6, "::"), 0, "free once the IPv4 id is gone");
	v4 = id_new(-1, 0);
	cr_assert_eq(bind_to(v4, "10.0.0.1"), EADDRNOTAVAIL,
		     "an IPv4 address under a dual-stack wildcard");
	rdma_destroy_id(v4);
	rdma_destroy_id(v6);
}

Test(cm_bind, addresses_share_a_port_wildcards_do_not)
{
	struct rdma_cm_id *a = id_new(-1, 0), *b = id_new(-1, 0);
	struct rdma_cm_id *c = id_new(-1, 0), *d = id_new(-1, 0);

	cr_assert_eq(bind_to(a, "10.0.0.1"), 0);
	cr_assert_eq(bind_to(b, "10.0.0.2"), 0, "another address");
	cr_assert_eq(bind_to(c, "10.0.0.1"), EADDRINUSE, "the same address");
	cr_assert_eq(bind_to(d, "0.0.0.0"), EADDRNOTAVAIL, "a wildcard");
	rdma_destroy_id(d);
	d = id_new(-1, 0);
	cr_assert_eq(bind_to(d, "fd00::1"), 0, "an IPv6 address");
	rdma_destroy_id(a);
	rdma_destroy_id(b);
	rdma_destroy_id(c);
	rdma_destroy_id(d);
}

Test(cm_bind, reuseaddr_on_both_shares_the_port)
{
	struct rdma_cm_id *a = id_new(-1, 1), *b = id_new(-1, 1);
	struct rdma_cm_id *c = id_new(-1, 0);

	cr_assert_eq(bind_to(a, "0.0.0.0"), 0);
	cr_assert_eq(bind_to(b, "0.0.0.0"), 0, "both asked for REUSEADDR");
	cr_assert_eq(bind_to(c, "0.0.0.0"), EADDRNOTAVAIL, "one did not");
	rdma_destroy_id(a);
	rdma_destroy_id(b);
	rdma_destroy_id(c);
}

Test(cm_bind, options_take_an_int_in_their_states)
{
	struct rdma_cm_id *id = id_new(-1, 0);
	int one = 1, zero = 0;
	char c = 1;

	errno = 0;
	cr_assert_eq(rdma_set_option(id, RDMA_OPTION_ID,
		     RDMA_OPTION_ID_AFONLY, &c, sizeof(c)), -1);
	cr_assert_eq(errno, EINVAL);
	cr_assert_eq(bind_to(id, "10.0.0.1"), 0);
	cr_assert_eq(rdma_set_option(id, RDMA_OPTION_ID,
		     RDMA_OPTION_ID_AFONLY, &one, sizeof(one)), 0, "bound");
	cr_assert_eq(rdma_set_option(id, RDMA_OPTION_ID,
		     RDMA_OPTION_ID_REUSEADDR, &one, sizeof(one)), 0, "bound");
	errno = 0;
	cr_assert_eq(rdma_set_option(id, RDMA_OPTION_ID,
		     RDMA_OPTION_ID_REUSEADDR, &zero, sizeof(zero)), -1,
		     "off only before binding");
	cr_assert_eq(errno, EINVAL);
	cr_assert_eq(rdma_listen(id, 0), 0);
	errno = 0;
	cr_assert_eq(rdma_set_option(id, RDMA_OPTION_ID,
		     RDMA_OPTION_ID_AFONLY, &one, sizeof(one)), -1, "listening");
	cr_assert_eq(errno, EINVAL);
	rdma_destroy_id(id);
}
