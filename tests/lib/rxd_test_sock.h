/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The UNIX-socket side channel of the two-process tests: the two programs
 * swap QP details over it as two hosts would over TCP.
 */
#ifndef RXD_TEST_SOCK_H
#define RXD_TEST_SOCK_H

#include <stdbool.h>

/**
 * The server binds path and waits for one connection; the client tries
 * to connect for 20 s.  @return the connected socket, or -1.
 */
int rxd_test_sock_open(bool server, const char *path);

#endif /* RXD_TEST_SOCK_H */
