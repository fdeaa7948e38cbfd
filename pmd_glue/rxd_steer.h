/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Steering: where the device can, the frames a peer sends to a connected
 * QP reach the receive queue of the engine owning the QP, so that they
 * need no hand-off between engines (engines_per_port > 1).  Per port, one
 * mode, chosen when the port starts (RXD_STEERING: auto, lanes, flow, reta
 * or none; auto takes the first of lanes, flow and reta that works):
 *  - lanes: a device whose transmit queue q is the peer's receive queue q
 *    (memif, ring) shared by N engines gets N x N queue pairs: engine k
 *    still reads the receive queues q with q mod N == k and sends to the
 *    peer's engine j on queue k*N + j, which that engine reads; rxd puts a
 *    QP's frames on the lane of the engine owning its peer QP, so between
 *    two rxd with the same engines_per_port no frame is handed off;
 *  - flow: one rte_flow rule per connection (the peer's address, its UDP
 *    source port, UDP destination port 4791) with a QUEUE action;
 *  - reta: RSS over the addresses and UDP ports with rxd's key; the RETA
 *    entry the connection's frames hash to (computed in software) points
 *    at the owner's queue;
 *  - none: frames land where the device puts them; the hand-off corrects.
 * The peer's source port is known before its first frame: Soft-RoCE and
 * rxd choose it from the flow label or both QPNs (rxd_sport_connected()).
 * A connection whose frames would share a RETA entry with another's owned
 * by another engine, or whose rule the device refuses, is left to the
 * hand-off and counted.
 */
#ifndef RXD_STEER_H
#define RXD_STEER_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_ethdev.h>
#include <rte_spinlock.h>

#include "rxd_steer_hash.h"

#define RXD_STEER_RETA_MAX 512

/** How a port steers (see above). */
enum rxd_steer_mode {
	RXD_STEER_NONE,
	RXD_STEER_RETA,
	RXD_STEER_FLOW,
	RXD_STEER_LANES,
};

/** Steering counters of a port. */
struct rxd_steer_stats {
	uint64_t steered;     /**< connections steered so far */
	uint64_t active;      /**< connections steered now */
	uint64_t collisions;  /**< left to the hand-off: RETA entry taken */
	uint64_t failed;      /**< left to the hand-off: the device refused */
};

/** A port's steering state. */
struct rxd_steer {
	enum rxd_steer_mode mode;
	enum rxd_steer_mode want;  /**< RXD_STEERING's, when not auto */
	bool automatic;         /**< RXD_STEERING auto (or unset) */
	bool want_rss_key;      /**< rxd_steer_configure() set rxd's key */
	uint8_t key[RXD_STEER_KEY_LEN];      /**< rxd_steer_key, for RSS */
	uint64_t rss_hf;        /**< the hash types RSS uses */
	uint16_t reta_size;
	uint16_t n_queues;      /**< the engines' queues: 0..n_queues-1 */
	uint16_t lanes;         /**< lanes mode: the engines (N), else 1 */
	rte_spinlock_t lock;    /**< the engines steer their own QPs */
	uint16_t reta[RXD_STEER_RETA_MAX];   /**< queue of each entry */
	uint16_t users[RXD_STEER_RETA_MAX];  /**< connections through it */
	struct rxd_steer_stats stats;
};

/** One connection's steering, to undo with rxd_steer_remove(). */
struct rxd_steer_rule;

/** "lanes", "flow", "reta" or "none". */
const char *rxd_steer_mode_name(enum rxd_steer_mode mode);

/**
 * Before the port's queues are counted: read RXD_STEERING and decide the
 * lanes of a port shared by n engines whose device has up to max_queues
 * queue pairs: n when lanes may be used (n > 1, a device of the lanes
 * kind, n x n queue pairs within max_queues), else 1 (s->lanes).
 * @return 0, or -1 with err saying RXD_STEERING is not understood.
 */
int rxd_steer_init(struct rxd_steer *s, const struct rte_eth_dev_info *info,
		   uint16_t n, uint16_t max_queues, char *err, size_t errlen);

/**
 * Before rte_eth_dev_configure(): when RSS is configured (ec's mq_mode)
 * and RETA steering may be used on this device, give RSS rxd's key.
 */
void rxd_steer_configure(struct rxd_steer *s,
			 const struct rte_eth_dev_info *info,
			 struct rte_eth_conf *ec);

/**
 * After the port started: choose the mode for n_queues engines (queue k
 * is engine k's, or with lanes every queue q with q mod n_queues == k),
 * and for reta spread the table over their queues.
 */
void rxd_steer_start(struct rxd_steer *s, uint16_t port_id,
		     uint16_t n_queues);

/**
 * Steer flow f to queue (an owner's).  @return the rule, or NULL when
 * there is none to make (lanes: the peer's transmit steers) or the frames
 * are left where the device puts them (mode none, a collision or the
 * device refused: counted).
 */
struct rxd_steer_rule *rxd_steer_add(struct rxd_steer *s, uint16_t port_id,
				     const struct rxd_steer_flow *f,
				     uint16_t queue);

/** Undo rxd_steer_add() (r may be NULL). */
void rxd_steer_remove(struct rxd_steer *s, uint16_t port_id,
		      struct rxd_steer_rule *r);

/**
 * The RETA entry of flow f under s's hash types and rxd's key, and
 * whether RSS hashes its frames at all.  Pure (tests).
 */
bool rxd_steer_reta_entry(const struct rxd_steer *s,
			  const struct rxd_steer_flow *f, uint16_t *entry);

#endif /* RXD_STEER_H */
