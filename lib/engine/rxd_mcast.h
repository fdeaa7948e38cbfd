/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * UD multicast on the engine: the QPs attached to each group of a port,
 * attach and detach run as engine commands (the receive path reads the
 * table without locks), and a frame to a group (BTH destination QPN
 * 0xFFFFFF) handed to every attached QP.  The first attach joins the group
 * in lib/net (IGMP/MLD report), the last detach leaves it.
 */
#ifndef RXD_MCAST_H
#define RXD_MCAST_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "rxd_wire.h"

#define RXD_QPN_MCAST 0xFFFFFFu       /**< BTH destination QPN of a group */
#define RXD_MCAST_GROUPS 64           /**< groups a port joins */
#define RXD_MCAST_QP_ATTACH 16        /**< QPs attached to one group */
/** Attachments a port holds in all (max_total_mcast_qp_attach). */
#define RXD_MCAST_TOTAL_ATTACH (RXD_MCAST_GROUPS * RXD_MCAST_QP_ATTACH)

struct rxd_qp_core;

/** The QPs attached to one group. */
struct rxd_mcast_group {
	uint8_t gid[RXD_GID_LEN];
	uint16_t n_qps;                   /**< 0: slot free */
	struct rxd_qp_core *qps[RXD_MCAST_QP_ATTACH];
};

/** The groups of one port binding. */
struct rxd_mcast_table {
	struct rxd_mcast_group groups[RXD_MCAST_GROUPS];
};

/**
 * Attach a UD QP to a group (on the engine serving its port).
 * @return 0, -EALREADY (attached already: nothing changes), -ENOMEM (the
 *   group or the table is full), -ENODEV.
 */
int rxd_mcast_attach(struct rxd_qp_core *qp, const uint8_t gid[RXD_GID_LEN]);

/** Detach a QP from a group. @return 0, -ENOENT (not attached), -ENODEV. */
int rxd_mcast_detach(struct rxd_qp_core *qp, const uint8_t gid[RXD_GID_LEN]);

/**
 * Hand a frame to every QP attached to its destination group (engine
 * side); m stays the caller's.  @return how many QPs it was given to.
 */
unsigned int rxd_mcast_deliver(const struct rxd_mcast_table *t,
			       struct rte_mbuf *m, const struct rxd_pkt *pkt);

#endif /* RXD_MCAST_H */
