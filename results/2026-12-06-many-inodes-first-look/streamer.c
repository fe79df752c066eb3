/* Append 1 MiB RWF_DONTCACHE writes to FILE until STOPFILE exists or CAP MiB. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>
#ifndef RWF_DONTCACHE
#define RWF_DONTCACHE 0x00000080
#endif
int main(int argc, char **argv)
{
	static char buf[1 << 20];
	struct iovec iov = { buf, sizeof(buf) };
	long cap = atol(argv[3]);
	off_t off = 0;
	int fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0600);

	if (fd < 0)
		return perror("open"), 1;
	memset(buf, 0x5a, sizeof(buf));
	while (off < cap << 20 && access(argv[2], F_OK)) {
		if (pwritev2(fd, &iov, 1, off, RWF_DONTCACHE) != sizeof(buf))
			return perror("pwritev2"), 1;
		off += sizeof(buf);
	}
	printf("%s %ld MiB%s\n", argv[1], (long)(off >> 20), off >= cap << 20 ? " capped" : "");
	return 0;
}
