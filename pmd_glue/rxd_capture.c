/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pcapng capture (see rxd_capture.h).  Several engines may capture into one
 * file, so writes are serialised by a spinlock; capture is a debugging aid,
 * not the fast path.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_pcapng.h>
#include <rte_spinlock.h>

#include "rxd_capture.h"

#define CAPTURE_POOL_SIZE 4095
#define CAPTURE_SNAPLEN 9216

struct rxd_capture {
	rte_pcapng_t *pcapng;
	struct rte_mempool *pool;
	rte_spinlock_t lock;
	uint64_t written;
	uint64_t lost;
};

struct rxd_capture *
rxd_capture_open(const char *path, int socket, char *err, size_t errlen)
{
	static unsigned int serial;
	struct rxd_capture *c;
	char name[RTE_MEMPOOL_NAMESIZE];
	int fd;

	c = rte_zmalloc_socket("rxd_capture", sizeof(*c), 0, socket);
	if (c == NULL) {
		snprintf(err, errlen, "%s: no memory for the capture", path);
		return NULL;
	}
	snprintf(name, sizeof(name), "rxd_cap%u", serial++);
	c->pool = rte_pktmbuf_pool_create_by_ops(name, CAPTURE_POOL_SIZE, 0, 0,
		rte_pcapng_mbuf_size(CAPTURE_SNAPLEN), socket, "ring_mp_mc");
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (c->pool == NULL || fd < 0) {
		snprintf(err, errlen, "%s: cannot capture: %s", path,
			 fd < 0 ? strerror(errno) : "no mbuf pool");
		goto fail;
	}
	c->pcapng = rte_pcapng_fdopen(fd, NULL, NULL, "rxd", NULL);
	if (c->pcapng == NULL) {
		snprintf(err, errlen, "%s: cannot write pcapng: %s", path,
			 strerror(rte_errno));
		close(fd);
		goto fail;
	}
	rte_spinlock_init(&c->lock);
	return c;
fail:
	rte_mempool_free(c->pool);
	rte_free(c);
	return NULL;
}

void
rxd_capture_frames(struct rxd_capture *c, uint16_t port_id, uint16_t queue,
		   struct rte_mbuf *const *pkts, uint16_t n, bool tx)
{
	struct rte_mbuf *copies[n];
	uint64_t now = rte_get_tsc_cycles();
	uint16_t i, k = 0;

	for (i = 0; i < n; i++) {
		copies[k] = rte_pcapng_copy(port_id, queue, pkts[i], c->pool,
			CAPTURE_SNAPLEN, now, tx ? RTE_PCAPNG_DIRECTION_OUT :
			RTE_PCAPNG_DIRECTION_IN);
		if (copies[k] != NULL)
			k++;
	}
	rte_spinlock_lock(&c->lock);
	if (k > 0 && rte_pcapng_write_packets(c->pcapng, copies, k) < 0)
		c->lost += k;
	else
		c->written += k;
	c->lost += n - k;
	rte_spinlock_unlock(&c->lock);
	rte_pktmbuf_free_bulk(copies, k);
}

void
rxd_capture_counts(const struct rxd_capture *c, uint64_t *written,
		   uint64_t *lost)
{
	*written = c->written;
	*lost = c->lost;
}

void
rxd_capture_close(struct rxd_capture *c)
{
	if (c == NULL)
		return;
	rte_pcapng_close(c->pcapng);
	rte_mempool_free(c->pool);
	rte_free(c);
}
