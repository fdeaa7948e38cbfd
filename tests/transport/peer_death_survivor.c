/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * peer-death: the survivor.  It accepts one victim after another on a
 * UNIX socket, connects an RC QP to each by hand (or waits for its
 * rdma_cm REQ), proves the connection with a byte-exact transfer each
 * way, starts the round's workload, and at a moment drawn from the
 * seeded generator kills the victim with SIGKILL.  Then every WR it had
 * in flight must complete exactly once, in order: the first with
 * IBV_WC_RETRY_EXC_ERR (or RNR retry exceeded), the rest flushed, within
 * PD_STUCK_MS; nothing after.  The median time to the error of a run
 * must be within 4 times the nominal (retry_cnt + 1) timeouts.
 * One PASS/FAIL line a kill.  After the last kill a victim that is left
 * alone must connect both ways (verbs and rdma_cm) and transfer.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <rte_malloc.h>

#include "peer_death.h"
#include "rxd_test_pattern.h"
#include "rxd/rxd.h"

#define RECV_ID 0xfffffffful
#define KILL_WINDOW_US 20000        /* kill 0..20 ms into the workload */
#define ROUND_MS 15000              /* a round stuck this long fails */
#define ACCEPT_MS 60000             /* a victim starts within this */
#define MAX_AGAIN 5                 /* rounds run again after a stall */

static int failures;
static double times[256];       /* kill to error of each verbs kill, ms */
static unsigned int n_times;

#define FAIL(tag, ...) do { printf("FAIL: %s: ", tag); \
	printf(__VA_ARGS__); putchar('\n'); fflush(stdout); failures++; \
	} while (0)

/* The survivor's own stream, so that it has WRs in flight at the kill. */
struct stream {
	enum ibv_wr_opcode op;
	uint32_t len;
};

static struct stream
stream_of(enum pd_work w)
{
	if (w == W_SURVIVOR_WRITE)
		return (struct stream){ IBV_WR_RDMA_WRITE, PD_STREAM_LEN };
	if (w == W_SURVIVOR_READ)
		return (struct stream){ IBV_WR_RDMA_READ, PD_STREAM_LEN };
	return (struct stream){ IBV_WR_RDMA_WRITE, 4096 };
}

/* What the kill phase saw. */
struct outcome {
	uint64_t posted, done, flushed;
	double t_go, t_kill, t_err;
	enum ibv_wc_status first_err;
	struct rxd_qp_stats at_kill;
	bool killed, bad;
	bool stalled;   /* the QP failed with the victim still alive */
};

static int
sock_listen(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int s = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	unlink(path);
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)) ||
	    listen(s, 1))
		return -1;
	return s;
}

/* A byte from the victim if one is there. */
static bool
sock_has(int s, char want)
{
	char c;

	return recv(s, &c, 1, MSG_DONTWAIT) == 1 && c == want;
}

/* Victim → survivor, then survivor → victim, each checked by its reader. */
static int
check_transfer(int s, struct pd_conn *c, const struct pd_peer *peer,
	       unsigned int round, const char *tag)
{
	struct ibv_wc wc;
	char verdict;
	int i;

	if (pd_wait_wc(c->cq, &wc, ROUND_MS) || wc.wr_id != RECV_ID ||
	    wc.status != IBV_WC_SUCCESS) {
		FAIL(tag, "victim's transfer: %s", ibv_wc_status_str(wc.status));
		pd_diag("survivor", c->qp->qp_num);
		return -1;
	}
	if (!rxd_test_holds(pd_dev.buf, PD_CHECK_LEN, round * 2 + 1)) {
		FAIL(tag, "the victim's %u bytes differ", PD_CHECK_LEN);
		return -1;
	}
	rxd_test_fill(pd_dev.buf + PD_LOCAL, PD_CHECK_LEN, round * 2 + 2);
	if (pd_post(c->qp, IBV_WR_RDMA_WRITE, 1, PD_LOCAL, PD_CHECK_LEN,
		    peer, 0) ||
	    pd_post(c->qp, IBV_WR_SEND, 2, PD_LOCAL, 0, peer, 0)) {
		FAIL(tag, "post: %s", strerror(errno));
		return -1;
	}
	for (i = 0; i < 2; i++)
		if (pd_wait_wc(c->cq, &wc, ROUND_MS) ||
		    wc.status != IBV_WC_SUCCESS) {
			FAIL(tag, "transfer to the victim: %s",
			     ibv_wc_status_str(wc.status));
			return -1;
		}
	if (pd_sock_read(s, &verdict, 1) || verdict != 'V') {
		FAIL(tag, "the victim found our %u bytes wrong", PD_CHECK_LEN);
		return -1;
	}
	return 0;
}

/* One completion of the kill phase: in order, once, the right status. */
static void
account(struct outcome *o, const struct ibv_wc *wc, const char *tag)
{
	if (wc->wr_id != o->done) {
		FAIL(tag, "completion of WR %lu, expected WR %lu",
		     (unsigned long)wc->wr_id, (unsigned long)o->done);
		o->bad = true;
	}
	o->done++;
	if (wc->status == IBV_WC_SUCCESS) {
		if (o->t_err > 0) {
			FAIL(tag, "WR %lu succeeded after the error",
			     (unsigned long)wc->wr_id);
			o->bad = true;
		}
		return;
	}
	if (!o->killed)
		o->stalled = true;
	if (o->t_err == 0) {
		o->t_err = pd_now_ms();
		o->first_err = wc->status;
		if (wc->status != IBV_WC_RETRY_EXC_ERR &&
		    wc->status != IBV_WC_RNR_RETRY_EXC_ERR) {
			FAIL(tag, "first error is %s",
			     ibv_wc_status_str(wc->status));
			o->bad = true;
		}
		return;
	}
	o->flushed++;
	if (wc->status != IBV_WC_WR_FLUSH_ERR) {
		FAIL(tag, "after the error: %s", ibv_wc_status_str(wc->status));
		o->bad = true;
	}
}

static void
kill_victim(struct outcome *o, int pid, struct pd_conn *c,
	    const struct pd_peer *peer, const char *tag)
{
	rxd_qp_stats(0, c->qp->qp_num, &o->at_kill);
	if (kill(pid, SIGKILL) != 0)
		FAIL(tag, "kill %d: %s", pid, strerror(errno));
	o->t_kill = pd_now_ms();
	o->killed = true;
	/* a probe, in case the stream's last ACK came just before */
	if (pd_post(c->qp, IBV_WR_RDMA_WRITE, o->posted++, PD_LOCAL, 64,
		    peer, 0))
		FAIL(tag, "probe post: %s", strerror(errno));
}

/* Why a round ran out of time: no kill, or WRs without completions. */
static void
round_stuck(struct outcome *o, bool victim_going, const char *tag)
{
	if (!o->killed)
		FAIL(tag, "no kill within %d ms: %s (%lu WRs completed)",
		     ROUND_MS, victim_going ? "no WR completed"
		     : "the victim never said it was going",
		     (unsigned long)o->done);
	else
		FAIL(tag, "%lu WRs of %lu without a completion %.0f ms after "
		     "the kill (round of %d ms)",
		     (unsigned long)(o->posted - o->done),
		     (unsigned long)o->posted, pd_now_ms() - o->t_kill,
		     ROUND_MS);
	o->bad = true;
}

/* The workload until the kill, then until every WR has completed. */
static void
kill_phase(int s, int pid, struct pd_conn *c, const struct pd_peer *peer,
	   enum pd_work w, uint64_t *rng, struct outcome *o, const char *tag)
{
	struct stream st = stream_of(w);
	double kill_at = 0, end;
	bool victim_going = false;
	unsigned int spins = 0;
	struct ibv_wc wc[16];
	int n, i;

	o->t_go = pd_now_ms();
	end = o->t_go + ROUND_MS;
	while (!o->killed || o->done < o->posted) {
		while (!o->killed && o->posted - o->done < PD_WINDOW) {
			uint64_t slot = o->posted % PD_WINDOW;

			if (pd_post(c->qp, st.op, o->posted, PD_LOCAL +
				    slot * PD_STREAM_LEN, st.len, peer,
				    slot * PD_STREAM_LEN)) {
				FAIL(tag, "post: %s", strerror(errno));
				return;
			}
			o->posted++;
		}
		n = ibv_poll_cq(c->cq, 16, wc);
		for (i = 0; i < n; i++)
			account(o, &wc[i], tag);
		victim_going = victim_going || sock_has(s, 'g');
		if (kill_at == 0 && victim_going && o->done > 0)
			kill_at = pd_now_ms() +
				(double)(pd_rand(rng) % KILL_WINDOW_US) / 1e3;
		if (!o->killed && (o->stalled ||
				   (kill_at > 0 && pd_now_ms() >= kill_at)))
			kill_victim(o, pid, c, peer, tag);
		/* the last completions may have just come: judged below */
		if (pd_now_ms() > end && (!o->killed || o->done < o->posted)) {
			round_stuck(o, victim_going, tag);
			return;
		}
		if (n == 0)
			pd_idle(&spins);
		else
			spins = 0;
	}
	/* nothing more may come */
	if (pd_wait_wc(c->cq, wc, 30) == 0) {
		FAIL(tag, "extra completion of WR %lu (%s)",
		     (unsigned long)wc[0].wr_id,
		     ibv_wc_status_str(wc[0].status));
		o->bad = true;
	}
}

static void
report(const struct outcome *o, struct pd_conn *c, uint64_t seed,
       const char *tag)
{
	struct ibv_qp_init_attr ia;
	struct rxd_qp_stats end;
	struct ibv_qp_attr qa;

	if (o->bad)
		return;
	if (o->t_err == 0) {
		FAIL(tag, "no error completion after the kill");
		return;
	}
	if (o->t_err - o->t_kill > PD_STUCK_MS) {
		FAIL(tag, "error %.1f ms after the kill, more than %.0f ms",
		     o->t_err - o->t_kill, PD_STUCK_MS);
		return;
	}
	if (ibv_query_qp(c->qp, &qa, IBV_QP_STATE, &ia) ||
	    qa.qp_state != IBV_QPS_ERR) {
		FAIL(tag, "QP not in ERR after the error");
		return;
	}
	if (rxd_qp_stats(0, c->qp->qp_num, &end) != 0)
		memset(&end, 0, sizeof(end));
	printf("PASS: %s seed %lu: killed %.1f ms into the workload (QP rx %lu"
	       " tx %lu packets), %s %.1f ms later (nominal %.0f ms; %lu "
	       "packets received, %lu timeouts since), %lu WRs flushed\n",
	       tag, (unsigned long)seed, o->t_kill - o->t_go,
	       (unsigned long)o->at_kill.rx_pkts,
	       (unsigned long)o->at_kill.tx_pkts,
	       ibv_wc_status_str(o->first_err), o->t_err - o->t_kill,
	       PD_NOMINAL_MS, (unsigned long)(end.rx_pkts - o->at_kill.rx_pkts),
	       (unsigned long)(end.timeouts - o->at_kill.timeouts),
	       (unsigned long)o->flushed);
	fflush(stdout);
	if (n_times < sizeof(times) / sizeof(times[0]))
		times[n_times++] = o->t_err - o->t_kill;
}

/* A verbs round: connect, check a transfer, then the kill (or not).
 * @return 1 when the round must run again: the QP timed out while the
 * victim lived (a machine stalled for (retry_cnt + 1) timeouts). */
static int
verbs_round(int s, int pid, enum pd_work w, unsigned int round,
	    uint64_t *rng, uint64_t seed, const char *tag)
{
	struct pd_conn c = { 0 };
	struct pd_peer me, peer;
	struct outcome o = { 0 };
	char r;

	if (pd_conn_create(&c)) {
		FAIL(tag, "cannot create a QP: %s", strerror(errno));
		pd_conn_destroy(&c);
		return 0;
	}
	me = pd_conn_self(&c);
	if (pd_sock_write(s, &me, sizeof(me)) ||
	    pd_sock_read(s, &peer, sizeof(peer)) ||
	    pd_conn_connect(&c, &peer, 2) || pd_post_recv(c.qp, RECV_ID) ||
	    pd_sock_write(s, "R", 1) || pd_sock_read(s, &r, 1)) {
		FAIL(tag, "connection setup failed");
		pd_conn_destroy(&c);
		return 0;
	}
	if (check_transfer(s, &c, &peer, round, tag) == 0) {
		if (w == W_FINAL) {
			printf("PASS: %s: a new verbs connection transfers "
			       "%u bytes each way, byte-exact\n", tag,
			       PD_CHECK_LEN);
		} else if (pd_sock_write(s, "G", 1) == 0) {
			kill_phase(s, pid, &c, &peer, w, rng, &o, tag);
			if (o.stalled)
				printf("AGAIN: %s: %s while the victim lived "
				       "(%lu timeouts): the machine stalled, "
				       "the round runs again\n", tag,
				       ibv_wc_status_str(o.first_err),
				       (unsigned long)o.at_kill.timeouts);
			else
				report(&o, &c, seed, tag);
		}
	}
	pd_conn_destroy(&c);
	return o.stalled;
}

/* The next victim, if it comes within ACCEPT_MS. */
static int
next_victim(int ls)
{
	struct pollfd p = { .fd = ls, .events = POLLIN };

	return poll(&p, 1, ACCEPT_MS) == 1 ? accept(ls, NULL, NULL) : -1;
}

/* @return -1 when no victim came (the driver has given up), 1 when the
 * round must run again. */
static int
one_round(int ls, unsigned int round, unsigned int kills, uint64_t *rng,
	  uint64_t seed, const char *port_name, unsigned int first)
{
	struct pd_order ord = { .round = round };
	char tag[96];
	int s = next_victim(ls), pid, again = 0;

	ord.work = round == kills ? W_FINAL : (first + round) % W_COUNT;
	snprintf(tag, sizeof(tag), "%s %u/%u %s %s",
		 round == kills ? "after kill" : "kill", round == kills ?
		 kills : round + 1, kills, port_name, pd_work_name[ord.work]);
	if (s < 0 || pd_sock_read(s, &pid, sizeof(pid)) ||
	    pd_sock_write(s, &ord, sizeof(ord))) {
		FAIL(tag, "no victim came");
		if (s >= 0)
			close(s);
		return -1;
	}
	if (ord.work == W_CM)
		failures += pd_cm_survivor_kill(pid, rng, tag) != 0;
	else
		again = verbs_round(s, pid, ord.work, round, rng, seed, tag);
	if (ord.work == W_FINAL)
		failures += pd_cm_survivor_clean() != 0;
	close(s);
	return again;
}

/* DPDK heap in use: after the first round and after the last must match.
 * memif holds its regions while connected: wait until the victim's
 * departure has taken the link down. */
static size_t
heap_used(void)
{
	struct rte_malloc_socket_stats st;
	struct rxd_port_info pi;
	int i;

	for (i = 0; i < 300; i++) {
		if (rxd_port_info(0, &pi) != 0 || !pi.link_up ||
		    strstr(pi.driver, "memif") == NULL)
			break;
		usleep(10000);
	}

	if (rte_malloc_get_socket_stats(0, &st) != 0)
		return 0;
	return st.heap_allocsz_bytes;
}

static int
by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Most kills resolve in about the nominal time; stalls are exceptions. */
static void
check_median(const char *port_name)
{
	double median;

	if (n_times == 0)
		return;
	qsort(times, n_times, sizeof(times[0]), by_value);
	median = times[n_times / 2];
	printf("%s: %s: kill to error over %u verbs kills: median %.1f ms, "
	       "max %.1f ms (nominal %.1f ms, the median may be 4 times it)\n",
	       median <= 4 * PD_NOMINAL_MS ? "PASS" : "FAIL", port_name,
	       n_times, median, times[n_times - 1], PD_NOMINAL_MS);
	failures += median > 4 * PD_NOMINAL_MS;
}

int
pd_survivor(const char *sock_path, unsigned int kills, uint64_t seed,
	    const char *port_name)
{
	uint64_t rng = seed;
	unsigned int round, first = (unsigned int)(pd_rand(&rng) % W_COUNT);
	size_t heap_first = 0, heap_last;
	int ls = sock_listen(sock_path), rc, again = 0;

	if (ls < 0 || pd_cm_listen("10.0.0.1") != 0) {
		fprintf(stderr, "peer-death: cannot listen\n");
		return 2;
	}
	for (round = 0; round <= kills; round++) {
		rc = one_round(ls, round, kills, &rng, seed, port_name, first);
		if (rc < 0)
			break;
		if (rc > 0 && ++again <= MAX_AGAIN) {
			round--;
			continue;
		}
		if (rc > 0)
			FAIL(port_name, "more than %d rounds stalled", MAX_AGAIN);
		if (round == 0)
			heap_first = heap_used();
	}
	heap_last = heap_used();
	if (heap_last > heap_first) {
		printf("FAIL: %s: DPDK heap grew by %zu bytes from the first "
		       "round to the last\n", port_name, heap_last - heap_first);
		failures++;
	}
	pd_cm_close();
	close(ls);
	unlink(sock_path);
	check_median(port_name);
	printf("survivor: %u kills over %s, %d failures\n", kills, port_name,
	       failures);
	return failures ? 1 : 0;
}
