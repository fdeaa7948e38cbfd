/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Event channels: a queue of events per channel and an eventfd that is
 * readable exactly while the queue is not empty, so that poll() on
 * channel->fd works.  rdma_get_cm_event blocks on it, or fails with EAGAIN
 * when the application made the fd O_NONBLOCK.  rdma_ack_cm_event frees
 * the event and lets rdma_destroy_id go on.  Also rdma_event_str.
 *
 * The channels not yet destroyed are kept in a list, so that a thread
 * calling rdma_get_cm_event() on a channel another thread has destroyed
 * never reads the freed channel: it finds the pointer gone from the list
 * and blocks for good, as a reader already blocked in read() on
 * librdmacm's closed fd does (rping's CM thread comes back for its next
 * event after its main thread destroyed the channel).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "rxd_cm_priv.h"

/* The channels created and not yet destroyed (rxd_cm.lock). */
static struct rxd_cm_channel *live_channels;

static struct rxd_cm_channel *
chan(struct rdma_event_channel *ch)
{
	return (struct rxd_cm_channel *)ch;
}

/* Is ch a channel not yet destroyed (lock held)?  Compares pointers only. */
static bool
channel_live(const struct rxd_cm_channel *ch)
{
	const struct rxd_cm_channel *c;

	for (c = live_channels; c != NULL; c = c->live_next)
		if (c == ch)
			return true;
	return false;
}

static void
channel_unlink(struct rxd_cm_channel *ch)
{
	struct rxd_cm_channel **pp;

	for (pp = &live_channels; *pp != NULL; pp = &(*pp)->live_next)
		if (*pp == ch) {
			*pp = ch->live_next;
			return;
		}
}

/* Never returns: for a thread in a channel that is gone. */
static void __attribute__((noreturn))
block_forever(void)
{
	for (;;)
		pause();
}

static void
fd_set_ready(struct rxd_cm_channel *ch)
{
	uint64_t one = 1;

	(void)!write(ch->ch.fd, &one, sizeof(one));
}

/* Only called with the counter non-zero, so the read never blocks. */
static void
fd_clear_ready(struct rxd_cm_channel *ch)
{
	uint64_t v;

	(void)!read(ch->ch.fd, &v, sizeof(v));
}

struct rdma_event_channel *
rdma_create_event_channel(void)
{
	struct rxd_cm_channel *ch;
	int rc = rxd_cm_start();

	if (rc != 0) {
		errno = rc;
		return NULL;
	}
	ch = calloc(1, sizeof(*ch));
	if (ch == NULL)
		return NULL;
	ch->ch.fd = eventfd(0, EFD_CLOEXEC);
	if (ch->ch.fd < 0) {
		free(ch);
		return NULL;
	}
	pthread_mutex_lock(&rxd_cm.lock);
	ch->live_next = live_channels;
	live_channels = ch;
	pthread_mutex_unlock(&rxd_cm.lock);
	return &ch->ch;
}

static void
channel_free(struct rxd_cm_channel *ch)
{
	close(ch->ch.fd);
	free(ch);
}

/*
 * A thread may still wait in rdma_get_cm_event() (rping's CM thread does
 * while its main thread tears down).  librdmacm's reader stays blocked in
 * read() on the fd and never looks at the channel again; here the channel
 * is marked dead and left to the last waiter, which frees it and stays
 * blocked too.
 */
void
rdma_destroy_event_channel(struct rdma_event_channel *channel)
{
	struct rxd_cm_channel *ch = chan(channel);
	struct rxd_cm_event *e;
	bool waited;

	if (channel == NULL)
		return;
	pthread_mutex_lock(&rxd_cm.lock);
	channel_unlink(ch);
	while ((e = ch->head) != NULL) {
		ch->head = e->next;
		free(e);
		rxd_cm.n_events--;
	}
	ch->tail = NULL;
	ch->dead = true;
	waited = ch->waiters > 0;
	pthread_mutex_unlock(&rxd_cm.lock);
	if (!waited)
		channel_free(ch);
}

/* Queue @p e at the tail of @p ch; its fd turns readable (lock held). */
static void
append(struct rxd_cm_channel *ch, struct rxd_cm_event *e)
{
	e->next = NULL;
	if (ch->tail != NULL)
		ch->tail->next = e;
	else
		ch->head = e;
	ch->tail = e;
	if (ch->head == e)
		fd_set_ready(ch);
}

struct rdma_cm_event *
rxd_cm_event_push(struct rxd_cm_id *id, struct rxd_cm_id *listen,
		  enum rdma_cm_event_type type, int status,
		  const uint8_t *pdata, uint8_t pdata_len)
{
	struct rxd_cm_id *owner = listen != NULL ? listen : id;
	struct rxd_cm_channel *ch = chan(owner->id.channel);
	struct rxd_cm_event *e = calloc(1, sizeof(*e));

	if (e == NULL)
		return NULL;
	rxd_cm.n_events++;
	e->ev.id = &id->id;
	e->ev.listen_id = listen != NULL ? &listen->id : NULL;
	e->ev.event = type;
	e->ev.status = status;
	if (pdata != NULL && pdata_len > 0) {
		memcpy(e->pdata, pdata, pdata_len);
		e->ev.param.conn.private_data = e->pdata;
		e->ev.param.conn.private_data_len = pdata_len;
	}
	append(ch, e);
	return &e->ev;
}

static bool
event_of(const struct rxd_cm_event *e, const struct rxd_cm_id *id)
{
	return e->ev.id == &id->id || e->ev.listen_id == &id->id;
}

/* Take the queued events of @p id off its channel, in order (lock held). */
static struct rxd_cm_event *
unlink_events(struct rxd_cm_id *id)
{
	struct rxd_cm_channel *ch;
	struct rxd_cm_event **pp, *e, *out = NULL, **out_tail = &out;
	bool had;

	if (id->id.channel == NULL)
		return NULL;
	ch = chan(id->id.channel);
	had = ch->head != NULL;
	ch->tail = NULL;
	for (pp = &ch->head; (e = *pp) != NULL;) {
		if (event_of(e, id)) {
			*pp = e->next;
			*out_tail = e;
			out_tail = &e->next;
		} else {
			ch->tail = e;
			pp = &e->next;
		}
	}
	*out_tail = NULL;
	if (had && ch->head == NULL)
		fd_clear_ready(ch);
	return out;
}

void
rxd_cm_event_drop(struct rxd_cm_id *id)
{
	struct rxd_cm_event *e = unlink_events(id), *next;

	for (; e != NULL; e = next) {
		next = e->next;
		free(e);
		rxd_cm.n_events--;
	}
}

void
rxd_cm_event_move(struct rxd_cm_id *id, struct rdma_event_channel *to)
{
	struct rxd_cm_event *e = unlink_events(id), *next;

	for (; e != NULL; e = next) {
		next = e->next;
		append(chan(to), e);
	}
}

/* Pop the head (lock held). NULL if empty. */
static struct rxd_cm_event *
pop(struct rxd_cm_channel *ch)
{
	struct rxd_cm_event *e = ch->head;

	if (e == NULL)
		return NULL;
	ch->head = e->next;
	if (ch->head == NULL) {
		ch->tail = NULL;
		fd_clear_ready(ch);
	}
	rxd_cm_id(e->ev.id)->events_out++;
	if (e->ev.listen_id != NULL)
		rxd_cm_id(e->ev.listen_id)->events_out++;
	return e;
}

/*
 * Leave a channel destroyed while this thread was in it (lock held): the
 * last to leave frees it, and the thread stays blocked as librdmacm's
 * reader does.
 */
static void __attribute__((noreturn))
leave_dead(struct rxd_cm_channel *ch)
{
	bool last = --ch->waiters == 0;

	pthread_mutex_unlock(&rxd_cm.lock);
	if (last)
		channel_free(ch);
	block_forever();
}

/*
 * ch->waiters counts the threads in here for the whole call, not only
 * while they poll: rdma_destroy_event_channel() frees the channel only
 * when none is, so none touches it after the free (a thread between its
 * poll and its next look did: rping's CM thread while its main thread
 * tore down).
 */
int
rxd_cm_event_take(struct rxd_cm_channel *ch, struct rdma_cm_event **ev)
{
	struct pollfd pfd = { .events = POLLIN };
	struct rxd_cm_event *e;
	int rc = 0;

	pthread_mutex_lock(&rxd_cm.lock);
	if (!channel_live(ch)) {
		pthread_mutex_unlock(&rxd_cm.lock);
		block_forever();
	}
	pfd.fd = ch->ch.fd;
	ch->waiters++;
	for (;;) {
		if (ch->dead)
			leave_dead(ch);
		e = pop(ch);
		if (e != NULL || rc < 0 ||
		    (fcntl(ch->ch.fd, F_GETFL) & O_NONBLOCK))
			break;
		pthread_mutex_unlock(&rxd_cm.lock);
		rc = poll(&pfd, 1, -1);
		if (rc < 0 && errno == EINTR)
			rc = 0;
		pthread_mutex_lock(&rxd_cm.lock);
	}
	ch->waiters--;
	pthread_mutex_unlock(&rxd_cm.lock);
	if (e != NULL) {
		*ev = &e->ev;
		return 0;
	}
	if (rc == 0)
		errno = EAGAIN;
	return -1;
}

int
rdma_get_cm_event(struct rdma_event_channel *channel,
		  struct rdma_cm_event **event)
{
	if (channel == NULL || event == NULL) {
		errno = EINVAL;
		return -1;
	}
	return rxd_cm_event_take(chan(channel), event);
}

int
rdma_ack_cm_event(struct rdma_cm_event *event)
{
	struct rxd_cm_id *id;

	if (event == NULL) {
		errno = EINVAL;
		return -1;
	}
	pthread_mutex_lock(&rxd_cm.lock);
	id = rxd_cm_id(event->id);
	id->events_out--;
	pthread_cond_broadcast(&id->acked);
	if (event->listen_id != NULL) {
		id = rxd_cm_id(event->listen_id);
		id->events_out--;
		pthread_cond_broadcast(&id->acked);
	}
	rxd_cm.n_events--;
	pthread_mutex_unlock(&rxd_cm.lock);
	free(event);  /* the event is the first member of rxd_cm_event */
	return 0;
}

static const char *const event_names[] = {
	[RDMA_CM_EVENT_ADDR_RESOLVED] = "RDMA_CM_EVENT_ADDR_RESOLVED",
	[RDMA_CM_EVENT_ADDR_ERROR] = "RDMA_CM_EVENT_ADDR_ERROR",
	[RDMA_CM_EVENT_ROUTE_RESOLVED] = "RDMA_CM_EVENT_ROUTE_RESOLVED",
	[RDMA_CM_EVENT_ROUTE_ERROR] = "RDMA_CM_EVENT_ROUTE_ERROR",
	[RDMA_CM_EVENT_CONNECT_REQUEST] = "RDMA_CM_EVENT_CONNECT_REQUEST",
	[RDMA_CM_EVENT_CONNECT_RESPONSE] = "RDMA_CM_EVENT_CONNECT_RESPONSE",
	[RDMA_CM_EVENT_CONNECT_ERROR] = "RDMA_CM_EVENT_CONNECT_ERROR",
	[RDMA_CM_EVENT_UNREACHABLE] = "RDMA_CM_EVENT_UNREACHABLE",
	[RDMA_CM_EVENT_REJECTED] = "RDMA_CM_EVENT_REJECTED",
	[RDMA_CM_EVENT_ESTABLISHED] = "RDMA_CM_EVENT_ESTABLISHED",
	[RDMA_CM_EVENT_DISCONNECTED] = "RDMA_CM_EVENT_DISCONNECTED",
	[RDMA_CM_EVENT_DEVICE_REMOVAL] = "RDMA_CM_EVENT_DEVICE_REMOVAL",
	[RDMA_CM_EVENT_MULTICAST_JOIN] = "RDMA_CM_EVENT_MULTICAST_JOIN",
	[RDMA_CM_EVENT_MULTICAST_ERROR] = "RDMA_CM_EVENT_MULTICAST_ERROR",
	[RDMA_CM_EVENT_ADDR_CHANGE] = "RDMA_CM_EVENT_ADDR_CHANGE",
	[RDMA_CM_EVENT_TIMEWAIT_EXIT] = "RDMA_CM_EVENT_TIMEWAIT_EXIT",
};

const char *
rdma_event_str(enum rdma_cm_event_type event)
{
	if ((unsigned int)event < sizeof(event_names) / sizeof(event_names[0]))
		return event_names[event];
	return "UNKNOWN EVENT";
}
