/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdma_getaddrinfo / rdma_freeaddrinfo: host and service names through
 * getaddrinfo(3); a passive lookup fills the source address (the
 * wildcard without a node), an active one the destination, and the hints'
 * source address is kept.  With neither node nor service, the hints'
 * source and destination addresses are the answer (libfabric's verbs
 * provider passes the peer's address that way).  The port space and QP
 * type default to TCP/RC.
 */
#include <errno.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/rdma_cma.h>

static struct sockaddr *
dup_addr(const struct sockaddr *sa, socklen_t len)
{
	struct sockaddr *d = malloc(len);

	if (d != NULL)
		memcpy(d, sa, len);
	return d;
}

static void
set_defaults(struct rdma_addrinfo *r, const struct rdma_addrinfo *hints)
{
	r->ai_port_space = hints && hints->ai_port_space ?
		hints->ai_port_space : RDMA_PS_TCP;
	r->ai_qp_type = hints && hints->ai_qp_type ? hints->ai_qp_type :
		(r->ai_port_space == RDMA_PS_UDP ? IBV_QPT_UD : IBV_QPT_RC);
	r->ai_flags = hints ? hints->ai_flags : 0;
}

static int
lookup(const char *node, const char *service,
       const struct rdma_addrinfo *hints, struct addrinfo **ai)
{
	struct addrinfo h;

	memset(&h, 0, sizeof(h));
	h.ai_family = hints && hints->ai_family ? hints->ai_family : AF_UNSPEC;
	h.ai_socktype = SOCK_STREAM;
	if (hints && (hints->ai_flags & RAI_PASSIVE))
		h.ai_flags |= AI_PASSIVE;
	if (hints && (hints->ai_flags & RAI_NUMERICHOST))
		h.ai_flags |= AI_NUMERICHOST;
	return getaddrinfo(node, service, &h, ai);
}

/* The answer from the hints' addresses alone; -1 with errno on failure. */
static int
from_hints(const struct rdma_addrinfo *h, struct rdma_addrinfo **res)
{
	struct rdma_addrinfo *r = calloc(1, sizeof(*r));

	if (r == NULL)
		return -1;
	set_defaults(r, h);
	r->ai_family = h->ai_dst_addr ? h->ai_dst_addr->sa_family :
		h->ai_src_addr->sa_family;
	if (h->ai_src_addr && h->ai_src_len) {
		r->ai_src_addr = dup_addr(h->ai_src_addr, h->ai_src_len);
		r->ai_src_len = h->ai_src_len;
	}
	if (h->ai_dst_addr && h->ai_dst_len) {
		r->ai_dst_addr = dup_addr(h->ai_dst_addr, h->ai_dst_len);
		r->ai_dst_len = h->ai_dst_len;
	}
	if ((h->ai_src_len && !r->ai_src_addr) ||
	    (h->ai_dst_len && !r->ai_dst_addr)) {
		rdma_freeaddrinfo(r);
		errno = ENOMEM;
		return -1;
	}
	*res = r;
	return 0;
}

int
rdma_getaddrinfo(const char *node, const char *service,
		 const struct rdma_addrinfo *hints,
		 struct rdma_addrinfo **res)
{
	struct rdma_addrinfo *r;
	struct addrinfo *ai;
	int rc;

	if (res != NULL && node == NULL && service == NULL && hints != NULL &&
	    ((hints->ai_src_addr && hints->ai_src_len) ||
	     (hints->ai_dst_addr && hints->ai_dst_len)))
		return from_hints(hints, res);
	if (res == NULL || (node == NULL && service == NULL)) {
		errno = EINVAL;
		return -1;
	}
	rc = lookup(node, service, hints, &ai);
	if (rc != 0) {
		errno = rc == EAI_SYSTEM ? errno : ENOENT;
		return rc;
	}
	r = calloc(1, sizeof(*r));
	if (r == NULL) {
		freeaddrinfo(ai);
		return -1;
	}
	set_defaults(r, hints);
	r->ai_family = ai->ai_family;
	if (r->ai_flags & RAI_PASSIVE) {
		r->ai_src_addr = dup_addr(ai->ai_addr, ai->ai_addrlen);
		r->ai_src_len = ai->ai_addrlen;
	} else {
		r->ai_dst_addr = dup_addr(ai->ai_addr, ai->ai_addrlen);
		r->ai_dst_len = ai->ai_addrlen;
		if (hints && hints->ai_src_addr && hints->ai_src_len) {
			r->ai_src_addr = dup_addr(hints->ai_src_addr,
						  hints->ai_src_len);
			r->ai_src_len = hints->ai_src_len;
		}
	}
	freeaddrinfo(ai);
	*res = r;
	return 0;
}

void
rdma_freeaddrinfo(struct rdma_addrinfo *res)
{
	struct rdma_addrinfo *next;

	for (; res != NULL; res = next) {
		next = res->ai_next;
		free(res->ai_src_addr);
		free(res->ai_dst_addr);
		free(res->ai_src_canonname);
		free(res->ai_dst_canonname);
		free(res->ai_route);
		free(res->ai_connect);
		free(res);
	}
}
