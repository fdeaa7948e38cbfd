/* SPDX-License-Identifier: BSD-3-Clause */
/* Extension headers after the BTH: decode and encode, in wire order. */
#ifndef RXD_EXTHDR_H
#define RXD_EXTHDR_H

#include "rxd_wire.h"

/** Decode the extension headers the opcode has from p into pkt. */
void rxd_exthdr_get(struct rxd_pkt *pkt, const uint8_t *p);

/** Encode the extension headers the opcode has from pkt at p. */
void rxd_exthdr_put(const struct rxd_pkt *pkt, uint8_t *p);

#endif /* RXD_EXTHDR_H */
