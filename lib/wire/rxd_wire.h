/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rxd wire layer: the RoCEv2 frame codec.
 *
 * This header owns the in-memory description of one RoCEv2 frame
 * (struct rxd_pkt), the opcode table every other layer consults, and the
 * parse/build entry points.  The codec works on plain byte buffers and has
 * no DPDK dependency, so the unit tests and the fuzzer exercise exactly the
 * code the engine runs.
 *
 * Frame layout: Ethernet [802.1Q|802.1ad [802.1Q]] / IPv4|IPv6 / UDP 4791 /
 * BTH / extension headers / payload / pad / ICRC (4 bytes, LSB first).
 */
#ifndef RXD_WIRE_H
#define RXD_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define RXD_ROCE_UDP_PORT 4791
#define RXD_ETH_ALEN 6
#define RXD_GID_LEN 16

#define RXD_ETHER_IPV4 0x0800
#define RXD_ETHER_IPV6 0x86dd
#define RXD_ETHER_ARP 0x0806
#define RXD_ETHER_VLAN 0x8100
#define RXD_ETHER_QINQ 0x88a8

#define RXD_ETH_HLEN 14
#define RXD_VLAN_HLEN 4
#define RXD_IPV4_HLEN 20
#define RXD_IPV6_HLEN 40
#define RXD_UDP_HLEN 8
#define RXD_BTH_LEN 12
#define RXD_RETH_LEN 16
#define RXD_AETH_LEN 4
#define RXD_ATMETH_LEN 28
#define RXD_ATMACK_LEN 8
#define RXD_IMMDT_LEN 4
#define RXD_IETH_LEN 4
#define RXD_DETH_LEN 8
#define RXD_CNP_PAD_LEN 16
#define RXD_FETH_LEN 4
#define RXD_ICRC_LEN 4
#define RXD_ATOMIC_WRITE_LEN 8   /**< the payload of an ATOMIC WRITE */

#define RXD_PSN_MASK 0xffffffu
#define RXD_QPN_MASK 0xffffffu
#define RXD_DEFAULT_PKEY 0xffff
#define RXD_MAX_PMTU 4096

/** Extension headers, as a bit mask in the opcode table. */
enum rxd_hdr {
	RXD_HDR_RETH = 1u << 0,   /**< RDMA extended transport header */
	RXD_HDR_AETH = 1u << 1,   /**< ACK extended transport header */
	RXD_HDR_ATMETH = 1u << 2, /**< atomic extended transport header */
	RXD_HDR_ATMACK = 1u << 3, /**< atomic acknowledge header */
	RXD_HDR_IMMDT = 1u << 4,  /**< immediate data */
	RXD_HDR_IETH = 1u << 5,   /**< invalidate rkey */
	RXD_HDR_DETH = 1u << 6,   /**< datagram extended transport header */
	RXD_HDR_CNP = 1u << 7,    /**< 16 reserved bytes of a CNP */
	RXD_HDR_FETH = 1u << 8,   /**< FLUSH extended transport header */
};

/** Transport service of an opcode (the BTH opcode's top 3 bits). */
enum rxd_service {
	RXD_SVC_RC = 0,
	RXD_SVC_UC = 1,
	RXD_SVC_RD = 2,
	RXD_SVC_UD = 3,
	RXD_SVC_CNP = 4,
	RXD_SVC_XRC = 5,
};

/** Opcode properties; a packet of an ONLY opcode has FIRST and LAST set. */
enum rxd_opf {
	RXD_OPF_FIRST = 1u << 0,   /**< first packet of a message */
	RXD_OPF_MIDDLE = 1u << 1,  /**< middle packet */
	RXD_OPF_LAST = 1u << 2,    /**< last packet of a message */
	RXD_OPF_PAYLOAD = 1u << 3, /**< may carry payload */
	RXD_OPF_REQ = 1u << 4,     /**< sent by a requester */
	RXD_OPF_RESP = 1u << 5,    /**< sent by a responder (ACK, READ resp) */
	RXD_OPF_SEND = 1u << 6,    /**< SEND */
	RXD_OPF_WRITE = 1u << 7,   /**< RDMA WRITE */
	RXD_OPF_READ = 1u << 8,    /**< RDMA READ request or response */
	RXD_OPF_ATOMIC = 1u << 9,  /**< atomic request or atomic ACK */
	RXD_OPF_IMM = 1u << 10,    /**< carries immediate data */
	RXD_OPF_INV = 1u << 11,    /**< carries an rkey to invalidate */
	RXD_OPF_ACK = 1u << 12,    /**< ACKNOWLEDGE */
	RXD_OPF_WANT_ACK = 1u << 13, /**< RC request: the responder answers */
	RXD_OPF_RECV = 1u << 14,   /**< consumes a receive WQE at its LAST */
	RXD_OPF_ATOMIC_WRITE = 1u << 15, /**< ATOMIC WRITE (IBTA 1.5) */
	RXD_OPF_FLUSH = 1u << 16,  /**< FLUSH (IBTA 1.5) */
};

/** One row of the opcode table. A row with name == NULL is not valid. */
struct rxd_opcode_info {
	const char *name;   /**< e.g. "RC_SEND_ONLY", as roce-check names it */
	uint8_t service;    /**< enum rxd_service */
	uint8_t hdr_len;    /**< bytes of extension headers after the BTH */
	uint16_t hdrs;      /**< enum rxd_hdr mask, in wire order */
	uint32_t flags;     /**< enum rxd_opf mask */
};

/** The single opcode table, indexed by the BTH opcode. */
extern const struct rxd_opcode_info rxd_opcode_table[256];

/** BTH opcodes used by name in the stack. */
enum rxd_opcode {
	RXD_OP_RC_SEND_FIRST = 0x00,
	RXD_OP_RC_SEND_MIDDLE = 0x01,
	RXD_OP_RC_SEND_LAST = 0x02,
	RXD_OP_RC_SEND_LAST_IMM = 0x03,
	RXD_OP_RC_SEND_ONLY = 0x04,
	RXD_OP_RC_SEND_ONLY_IMM = 0x05,
	RXD_OP_RC_WRITE_FIRST = 0x06,
	RXD_OP_RC_WRITE_MIDDLE = 0x07,
	RXD_OP_RC_WRITE_LAST = 0x08,
	RXD_OP_RC_WRITE_LAST_IMM = 0x09,
	RXD_OP_RC_WRITE_ONLY = 0x0a,
	RXD_OP_RC_WRITE_ONLY_IMM = 0x0b,
	RXD_OP_RC_READ_REQ = 0x0c,
	RXD_OP_RC_READ_RESP_FIRST = 0x0d,
	RXD_OP_RC_READ_RESP_MIDDLE = 0x0e,
	RXD_OP_RC_READ_RESP_LAST = 0x0f,
	RXD_OP_RC_READ_RESP_ONLY = 0x10,
	RXD_OP_RC_ACK = 0x11,
	RXD_OP_RC_ATOMIC_ACK = 0x12,
	RXD_OP_RC_CMP_SWAP = 0x13,
	RXD_OP_RC_FETCH_ADD = 0x14,
	RXD_OP_RC_SEND_LAST_INV = 0x16,
	RXD_OP_RC_SEND_ONLY_INV = 0x17,
	RXD_OP_RC_FLUSH = 0x1c,
	RXD_OP_RC_ATOMIC_WRITE = 0x1d,
	RXD_OP_UC_SEND_FIRST = 0x20,
	RXD_OP_UC_SEND_MIDDLE = 0x21,
	RXD_OP_UC_SEND_LAST = 0x22,
	RXD_OP_UC_SEND_LAST_IMM = 0x23,
	RXD_OP_UC_SEND_ONLY = 0x24,
	RXD_OP_UC_SEND_ONLY_IMM = 0x25,
	RXD_OP_UC_WRITE_FIRST = 0x26,
	RXD_OP_UC_WRITE_MIDDLE = 0x27,
	RXD_OP_UC_WRITE_LAST = 0x28,
	RXD_OP_UC_WRITE_LAST_IMM = 0x29,
	RXD_OP_UC_WRITE_ONLY = 0x2a,
	RXD_OP_UC_WRITE_ONLY_IMM = 0x2b,
	RXD_OP_UD_SEND_ONLY = 0x64,
	RXD_OP_UD_SEND_ONLY_IMM = 0x65,
	RXD_OP_CNP = 0x81,
};

/** ECN codepoint: the low 2 bits of the IPv4 TOS / IPv6 traffic class
 *  (RFC 3168); RoCEv2 senders mark ECT(0). */
enum rxd_ecn {
	RXD_ECN_NOT_ECT = 0,
	RXD_ECN_ECT1 = 1,
	RXD_ECN_ECT0 = 2,
	RXD_ECN_CE = 3,       /**< congestion experienced: a switch marked it */
};

#define RXD_ECN_MASK 3u

/** Traffic class tc with its ECN field replaced by ecn. */
static inline uint8_t
rxd_tos_with_ecn(uint8_t tc, enum rxd_ecn ecn)
{
	return (uint8_t)((tc & ~RXD_ECN_MASK) | ecn);
}

/** AETH syndrome: bits 6..5 type, 4..0 credit/timer/NAK code. */
enum rxd_aeth_type {
	RXD_AETH_ACK = 0,
	RXD_AETH_RNR_NAK = 1,
	RXD_AETH_RESERVED = 2,
	RXD_AETH_NAK = 3,
};

enum rxd_nak_code {
	RXD_NAK_PSN_SEQ = 0,
	RXD_NAK_INVALID_REQ = 1,
	RXD_NAK_REMOTE_ACCESS = 2,
	RXD_NAK_REMOTE_OP = 3,
	RXD_NAK_INVALID_RD = 4,
};

#define RXD_AETH_CREDIT_INVALID 0x1f

/** FETH selectivity level (bits 5..4): what a FLUSH covers. */
enum rxd_flush_sel {
	RXD_FLUSH_SEL_RANGE = 0,  /**< the RETH's range of the MR */
	RXD_FLUSH_SEL_MR = 1,     /**< the whole MR named by the rkey */
};

/** FETH placement type (bits 3..0): a mask of what a FLUSH makes sure of. */
enum rxd_flush_plt {
	RXD_FLUSH_PLT_GLOBAL = 1u << 0,     /**< global visibility */
	RXD_FLUSH_PLT_PERSISTENT = 1u << 1, /**< persistence */
};

/** Why a frame was rejected; each has a counter in the port stats. */
enum rxd_wire_err {
	RXD_WIRE_OK = 0,
	RXD_WIRE_TRUNCATED,      /**< shorter than its headers say */
	RXD_WIRE_L2,             /**< bad Ethernet header (group source MAC) */
	RXD_WIRE_IP_HDR,         /**< bad IP version/IHL/options/ext headers */
	RXD_WIRE_IP_LEN,         /**< IP length disagrees with the frame */
	RXD_WIRE_IP_CSUM,        /**< IPv4 header checksum wrong */
	RXD_WIRE_IP_FRAG,        /**< fragmented IPv4 datagram */
	RXD_WIRE_UDP_LEN,        /**< UDP length disagrees with IP */
	RXD_WIRE_UDP_CSUM,       /**< non-zero UDP checksum is wrong */
	RXD_WIRE_BTH_VERSION,    /**< BTH TVer != 0 */
	RXD_WIRE_OPCODE,         /**< unknown, reserved, RD or XRC opcode */
	RXD_WIRE_HDR_MISSING,    /**< too short for the opcode's headers */
	RXD_WIRE_PAD,            /**< bad pad count */
	RXD_WIRE_LENGTH,         /**< payload length not allowed here */
	RXD_WIRE_AETH,           /**< reserved or misplaced AETH syndrome */
	RXD_WIRE_ICRC,           /**< ICRC mismatch */
	RXD_WIRE_ERR_MAX
};

/** Human-readable reason for a wire error ("ICRC mismatch", ...). */
const char *rxd_wire_strerror(enum rxd_wire_err err);

/** What kind of frame the L2/L3 classifier found. */
enum rxd_frame_kind {
	RXD_FRAME_OTHER = 0, /**< not ours: counted and dropped */
	RXD_FRAME_ROCE,      /**< UDP to port 4791 */
	RXD_FRAME_ARP,
	RXD_FRAME_ICMP4,
	RXD_FRAME_ICMP6,
	RXD_FRAME_UDP,       /**< UDP to another port */
	RXD_FRAME_IGMP,      /**< IPv4 protocol 2 */
};

/**
 * One parsed (or to-be-built) RoCEv2 frame.  Multi-byte fields are in host
 * order; addresses stay in network order.  IPv4 addresses are carried as
 * IPv4-mapped GIDs (::ffff:a.b.c.d).
 */
struct rxd_pkt {
	/* L2 */
	uint8_t dmac[RXD_ETH_ALEN];
	uint8_t smac[RXD_ETH_ALEN];
	uint8_t vlan_count;          /**< 0, 1 or 2 tags */
	uint16_t vlan_tpid[2];
	uint16_t vlan_tci[2];        /**< outer first */
	uint16_t ethertype;          /**< after the tags */
	uint8_t kind;                /**< enum rxd_frame_kind */
	/* L3 */
	uint8_t ip_ver;              /**< 4 or 6 */
	uint8_t tos;                 /**< IPv4 TOS / IPv6 traffic class */
	uint8_t ttl;                 /**< IPv4 TTL / IPv6 hop limit */
	uint8_t ip_proto;            /**< IPv4 protocol / IPv6 next header */
	uint16_t ip_id;              /**< IPv4 identification */
	bool ip_df;                  /**< IPv4 don't fragment */
	uint32_t flow_label;         /**< IPv6 flow label */
	uint8_t sgid[RXD_GID_LEN];
	uint8_t dgid[RXD_GID_LEN];
	/* L4 */
	uint16_t udp_sport;
	uint16_t udp_dport;
	uint16_t udp_csum;           /**< as received; 0 = none */
	/* BTH */
	uint8_t opcode;
	bool se, mig, fecn, becn, ackreq;
	uint8_t padcnt, tver;
	uint16_t pkey;
	uint32_t dqpn, psn;
	/* extension headers, valid when the opcode has them */
	uint64_t reth_va;
	uint32_t reth_rkey, reth_len;
	uint8_t aeth_syndrome;
	uint32_t aeth_msn;
	uint64_t atm_va;
	uint32_t atm_rkey;
	uint64_t atm_swap_add, atm_cmp;
	uint64_t atm_orig;
	uint32_t imm;                /**< ImmDt bytes in network order (as verbs' imm_data) */
	uint32_t ieth_rkey;
	uint32_t deth_qkey, deth_sqpn;
	uint8_t feth_sel;            /**< FLUSH selectivity level (enum rxd_flush_sel) */
	uint8_t feth_plt;            /**< FLUSH placement type (enum rxd_flush_plt) */
	/* layout of the frame */
	const struct rxd_opcode_info *op;
	uint16_t l3_off, l4_off, bth_off, payload_off;
	uint32_t payload_len;        /**< without pad */
	uint32_t frame_len;          /**< up to and including the ICRC */
	uint32_t icrc;               /**< as read from or written to the wire */
	bool icrc_deferred;          /**< not checked yet (RXD_PARSE_DEFER_ICRC) */
};

/** Parse options. */
enum rxd_parse_flags {
	RXD_PARSE_NO_ICRC = 1u << 0,  /**< skip ICRC verification */
	RXD_PARSE_NO_CSUM = 1u << 1,  /**< skip IPv4/UDP checksum checks */
	/**
	 * Leave the ICRC of an RC SEND or WRITE MIDDLE/LAST (without
	 * immediate data or invalidate) or READ RESPONSE MIDDLE/LAST
	 * unchecked (pkt->icrc_deferred): the transport checks it while it
	 * copies the payload into place (rxd_wire_place()), or checks it
	 * first (rxd_wire_icrc_ok()) before anything else it does.
	 */
	RXD_PARSE_DEFER_ICRC = 1u << 2,
	RXD_PARSE_IP_CSUM_OK = 1u << 3,  /**< the NIC checked the IPv4 header
					  *   checksum: skip it */
	RXD_PARSE_UDP_CSUM_OK = 1u << 4, /**< the NIC checked the UDP
					  *   checksum: skip it */
};

/**
 * Parse a frame starting at the Ethernet header.
 *
 * Never reads outside [frame, frame + len).  Bytes after the IP datagram
 * (Ethernet padding, FCS) are ignored.  A frame that is not RoCEv2 returns
 * RXD_WIRE_OK with pkt->kind telling what it is and the L2/L3 fields set.
 *
 * @return RXD_WIRE_OK or the reason the frame is refused.
 */
enum rxd_wire_err rxd_wire_parse(const uint8_t *frame, uint32_t len,
				 struct rxd_pkt *pkt, unsigned int flags);

/**
 * Parse a frame that starts at the IP header (Linux cooked captures, raw IP).
 * Same contract as rxd_wire_parse(); L2 fields are zero.
 */
enum rxd_wire_err rxd_wire_parse_ip(const uint8_t *ip, uint32_t len,
				    struct rxd_pkt *pkt, unsigned int flags);

/** True if the frame's ICRC (of a parsed RoCE frame pkt) is right. */
bool rxd_wire_icrc_ok(const uint8_t *frame, const struct rxd_pkt *pkt);

/**
 * Copy the payload of a parsed RoCE frame to dst, checking its ICRC in
 * the same pass.  When it returns false the frame is corrupt: the bytes
 * at dst are not the payload and the frame must be dropped.
 */
bool rxd_wire_place(const uint8_t *frame, const struct rxd_pkt *pkt,
		    void *dst);

/**
 * Length of the headers rxd_wire_build() writes before the payload
 * (Ethernet, VLAN tags, IP, UDP, BTH, extension headers).
 */
uint32_t rxd_wire_hdr_len(const struct rxd_pkt *pkt);

/**
 * Build a frame from pkt: headers at buf, then payload_len bytes copied from
 * payload (may be NULL when the caller already placed them at
 * buf + rxd_wire_hdr_len()), pad bytes (zero), IPv4 checksum, UDP checksum
 * (0 unless pkt->udp_csum is non-zero, then computed) and the ICRC.  A
 * payload of 256 bytes or more given here is copied and summed in one
 * pass (rxd_icrc_copy()).
 * pkt->padcnt is derived from payload_len (0 for FIRST/MIDDLE).
 *
 * @return the frame length, or 0 if the frame would exceed cap.
 */
uint32_t rxd_wire_build(struct rxd_pkt *pkt, const void *payload,
			uint8_t *buf, uint32_t cap);

/** Ethernet, two VLAN tags, IPv6, UDP and BTH, rounded to 8 bytes. */
#define RXD_WIRE_HDR_MAX 88

/**
 * A connection's headers built once (Ethernet to BTH; the destination MAC
 * is left to the sender's neighbour lookup, as rxd_wire_build() leaves
 * it): a frame built from them needs only its lengths, IPv4 checksum,
 * opcode, SE, pad, AckReq, PSN and extension headers written.
 */
struct rxd_wire_hdr {
	uint8_t bytes[RXD_WIRE_HDR_MAX];
	uint32_t ip_sum;       /**< IPv4: the header's sum less its length */
	uint8_t l3_off, l4_off, bth_off;
	uint8_t bth1;          /**< BTH byte 1 less SE and pad (MigReq, TVer) */
	bool v4;
	bool valid;            /**< false: build every frame in full */
};

/**
 * Build the headers of the connection whose every frame has conn's
 * addresses, traffic class, hop limit, flow label, IP ID and DF, UDP
 * source port, MigReq, TVer, P_Key, FECN, BECN and destination QPN.  A
 * connection with a UDP checksum gets none (h->valid false).
 */
void rxd_wire_hdr_make(struct rxd_wire_hdr *h, const struct rxd_pkt *conn);

/**
 * rxd_wire_build() for a frame of h's connection: the same bytes, with
 * every field rxd_wire_hdr_make() took from conn taken from h instead of
 * pkt.  @return the frame length, or 0 if it would exceed cap.
 */
uint32_t rxd_wire_build_from(const struct rxd_wire_hdr *h,
			     struct rxd_pkt *pkt, const void *payload,
			     uint8_t *buf, uint32_t cap);

/**
 * Turn the header template of a connection (addresses, UDP port, the
 * peer's QPN in dqpn) into its CNP: opcode 0x81, PSN 0, BECN set, SE,
 * MigReq and AckReq clear, no payload; IP DSCP dscp with ECT(0) if ect,
 * else Not-ECT.
 */
void rxd_wire_make_cnp(struct rxd_pkt *pkt, uint8_t dscp, bool ect);

/** True if the GID is an IPv4-mapped address (::ffff:a.b.c.d). */
static inline bool
rxd_gid_is_v4(const uint8_t gid[RXD_GID_LEN])
{
	static const uint8_t prefix[12] = { [10] = 0xff, [11] = 0xff };

	return memcmp(gid, prefix, sizeof(prefix)) == 0;
}

/** True if the GID is a multicast address: IPv4-mapped 224/4 or ff00::/8. */
static inline bool
rxd_gid_is_mcast(const uint8_t gid[RXD_GID_LEN])
{
	return rxd_gid_is_v4(gid) ? (gid[12] & 0xf0) == 0xe0 : gid[0] == 0xff;
}

/** Write the IPv4-mapped GID of an IPv4 address (4 bytes, network order). */
static inline void
rxd_gid_from_v4(uint8_t gid[RXD_GID_LEN], const uint8_t ip[4])
{
	memset(gid, 0, 10);
	gid[10] = gid[11] = 0xff;
	memcpy(gid + 12, ip, 4);
}

/**
 * UDP checksum of a datagram (IPv4 or IPv6 pseudo header included) as it
 * should be written in the header: never 0 (0 becomes 0xffff).
 * ip points at the IP header, udp at the UDP header, udp_len its length;
 * the checksum field itself is taken as zero.
 */
uint16_t rxd_udp_csum(const uint8_t *ip, const uint8_t *udp, uint32_t udp_len);

/** IPv4 header checksum of a 20-byte header (checksum field taken as 0). */
uint16_t rxd_ipv4_csum(const uint8_t *ip);

/** PSN arithmetic modulo 2^24: <0, 0, >0 as a is before, at, after b. */
static inline int32_t
rxd_psn_diff(uint32_t a, uint32_t b)
{
	return (int32_t)((a - b) << 8) >> 8;
}

/** AETH helpers. */
static inline uint8_t
rxd_aeth_type(uint8_t syndrome)
{
	return (syndrome >> 5) & 3;
}

static inline uint8_t
rxd_aeth_code(uint8_t syndrome)
{
	return syndrome & 0x1f;
}

static inline uint8_t
rxd_aeth_make(enum rxd_aeth_type type, uint8_t code)
{
	return (uint8_t)((type << 5) | (code & 0x1f));
}

/**
 * The 20-bit flow label Soft-RoCE gives a connection without one: from
 * the product of its two QPNs (the same at both ends).
 */
uint32_t rxd_flow_label_of_qpns(uint32_t lqpn, uint32_t rqpn);

/** The UDP source port (0xC000..0xFFFF) a 20-bit flow label folds to. */
uint16_t rxd_sport_of_flow_label(uint32_t flow_label);

/**
 * UDP source port of a connected (RC, UC) QP's frames, as Soft-RoCE
 * chooses it: from the address vector's flow label, or when that is 0
 * from rxd_flow_label_of_qpns(lqpn, rqpn).  Symmetric in the QPNs.
 */
uint16_t rxd_sport_connected(uint32_t flow_label, uint32_t lqpn,
			     uint32_t rqpn);

/** UDP source port of a datagram (UD, QP1) QP's frames, as Soft-RoCE's. */
uint16_t rxd_sport_datagram(uint32_t qpn);

#endif /* RXD_WIRE_H */
