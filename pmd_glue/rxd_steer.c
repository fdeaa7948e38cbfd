/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A port's steering mode, its lanes and its RETA (see rxd_steer.h); the
 * rte_flow rules are rxd_steer_flow.c's, the hash rxd_steer_hash.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_log.h>

#include "rxd_driver.h"
#include "rxd_steer.h"
#include "rxd_steer_flow.h"

RTE_LOG_REGISTER(rxd_logtype_steer, rxd.steer, NOTICE);

struct rxd_steer_rule {
	struct rte_flow *flow;   /**< flow mode */
	uint16_t entry;          /**< reta mode: the RETA entry */
};

static const char *const mode_names[] = {
	[RXD_STEER_NONE] = "none",
	[RXD_STEER_RETA] = "reta",
	[RXD_STEER_FLOW] = "flow",
	[RXD_STEER_LANES] = "lanes",
};

const char *
rxd_steer_mode_name(enum rxd_steer_mode mode)
{
	return mode < RTE_DIM(mode_names) ? mode_names[mode] : "?";
}

/* RXD_STEERING into s->want / s->automatic; -1 when not understood. */
static int
read_env(struct rxd_steer *s, char *err, size_t errlen)
{
	const char *env = getenv("RXD_STEERING");
	unsigned int m;

	s->automatic = env == NULL || strcmp(env, "auto") == 0;
	if (s->automatic)
		return 0;
	for (m = 0; m < RTE_DIM(mode_names); m++)
		if (strcmp(env, mode_names[m]) == 0) {
			s->want = (enum rxd_steer_mode)m;
			return 0;
		}
	snprintf(err, errlen, "RXD_STEERING: unknown mode '%s' (auto, lanes, "
		 "flow, reta or none)", env);
	return -1;
}

static bool
may_use(const struct rxd_steer *s, enum rxd_steer_mode mode)
{
	return s->automatic || s->want == mode;
}

int
rxd_steer_init(struct rxd_steer *s, const struct rte_eth_dev_info *info,
	       uint16_t n, uint16_t max_queues, char *err, size_t errlen)
{
	memset(s, 0, sizeof(*s));
	rte_spinlock_init(&s->lock);
	s->lanes = 1;
	if (read_env(s, err, errlen) != 0)
		return -1;
	if (n > 1 && may_use(s, RXD_STEER_LANES) &&
	    rxd_driver_traits(info->driver_name)->lanes &&
	    (uint32_t)n * n <= max_queues)
		s->lanes = n;
	return 0;
}

void
rxd_steer_configure(struct rxd_steer *s,
		    const struct rte_eth_dev_info *info,
		    struct rte_eth_conf *ec)
{
	if (!may_use(s, RXD_STEER_RETA) ||
	    ec->rxmode.mq_mode != RTE_ETH_MQ_RX_RSS ||
	    !rxd_driver_traits(info->driver_name)->toeplitz ||
	    info->hash_key_size != RXD_STEER_KEY_LEN ||
	    info->reta_size == 0 || info->reta_size > RXD_STEER_RETA_MAX)
		return;
	memcpy(s->key, rxd_steer_key, sizeof(s->key));
	ec->rx_adv_conf.rss_conf.rss_key = s->key;
	ec->rx_adv_conf.rss_conf.rss_key_len = RXD_STEER_KEY_LEN;
	s->want_rss_key = true;
}

/* Write RETA entry i's queue (one entry of the table). */
static int
reta_write(uint16_t port_id, uint16_t reta_size, uint16_t i, uint16_t queue)
{
	struct rte_eth_rss_reta_entry64 conf[RXD_STEER_RETA_MAX /
					     RTE_ETH_RETA_GROUP_SIZE];

	memset(conf, 0, sizeof(conf));
	conf[i / RTE_ETH_RETA_GROUP_SIZE].mask =
		1ull << (i % RTE_ETH_RETA_GROUP_SIZE);
	conf[i / RTE_ETH_RETA_GROUP_SIZE].reta[i % RTE_ETH_RETA_GROUP_SIZE] =
		queue;
	return rte_eth_dev_rss_reta_update(port_id, conf, reta_size);
}

/* The whole RETA spread over the engines' queues, entry i to i % n. */
static int
reta_spread(struct rxd_steer *s, uint16_t port_id)
{
	struct rte_eth_rss_reta_entry64 conf[RXD_STEER_RETA_MAX /
					     RTE_ETH_RETA_GROUP_SIZE];
	uint16_t i;

	memset(conf, 0, sizeof(conf));
	for (i = 0; i < s->reta_size; i++) {
		s->reta[i] = i % s->n_queues;
		conf[i / RTE_ETH_RETA_GROUP_SIZE].mask |=
			1ull << (i % RTE_ETH_RETA_GROUP_SIZE);
		conf[i / RTE_ETH_RETA_GROUP_SIZE].reta[i %
			RTE_ETH_RETA_GROUP_SIZE] = s->reta[i];
	}
	return rte_eth_dev_rss_reta_update(port_id, conf, s->reta_size);
}

/* RSS runs with rxd's key over some of IP and UDP, and the RETA takes
 * rxd's writes. */
static bool
reta_ready(struct rxd_steer *s, uint16_t port_id)
{
	uint8_t key[RXD_STEER_KEY_LEN];
	struct rte_eth_rss_conf conf = {
		.rss_key = key, .rss_key_len = sizeof(key),
	};
	struct rte_eth_dev_info info;

	if (!s->want_rss_key || rte_eth_dev_info_get(port_id, &info) != 0 ||
	    rte_eth_dev_rss_hash_conf_get(port_id, &conf) != 0 ||
	    memcmp(key, rxd_steer_key, sizeof(key)) != 0 ||
	    (conf.rss_hf & (RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP)) == 0 ||
	    info.reta_size == 0 || info.reta_size > RXD_STEER_RETA_MAX)
		return false;
	s->rss_hf = conf.rss_hf;
	s->reta_size = info.reta_size;
	return reta_spread(s, port_id) == 0;
}

void
rxd_steer_start(struct rxd_steer *s, uint16_t port_id, uint16_t n_queues)
{
	s->n_queues = n_queues;
	s->mode = RXD_STEER_NONE;
	if (n_queues < 2)
		return;
	if (s->lanes > 1)
		s->mode = RXD_STEER_LANES;
	else if (may_use(s, RXD_STEER_FLOW) &&
	    rxd_steer_flow_works(port_id, (uint16_t)(n_queues - 1)))
		s->mode = RXD_STEER_FLOW;
	else if (may_use(s, RXD_STEER_RETA) && reta_ready(s, port_id))
		s->mode = RXD_STEER_RETA;
	if (!s->automatic && s->want != s->mode)
		rte_log(RTE_LOG_WARNING, rxd_logtype_steer,
			"rxd: port %u: RXD_STEERING=%s not possible on this "
			"device: steering %s\n", port_id,
			rxd_steer_mode_name(s->want),
			rxd_steer_mode_name(s->mode));
}

bool
rxd_steer_reta_entry(const struct rxd_steer *s,
		     const struct rxd_steer_flow *f, uint16_t *entry)
{
	bool v4 = rxd_steer_flow_is_v4(f);
	bool l4 = s->rss_hf & (v4 ? RTE_ETH_RSS_NONFRAG_IPV4_UDP :
			       RTE_ETH_RSS_NONFRAG_IPV6_UDP);
	bool l3 = s->rss_hf & (v4 ? RTE_ETH_RSS_IPV4 : RTE_ETH_RSS_IPV6);

	if ((!l4 && !l3) || s->reta_size == 0)
		return false;
	*entry = (uint16_t)(rxd_steer_hash(rxd_steer_key, f, l4) %
			    s->reta_size);
	return true;
}

/* Point the flow's RETA entry at queue unless another engine's
 * connection uses it.  Under s->lock. */
static bool
reta_add(struct rxd_steer *s, uint16_t port_id,
	 const struct rxd_steer_flow *f, uint16_t queue,
	 struct rxd_steer_rule *r)
{
	if (!rxd_steer_reta_entry(s, f, &r->entry)) {
		s->stats.failed++;
		return false;
	}
	if (s->reta[r->entry] != queue) {
		if (s->users[r->entry] != 0) {
			s->stats.collisions++;
			return false;
		}
		if (reta_write(port_id, s->reta_size, r->entry, queue) != 0) {
			s->stats.failed++;
			return false;
		}
		s->reta[r->entry] = queue;
	}
	s->users[r->entry]++;
	return true;
}

struct rxd_steer_rule *
rxd_steer_add(struct rxd_steer *s, uint16_t port_id,
	      const struct rxd_steer_flow *f, uint16_t queue)
{
	struct rxd_steer_rule *r;
	struct rte_flow *flow = NULL;
	bool ok;

	if (s->mode != RXD_STEER_FLOW && s->mode != RXD_STEER_RETA)
		return NULL;
	if (s->mode == RXD_STEER_FLOW)   /* ethdev serialises rte_flow */
		flow = rxd_steer_flow_create(port_id, f, queue);
	r = calloc(1, sizeof(*r));
	rte_spinlock_lock(&s->lock);
	if (s->mode == RXD_STEER_FLOW) {
		ok = flow != NULL && r != NULL;
		s->stats.failed += !ok;
	} else {
		ok = r != NULL && reta_add(s, port_id, f, queue, r);
	}
	s->stats.steered += ok;
	s->stats.active += ok;
	rte_spinlock_unlock(&s->lock);
	if (ok) {
		r->flow = flow;
		return r;
	}
	if (flow != NULL)
		rxd_steer_flow_destroy(port_id, flow);
	free(r);
	return NULL;
}

void
rxd_steer_remove(struct rxd_steer *s, uint16_t port_id,
		 struct rxd_steer_rule *r)
{
	if (r == NULL)
		return;
	if (r->flow != NULL)
		rxd_steer_flow_destroy(port_id, r->flow);
	rte_spinlock_lock(&s->lock);
	if (s->mode == RXD_STEER_RETA)
		s->users[r->entry]--;   /* the entry keeps its queue */
	s->stats.active--;
	rte_spinlock_unlock(&s->lock);
	free(r);
}
