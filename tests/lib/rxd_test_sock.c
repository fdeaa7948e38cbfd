/* SPDX-License-Identifier: BSD-3-Clause */
/* The two-process tests' side channel (rxd_test_sock.h). */
#include <stdio.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "rxd_test_sock.h"

int
rxd_test_sock_open(bool server, const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int s = socket(AF_UNIX, SOCK_STREAM, 0), c, i;

	if (s < 0)
		return -1;
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	if (server) {
		unlink(path);
		if (bind(s, (struct sockaddr *)&a, sizeof(a)) || listen(s, 1)) {
			close(s);
			return -1;
		}
		c = accept(s, NULL, NULL);
		close(s);
		return c;
	}
	for (i = 0; i < 400; i++) {
		if (connect(s, (struct sockaddr *)&a, sizeof(a)) == 0)
			return s;
		usleep(50000);
	}
	close(s);
	return -1;
}
