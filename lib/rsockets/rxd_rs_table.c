/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rsockets: the table from rsocket numbers to rsockets, and an rsocket's
 * birth and death.  An rsocket's number is the fd of its CM event
 * channel, so it never collides with the process's other descriptors and
 * rpoll can tell the two apart.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rxd_rs.h"

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rxd_rs **table;
static int table_len;

uint64_t
rxd_rs_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* rsockets' defaults: 384-deep queues, 64 bytes inline, 128 KiB buffers. */
void
rxd_rs_tun_default(struct rxd_rs_tun *tun)
{
	tun->sbuf_size = 1u << 17;
	tun->rbuf_size = 1u << 17;
	tun->sq_size = 384;
	tun->rq_size = 384;
	tun->sq_inline = 64;
	tun->iomap_size = 0;
}

struct rxd_rs *
rxd_rs_new(const struct rxd_rs_tun *tun)
{
	struct rxd_rs *rs = calloc(1, sizeof(*rs));

	if (rs == NULL)
		return NULL;
	pthread_mutex_init(&rs->lock, NULL);
	rs->index = -1;
	rs->tun = *tun;
	rs->ch = rdma_create_event_channel();
	if (rs->ch == NULL)
		goto fail;
	if (fcntl(rs->ch->fd, F_SETFL, O_NONBLOCK) != 0 ||
	    rdma_create_id(rs->ch, &rs->id, rs, RDMA_PS_TCP) != 0)
		goto fail;
	rs->index = rs->ch->fd;
	return rs;
fail:
	rxd_rs_free(rs);
	return NULL;
}

static int
table_grow(int index)
{
	int len = table_len ? table_len : 64;
	struct rxd_rs **t;

	while (len <= index)
		len *= 2;
	t = realloc(table, (size_t)len * sizeof(*t));
	if (t == NULL)
		return ENOMEM;
	memset(t + table_len, 0, (size_t)(len - table_len) * sizeof(*t));
	table = t;
	table_len = len;
	return 0;
}

int
rxd_rs_insert(struct rxd_rs *rs)
{
	int rc = 0;

	pthread_mutex_lock(&table_lock);
	if (rs->index >= table_len)
		rc = table_grow(rs->index);
	if (rc == 0)
		table[rs->index] = rs;
	pthread_mutex_unlock(&table_lock);
	return rc;
}

struct rxd_rs *
rxd_rs_lookup(int index)
{
	struct rxd_rs *rs = NULL;

	pthread_mutex_lock(&table_lock);
	if (index >= 0 && index < table_len)
		rs = table[index];
	pthread_mutex_unlock(&table_lock);
	return rs;
}

void
rxd_rs_free(struct rxd_rs *rs)
{
	pthread_mutex_lock(&table_lock);
	if (rs->index >= 0 && rs->index < table_len &&
	    table[rs->index] == rs)
		table[rs->index] = NULL;
	pthread_mutex_unlock(&table_lock);
	rxd_rs_iomap_free(rs);
	rxd_rs_ep_destroy(rs);
	if (rs->ch != NULL)
		rdma_destroy_event_channel(rs->ch);
	pthread_mutex_destroy(&rs->lock);
	free(rs);
}
