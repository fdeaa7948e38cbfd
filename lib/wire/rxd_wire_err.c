/* SPDX-License-Identifier: BSD-3-Clause */
/* Names of the reasons the codec refuses a frame. */
#include "rxd_wire.h"

static const char *const wire_err_str[RXD_WIRE_ERR_MAX] = {
	[RXD_WIRE_OK] = "ok",
	[RXD_WIRE_TRUNCATED] = "truncated frame",
	[RXD_WIRE_L2] = "bad Ethernet header (group source MAC)",
	[RXD_WIRE_IP_HDR] = "bad IP header (version, IHL or options)",
	[RXD_WIRE_IP_LEN] = "IP length disagrees with the frame",
	[RXD_WIRE_IP_CSUM] = "IPv4 header checksum wrong",
	[RXD_WIRE_IP_FRAG] = "fragmented IPv4 datagram",
	[RXD_WIRE_UDP_LEN] = "UDP length disagrees with the IP length",
	[RXD_WIRE_UDP_CSUM] = "UDP checksum wrong",
	[RXD_WIRE_BTH_VERSION] = "BTH header version not 0",
	[RXD_WIRE_OPCODE] = "unknown, reserved, RD or XRC opcode",
	[RXD_WIRE_HDR_MISSING] = "extension header missing for the opcode",
	[RXD_WIRE_PAD] = "bad pad count",
	[RXD_WIRE_LENGTH] = "payload length not allowed for the opcode",
	[RXD_WIRE_AETH] = "bad AETH syndrome",
	[RXD_WIRE_ICRC] = "ICRC mismatch",
};

const char *
rxd_wire_strerror(enum rxd_wire_err err)
{
	if ((unsigned int)err >= RXD_WIRE_ERR_MAX)
		return "unknown error";
	return wire_err_str[err];
}
