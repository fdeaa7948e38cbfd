/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The congestion test's bottleneck switch: a small DPDK program with
 * 3 to MAX_PORTS memif ports (2 or 8 sources and a sink) that forwards by destination MAC (learnt from source
 * MACs; broadcast and unknown destinations are flooded).  Frames towards
 * the bottleneck port wait in a queue of --depth frames served at
 * --rate-mbps: the link's clock (TSC) says when the frame in service
 * ends, and a frame leaves once the link is free, so a switch that was
 * descheduled sends what its link would have sent meanwhile, and never
 * more than the rate allows since the queue last ran empty (a token
 * bucket would lose that time, or with a deep bucket send above the
 * rate after an idle spell).  A frame that finds the queue full is
 * dropped.  An ECN-capable frame is marked CE as it leaves, by the queue
 * it leaves behind (marking at dequeue, as DCTCP advises: the mark tells
 * the queue of now, not of a queue delay ago): never below KMIN frames,
 * always at KMAX or more, in between with a probability rising linearly
 * to PMAX (RED's ramp, as DCQCN's switches are set; KMIN = KMAX is a
 * step, as DCTCP's).  Every
 * --report-ms it prints the bytes served per ingress port (one line per
 * report, "RATE t_ms bytes0 bytes1 bytes2 qlen dropped marked"; bytes,
 * drops and marks are running totals), and at the end its totals
 * ("SWITCH ...", with the 99th percentile of the time frames waited in
 * the queue, q_p99_us, in bins of QDELAY_BIN_US).
 *
 * usage: cc-switch EAL -- RATE_MBPS DEPTH KMIN KMAX PMAX BOTTLENECK
 *                          SECONDS REPORT_MS
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_random.h>

#define MAX_PORTS 9
#define QDELAY_BIN_US 10
#define QDELAY_BINS 200000   /* up to 2 s */
#define MAX_DEPTH 4096
#define BURST 32
#define MAX_MACS 16
#define FRAME_ROOM 4608   /* a frame of path MTU 4096 in one mbuf */

struct settings {
	double rate_mbps, pmax;
	unsigned int depth, kmin, kmax, bottleneck, seconds, report_ms;
};

struct counts {
	uint64_t enqueued, dropped, marked, served_bytes[MAX_PORTS];
	unsigned int qmax;
};

static uint16_t nports;
static struct rte_mbuf *queue[MAX_DEPTH];
static uint64_t queued_at[MAX_DEPTH];      /* TSC each frame came */
static uint64_t qdelay[QDELAY_BINS];       /* frames served per wait */
static unsigned int q_head, q_len;
static struct rte_ether_addr macs[MAX_MACS];
static uint16_t mac_port[MAX_MACS];
static unsigned int n_macs;
static volatile sig_atomic_t stop;

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int
port_up(uint16_t port, struct rte_mempool *pool)
{
	struct rte_eth_conf conf;

	memset(&conf, 0, sizeof(conf));
	if (rte_eth_dev_configure(port, 1, 1, &conf) != 0 ||
	    rte_eth_rx_queue_setup(port, 0, 1024, rte_eth_dev_socket_id(port),
				   NULL, pool) != 0 ||
	    rte_eth_tx_queue_setup(port, 0, 1024, rte_eth_dev_socket_id(port),
				   NULL) != 0)
		return -1;
	return rte_eth_dev_start(port);
}

static void
learn(const struct rte_ether_addr *mac, uint16_t port)
{
	unsigned int i;

	for (i = 0; i < n_macs; i++)
		if (rte_is_same_ether_addr(&macs[i], mac)) {
			mac_port[i] = port;
			return;
		}
	if (n_macs < MAX_MACS) {
		macs[n_macs] = *mac;
		mac_port[n_macs++] = port;
	}
}

/* Egress port of a destination MAC, or -1 (flood). */
static int
lookup(const struct rte_ether_addr *mac)
{
	unsigned int i;

	for (i = 0; i < n_macs; i++)
		if (rte_is_same_ether_addr(&macs[i], mac))
			return mac_port[i];
	return -1;
}

/* Mark an ECN-capable IPv4 or IPv6 frame CE.  @return true if it was ECT
 * and is CE now (false for one already CE: a frame held and tried again). */
static bool
mark_ce(struct rte_mbuf *m)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	uint8_t *ip = (uint8_t *)(eth + 1);

	if (eth->ether_type == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4)) {
		struct rte_ipv4_hdr *h = (struct rte_ipv4_hdr *)ip;

		if ((h->type_of_service & 3) == 0 ||
		    (h->type_of_service & 3) == 3)
			return false;
		h->type_of_service |= 3;
		h->hdr_checksum = 0;
		h->hdr_checksum = rte_ipv4_cksum(h);
		return true;
	}
	if (eth->ether_type == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6)) {
		if (((ip[1] >> 4) & 3) == 0 || ((ip[1] >> 4) & 3) == 3)
			return false;
		ip[1] |= 0x30;
		return true;
	}
	return false;
}

static void
enqueue(const struct settings *s, struct counts *c, struct rte_mbuf *m)
{
	if (q_len == s->depth) {
		c->dropped++;
		rte_pktmbuf_free(m);
		return;
	}
	queue[(q_head + q_len) % MAX_DEPTH] = m;
	queued_at[(q_head + q_len) % MAX_DEPTH] = rte_rdtsc();
	q_len++;
	c->enqueued++;
	if (q_len > c->qmax)
		c->qmax = q_len;
}

/* Whether a frame leaving left frames queued behind it is to be marked
 * (RED's ramp from KMIN to KMAX). */
static bool
mark_due(const struct settings *s, unsigned int left)
{
	double p;

	if (left < s->kmin)
		return false;
	if (left >= s->kmax)
		return true;
	p = s->pmax * (left - s->kmin) / (s->kmax - s->kmin);
	return (double)rte_rand() < p * (double)UINT64_MAX;
}

static void
send_one(uint16_t port, struct rte_mbuf *m)
{
	if (rte_eth_tx_burst(port, 0, &m, 1) != 1)
		rte_pktmbuf_free(m);
}

static void
forward(const struct settings *s, struct counts *c, uint16_t in,
	struct rte_mbuf *m)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	int out;
	uint16_t p;

	learn(&eth->src_addr, in);
	out = rte_is_unicast_ether_addr(&eth->dst_addr) ?
		lookup(&eth->dst_addr) : -1;
	if (out == (int)s->bottleneck) {
		m->port = in;
		enqueue(s, c, m);
		return;
	}
	if (out >= 0) {
		send_one((uint16_t)out, m);
		return;
	}
	for (p = 0; p < nports; p++)
		if (p != in)
			send_one(p, rte_pktmbuf_copy(m, m->pool, 0, UINT32_MAX));
	rte_pktmbuf_free(m);
}

/* A frame served waited tsc ticks in the queue. */
static void
count_wait(uint64_t tsc)
{
	uint64_t bin = tsc * 1000000 / rte_get_tsc_hz() / QDELAY_BIN_US;

	qdelay[bin < QDELAY_BINS ? bin : QDELAY_BINS - 1]++;
}

/* The 99th percentile of the waits, microseconds (a bin's upper end). */
static unsigned long
wait_p99_us(void)
{
	uint64_t n = 0, seen = 0;
	unsigned int b;

	for (b = 0; b < QDELAY_BINS; b++)
		n += qdelay[b];
	for (b = 0; b < QDELAY_BINS && n > 0; b++) {
		seen += qdelay[b];
		if (seen * 100 >= n * 99)
			break;
	}
	return (unsigned long)(b + 1) * QDELAY_BIN_US;
}

/* Serve the queue while the link is free at now; *link_free is the TSC at
 * which the frame in service ends.  @return frames sent. */
static unsigned int
serve(const struct settings *s, struct counts *c, double *link_free,
      uint64_t now)
{
	double tsc_per_byte = (double)rte_get_tsc_hz() * 8 /
		(s->rate_mbps * 1e6);
	unsigned int n = 0;

	while (q_len > 0 && *link_free <= (double)now) {
		struct rte_mbuf *m = queue[q_head];
		uint32_t len = rte_pktmbuf_pkt_len(m);
		uint16_t in = m->port;

		bool marked = mark_due(s, q_len - 1) && mark_ce(m);

		if (rte_eth_tx_burst((uint16_t)s->bottleneck, 0, &m, 1) != 1)
			break;   /* tried again later, still marked */
		c->marked += marked;
		*link_free += len * tsc_per_byte;
		c->served_bytes[in] += len;
		count_wait(now - queued_at[q_head]);
		q_head = (q_head + 1) % MAX_DEPTH;
		q_len--;
		n++;
	}
	return n;
}

static int
parse(int argc, char **argv, struct settings *s)
{
	if (argc != 9)
		return -1;
	s->rate_mbps = atof(argv[1]);
	s->depth = (unsigned int)atoi(argv[2]);
	s->kmin = (unsigned int)atoi(argv[3]);
	s->kmax = (unsigned int)atoi(argv[4]);
	s->pmax = atof(argv[5]);
	s->bottleneck = (unsigned int)atoi(argv[6]);
	s->seconds = (unsigned int)atoi(argv[7]);
	s->report_ms = (unsigned int)atoi(argv[8]);
	return s->rate_mbps > 0 && s->depth > 0 && s->depth <= MAX_DEPTH &&
		s->kmin <= s->kmax && s->pmax >= 0 && s->pmax <= 1 &&
		s->bottleneck < nports && s->report_ms > 0 ? 0 : -1;
}

static void
report(const struct counts *c, uint64_t t_ms)
{
	uint16_t p;

	printf("RATE %lu", (unsigned long)t_ms);
	for (p = 0; p < nports; p++)
		printf(" %lu", (unsigned long)c->served_bytes[p]);
	printf(" %u %lu %lu\n", q_len, (unsigned long)c->dropped,
	       (unsigned long)c->marked);
	fflush(stdout);
}

static void
run(const struct settings *s, struct counts *c)
{
	uint64_t hz = rte_get_tsc_hz(), start = rte_rdtsc();
	uint64_t next_report = start, end = start + s->seconds * hz;
	double link_free = (double)start;
	struct rte_mbuf *pkts[BURST];
	uint16_t p, i, n;

	while (!stop && rte_rdtsc() < end) {
		uint64_t now = rte_rdtsc();
		unsigned int work = 0;

		work += serve(s, c, &link_free, now);
		if (q_len == 0 && link_free < (double)now)
			link_free = (double)now;  /* idle link: the next frame
						   * starts when it comes */
		for (p = 0; p < nports; p++) {
			n = rte_eth_rx_burst(p, 0, pkts, BURST);
			for (i = 0; i < n; i++)
				forward(s, c, p, pkts[i]);
			work += n;
		}
		if (now >= next_report) {
			report(c, (now - start) * 1000 / hz);
			next_report += s->report_ms * hz / 1000;
		}
		if (work == 0)
			usleep(20);   /* idle, or waiting for the link */
	}
}

int
main(int argc, char **argv)
{
	struct rte_mempool *pool;
	struct settings s;
	struct counts c;
	int n = rte_eal_init(argc, argv);
	uint64_t served = 0;
	uint16_t p;

	if (n < 0)
		return 2;
	nports = rte_eth_dev_count_avail();
	if (nports < 3 || nports > MAX_PORTS || parse(argc - n, argv + n, &s) != 0) {
		fprintf(stderr, "usage: cc-switch EAL (3 to %u ports) -- RATE_MBPS "
			"DEPTH KMIN KMAX PMAX BOTTLENECK SECONDS REPORT_MS\n",
			MAX_PORTS);
		return 2;
	}
	pool = rte_pktmbuf_pool_create("cc_switch", 8191, 256, 0,
				       RTE_PKTMBUF_HEADROOM + FRAME_ROOM,
				       (int)rte_socket_id());
	for (p = 0; p < nports; p++)
		if (pool == NULL || port_up(p, pool) != 0) {
			fprintf(stderr, "cc-switch: port %u failed\n", p);
			return 2;
		}
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	memset(&c, 0, sizeof(c));
	run(&s, &c);
	for (p = 0; p < nports; p++)
		served += c.served_bytes[p];
	printf("SWITCH enqueued %lu dropped %lu marked %lu served %lu qmax %u "
	       "q_p99_us %lu\n", (unsigned long)c.enqueued,
	       (unsigned long)c.dropped, (unsigned long)c.marked,
	       (unsigned long)served, c.qmax, wait_p99_us());
	for (p = 0; p < nports; p++)
		rte_eth_dev_stop(p);
	rte_eal_cleanup();
	return 0;
}
