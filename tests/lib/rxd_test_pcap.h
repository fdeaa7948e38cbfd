/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Test helper: read and write capture files through libpcap (pcap and
 * pcapng, any link type).  Owns nothing of the stack; used by the wire
 * tests, the frame generator for roce-check and the fuzzer's corpus
 * extractor.
 */
#ifndef RXD_TEST_PCAP_H
#define RXD_TEST_PCAP_H

#include <stdint.h>

#define RXD_TEST_DLT_EN10MB 1       /* Ethernet */
#define RXD_TEST_DLT_LINUX_SLL 113  /* Linux cooked capture v1 */
#define RXD_TEST_SLL_HLEN 16

/** One frame of a capture, as handed to a callback. */
struct rxd_test_frame {
	const uint8_t *data;  /**< captured bytes */
	uint32_t caplen;      /**< bytes captured */
	uint32_t wirelen;     /**< bytes on the wire */
	int linktype;         /**< DLT_* of the file */
	unsigned int no;      /**< 1-based frame number, as in Wireshark */
};

/** Called for each frame; a non-zero return stops the walk. */
typedef int (*rxd_test_frame_cb)(const struct rxd_test_frame *f, void *arg);

/**
 * Call cb for every frame of a pcap or pcapng file.
 * @return the number of frames visited, or -1 if the file cannot be read
 *   (the reason is printed on stderr).
 */
int rxd_test_pcap_foreach(const char *path, rxd_test_frame_cb cb, void *arg);

struct rxd_test_pcap_out;

/** Create a pcap file (microsecond timestamps) of the given link type. */
struct rxd_test_pcap_out *rxd_test_pcap_create(const char *path,
					       int linktype);

/** Append one frame; timestamps count up one microsecond per frame. */
void rxd_test_pcap_write(struct rxd_test_pcap_out *out, const uint8_t *data,
			 uint32_t len);

/** Flush and close; returns 0, or -1 if writing failed. */
int rxd_test_pcap_close(struct rxd_test_pcap_out *out);

#endif /* RXD_TEST_PCAP_H */
